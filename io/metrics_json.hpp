#pragma once
// ClipMetrics as JSON (the "metrics" object of run and check reports; see README.md).
#include <nlohmann/json.hpp>

#include "core/metrics.hpp"

namespace ikfix::io {

nlohmann::ordered_json metrics_json(const core::ClipMetrics& metrics);

}  // namespace ikfix::io
