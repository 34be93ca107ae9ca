// The HTML report page's text (io/html/html_report.hpp): the data element holds the report and
// the view as JSON that parses back, whatever the names in it: a joint or clip named with "<"
// (even "</script>") must not end the data element early.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "io/html/html_report.hpp"
#include "io/html/packed_data.hpp"
#include "io/html/view_json.hpp"

namespace ikfix::io {
namespace {

// Two joints and two frames, a one-triangle terrain, every series one value per frame.
core::ReportView tiny_view(const std::vector<std::string>& names) {
  core::ReportView v;
  v.fps = 30;
  v.joint_names = names;
  v.parents = {-1, 0};
  v.pelvis = 0;
  for (core::ViewPositions* p : {&v.before, &v.after}) {
    p->frame_count = 2;
    p->point_count = 2;
    p->positions = {{0, 1, 0}, {0, 0.5, 0}, {0, 1, 0.1}, {0, 0.5, 0.1}};
  }
  v.terrain.vertices = {{-1, 0, -1}, {1, 0, -1}, {0, 0, 1}};
  v.terrain.triangles = {{0, 1, 2}};
  v.series.pelvis_change_m = {0.0, -0.01};
  for (core::FootSeries& s : v.series.feet) {
    s.lowest_before_m = {0.1, std::nullopt};
    s.lowest_after_m = {0.0, 0.0};
    s.pivot_slide_before_mps = s.pivot_slide_after_mps = {std::nullopt, 0.0};
    s.knee_before_deg = s.knee_after_deg = {170.0, 160.0};
    s.shortfall_m = {std::nullopt, std::nullopt};
  }
  return v;
}

// The text of the page's data element, parsed.
nlohmann::json page_data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"ikfix-data\">";
  const std::size_t begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  const std::size_t from = begin + open.size();
  const std::size_t end = page.find("</script>", from);
  return nlohmann::json::parse(page.substr(from, end - from));
}

TEST(HtmlPage, NamesWithAngleBracketsStayInsideTheDataElement) {
  const std::vector<std::string> names = {"Hips</script><script>alert(1)</script>", "<Knee>"};
  const core::ReportView view = tiny_view(names);
  const nlohmann::ordered_json report = {{"command", "run"}, {"note", "</script> in a report"}};
  HtmlPageInput in;
  in.title = "clip</script>.bvh";
  in.report = &report;
  in.view = &view;
  const std::string page = html_report_page(in);
  const nlohmann::json data = page_data(page);
  EXPECT_EQ(data["title"], "clip</script>.bvh");
  EXPECT_EQ(data["report"]["note"], "</script> in a report");
  EXPECT_EQ(data["view"]["jointNames"], nlohmann::json(names));
  EXPECT_EQ(data["view"]["frames"], 2);
  EXPECT_EQ(data["view"]["pointCount"], 2);
  EXPECT_TRUE(data["view"]["series"]["feet"][0]["lowest_before_m"].contains("bytes"));
}

// The view's JSON is its head, the "before" positions' text and its tail; a page given that text
// made beforehand is the page that makes it.
TEST(HtmlPage, BeforePositionsTextMadeBeforehandGivesTheSamePage) {
  const core::ReportView view = tiny_view({"Hips", "Knee"});
  EXPECT_EQ(view_json(view),
            view_json_head(view) + positions_text(view.before) + view_json_tail(view));
  EXPECT_EQ(nlohmann::json::parse(view_json(view))["positions"]["before"],
            base64(delta_varints(view.before.positions, view.before.point_count)));
  const nlohmann::ordered_json report = {{"command", "run"}};
  HtmlPageInput in;
  in.title = "clip.bvh";
  in.report = &report;
  in.view = &view;
  const std::string made_here = html_report_page(in);
  const std::string text = positions_text(view.before);
  in.before_positions_text = &text;
  EXPECT_EQ(html_report_page(in), made_here);
}

}  // namespace
}  // namespace ikfix::io
