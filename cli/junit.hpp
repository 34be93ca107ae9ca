#pragma once
// JUnit XML from a batch report: the format CI dashboards read. One test case per clip, named by
// its input path; a clip where a --fail-on condition held is a <failure> that names the
// condition, the worst frame, leg, shortfall and reason; a clip that could not be fixed is an
// <error> with its one-line message; a clip not done (interrupted batch) is <skipped>.
// Deterministic: no timings, so `batch --junit` and `report merge --junit` agree byte for byte.
#include <string>

#include "cli/batch_report.hpp"

namespace ikfix::cli {

std::string junit_xml(const BatchReport& report);

}  // namespace ikfix::cli
