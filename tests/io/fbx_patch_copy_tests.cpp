// fbx::copy_for_patch: the cheap copy fbx::save patches into must give the very bytes a whole
// copy gives, for every corpus file and take, and leave the loaded document as read.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "io/clip_io.hpp"
#include "io/error.hpp"
#include "io/fbx/fbx.hpp"
#include "io/file_util.hpp"
#include "test_data.hpp"

namespace fbx = ikfix::io::fbx;
namespace core = ikfix::core;

namespace {

std::vector<std::filesystem::path> corpus_fbx_files() {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e :
       std::filesystem::directory_iterator(ikfix::test::shared_data_dir() / "anim" / "fbx", ec))
    if (e.path().extension() == ".fbx") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Joints a leg fix edits (legs, feet, hips; every joint in a file without such names), turned a
// little more at every frame.
std::vector<char> edit_legs(const ikfix::io::LoadedClip& c, core::Clip& clip) {
  clip = c.clip;
  std::vector<char> changed(c.skeleton.joint_count(), 0);
  for (int j = 0; j < c.skeleton.joint_count(); ++j) {
    std::string n = c.skeleton.names[j];
    std::transform(n.begin(), n.end(), n.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    changed[j] = n.find("leg") != std::string::npos || n.find("foot") != std::string::npos ||
                 n.find("hips") != std::string::npos;
  }
  if (std::count(changed.begin(), changed.end(), 1) == 0) changed.assign(changed.size(), 1);
  for (int j = 0; j < c.skeleton.joint_count(); ++j) {
    if (!changed[j]) continue;
    for (int f = 0; f < clip.frame_count; ++f)
      clip.at(f, j).rotation =
          clip.at(f, j).rotation * core::axis_angle(core::Vec3(1, 0, 0), 1e-3 * f);
  }
  return changed;
}

}  // namespace

TEST(FbxPatchCopy, PatchingTheCheapCopyWritesWhatAWholeCopyWrites) {
  IKFIX_REQUIRE_SHARED_DATA();
  int patched_takes = 0;
  for (const auto& path : corpus_fbx_files()) {
    SCOPED_TRACE(path.filename().string());
    std::vector<ikfix::io::LoadedClip> takes;
    try {
      takes = ikfix::io::load_takes(path);
    } catch (const ikfix::io::InputError&) {
      continue;  // no skeleton or no animation: nothing to patch
    }
    const auto& cd = *static_cast<const fbx::ClipDocument*>(takes[0].document.get());
    const std::string original = ikfix::io::read_file(path);
    for (const auto& take : takes) {
      core::Clip clip;
      const std::vector<char> changed = edit_legs(take, clip);
      fbx::ClipDocument whole = cd;
      const std::vector<fbx::TakeJoints> joints{{take.take_index, changed}};
      fbx::ClipDocument cheap = fbx::copy_for_patch(cd, joints);
      std::string whole_bytes, cheap_bytes;
      try {
        fbx::patch_take(whole, take.take_index, clip, changed);
        whole_bytes = fbx::write(whole.doc);
      } catch (const ikfix::io::InputError& e) {
        // A joint the file cannot express: the cheap copy refuses it the same way.
        EXPECT_THROW(fbx::patch_take(cheap, take.take_index, clip, changed), ikfix::io::InputError)
            << e.what();
        continue;
      }
      fbx::patch_take(cheap, take.take_index, clip, changed);
      cheap_bytes = fbx::write(cheap.doc);
      EXPECT_TRUE(cheap_bytes == whole_bytes) << "take " << take.take_index;
      EXPECT_NE(cheap_bytes, original);
      // Most of the tree stood in as bytes.
      std::size_t deferred = 0;
      for (const fbx::Node& o : cheap.doc.root.child("Objects")->children) deferred += o.deferred;
      EXPECT_GT(deferred, 0u);
      ++patched_takes;
    }
    // The loaded document is still the file as read.
    EXPECT_TRUE(fbx::write(cd.doc) == original);
  }
  EXPECT_GE(patched_takes, 10);
}
