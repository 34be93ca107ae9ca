#include "cli/html_page.hpp"

#include <stdexcept>

#include "io/file_util.hpp"
#include "io/html/html_report.hpp"

namespace ikfix::cli {

core::ReportView view_of_fix(const io::LoadedClip& clip, const core::FixResult& result,
                             const core::LegRig& rig, const core::Terrain& terrain,
                             ComputedView computed) {
  core::ReportViewInput in;
  in.skeleton = &clip.skeleton;
  in.before = &clip.clip;
  const bool fixed = result.clip.frame_count > 0;
  in.after = fixed ? &result.clip : &clip.clip;  // check: as it is
  in.after_positions = fixed ? std::move(computed.after) : computed.before;
  in.before_positions = std::move(computed.before);
  in.before_lowest_above_m = computed.lowest_before;
  in.after_lowest_above_m = fixed ? computed.lowest_after : computed.lowest_before;
  in.space = clip.space;
  in.rig = rig;
  in.terrain = &terrain;
  for (int leg = 0; leg < 2; ++leg) {
    in.planted[leg] = &result.planted[leg];
    in.ankle_target_ws[leg] = &result.ankle_target_ws[leg];
  }
  return core::build_report_view(std::move(in));
}

core::ReportView view_of_retarget(const io::LoadedClip& source, const io::LoadedClip& work,
                                  const core::RetargetPipelineResult& result,
                                  const core::LegRig& rig, const core::Terrain& terrain) {
  core::ReportViewInput in;
  in.skeleton = &work.skeleton;
  in.before = &result.transfer.clip;
  in.after = &result.clip;
  in.space = work.space;
  in.rig = rig;
  in.terrain = &terrain;
  for (int leg = 0; leg < 2; ++leg) in.planted[leg] = &result.source_contacts[leg];
  in.source_skeleton = &source.skeleton;
  in.source_clip = &source.clip;
  in.source_space = source.space;
  return core::build_report_view(std::move(in));
}

io::PageText html_page_text(const nlohmann::ordered_json& report, const core::ReportView& view,
                            const std::string& title, const std::string& assets_url,
                            const std::string* before_positions_text) {
  io::HtmlPageInput page;
  page.before_positions_text = before_positions_text;
  page.title = title;
  page.report = &report;
  page.view = &view;
  page.assets_url = assets_url;
  return io::html_report_page_text(page);
}

namespace {

void refuse_input(const std::filesystem::path& path) {
  if (io::is_noted_input(path))
    throw std::invalid_argument("--html " + path.string() + " is an input; choose another file");
}

}  // namespace

void write_html_text(const std::filesystem::path& path, const io::PageText& text) {
  refuse_input(path);
  io::write_file_atomic(path, text.pieces());
}

io::WrittenFile write_html_temp(const std::filesystem::path& path, const io::PageText& text) {
  refuse_input(path);
  return io::write_temp_file(path, text.pieces());
}

void write_html_page(const std::filesystem::path& path, const nlohmann::ordered_json& report,
                     const core::ReportView& view, const std::string& title,
                     const std::string& assets_url) {
  write_html_text(path, html_page_text(report, view, title, assets_url));
}

}  // namespace ikfix::cli
