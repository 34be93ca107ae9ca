#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/contacts_json.hpp"
#include "io/error.hpp"
#include "test_scratch.hpp"

namespace ikfix::io {
namespace {

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto path = ikfix::test::scratch_path("contacts_" + name + ".json");
  std::ofstream(path) << text;
  return path;
}

// The error message load_contacts gives for `text` on a 10-frame clip ("" when none).
std::string error_for(const std::string& name, const std::string& text) {
  const auto path = write_temp(name, text);
  try {
    load_contacts(path, 10);
  } catch (const InputError& e) {
    std::filesystem::remove(path);
    EXPECT_EQ(std::string(e.what()).rfind(path.string() + ": ", 0), 0u)
        << e.what();  // names the file
    return e.cause();
  }
  std::filesystem::remove(path);
  return "";
}

TEST(ContactsJson, SavedContactsLoadBackFrameForFrame) {
  ContactFlags flags;
  flags[0] = {1, 1, 0, 0, 1, 1, 1, 0, 0, 1};
  flags[1] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const auto path = ikfix::test::scratch_path("contacts_roundtrip.json");
  save_contacts(path, flags, 30.0);
  EXPECT_EQ(load_contacts(path, 10), flags);
  std::filesystem::remove(path);
}

TEST(ContactsJson, RangesAreInclusive) {
  const auto path = write_temp(
      "inclusive",
      R"({"ikfix_contacts": 1, "frames": 10, "left": [[0, 0], [3, 9]], "right": [[5, 5]]})");
  const ContactFlags flags = load_contacts(path, 10);
  EXPECT_EQ(flags[0], (std::vector<char>{1, 0, 0, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(flags[1], (std::vector<char>{0, 0, 0, 0, 0, 1, 0, 0, 0, 0}));
  std::filesystem::remove(path);
}

TEST(ContactsJson, EveryKindOfBadFileIsRefusedWithAReason) {
  const std::string ok_start = R"({"ikfix_contacts": 1, "frames": 10, )";
  EXPECT_NE(error_for("json", "{not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_for("array", "[]").find("JSON object"), std::string::npos);
  EXPECT_NE(
      error_for("version", R"({"frames": 10, "left": [], "right": []})").find("ikfix_contacts"),
      std::string::npos);
  EXPECT_NE(
      error_for("frames", R"({"ikfix_contacts": 1, "left": [], "right": []})").find("\"frames\""),
      std::string::npos);
  EXPECT_EQ(error_for("count", R"({"ikfix_contacts": 1, "frames": 12, "left": [], "right": []})"),
            "is for 12 frames but the clip has 10");
  EXPECT_NE(error_for("unknown", ok_start + R"("left": [], "right": [], "middle": []})")
                .find("unknown key \"middle\""),
            std::string::npos);
  EXPECT_NE(error_for("noright", ok_start + R"("left": []})").find("\"right\" is required"),
            std::string::npos);
  EXPECT_NE(error_for("pair", ok_start + R"("left": [[1, 2, 3]], "right": []})")
                .find("\"left\"[0] must be [first, last]"),
            std::string::npos);
  EXPECT_NE(error_for("float", ok_start + R"("left": [[1.5, 2]], "right": []})")
                .find("whole frame numbers"),
            std::string::npos);
  EXPECT_NE(error_for("outside", ok_start + R"("left": [], "right": [[8, 10]]})")
                .find("outside the clip's frames 0..9"),
            std::string::npos);
  EXPECT_NE(error_for("negative", ok_start + R"("left": [[-1, 2]], "right": []})").find("outside"),
            std::string::npos);
  EXPECT_NE(error_for("reversed", ok_start + R"("left": [[5, 2]], "right": []})")
                .find("ends before it starts"),
            std::string::npos);
  EXPECT_NE(error_for("overlap", ok_start + R"("left": [[1, 4], [4, 6]], "right": []})")
                .find("in order and not overlap"),
            std::string::npos);
  EXPECT_NE(error_for("fps", ok_start + R"("fps": -3, "left": [], "right": []})").find("\"fps\""),
            std::string::npos);
  EXPECT_EQ(error_for("good", ok_start + R"("fps": 30, "left": [[0, 1], [3, 4]], "right": []})"),
            "");
}

}  // namespace
}  // namespace ikfix::io
