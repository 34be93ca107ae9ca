#pragma once
// The HTML report's view data as JSON text (the page's "view" object; io/web/viewer.js reads it).
#include <string>

#include "core/view/report_view.hpp"

namespace ikfix::io {

// {"fps", "frames", "jointNames", "parents", "pointCount", "pelvis", "feet", "positions",
// ["source": {"jointNames", "parents", "pointCount", "frames", "positions"},] "terrain", "series"}:
// positions as base64 of delta_varints (not deflated), the terrain as float32 vertices and uint32
// triangle indices, packed (io/html/packed_data.hpp); each series as {"step", "bytes"}:
// series_varints on that grid in base64 (absent values come back as null).
std::string view_json(const core::ReportView& view);

// view_json(view) is view_json_head(view) + positions_text(view.before) + view_json_tail(view):
// the "before" positions' text (with "after"'s the largest part) apart, so that it can be made
// beforehand, as soon as those positions are known.
std::string view_json_head(const core::ReportView& view);
std::string view_json_tail(const core::ReportView& view);
// base64 of delta_varints of the positions (a "positions" member's text).
std::string positions_text(const core::ViewPositions& positions);

}  // namespace ikfix::io
