// fk_dump CLIP FRAME: prints the world positions (metres, Y up) of every joint of CLIP at FRAME,
// as read back by ikfix's own reader and FK, as JSON {"frame", "joints": {name: [x, y, z]}}.
// The browser tests compare them with what the HTML report's viewer draws at that frame.
#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/fk.hpp"
#include "io/clip_io.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fk_dump CLIP FRAME\n");
    return 2;
  }
  try {
    const ikfix::io::LoadedClip clip = ikfix::io::load_clip(argv[1]);
    const int frame = std::stoi(argv[2]);
    if (frame < 0 || frame >= clip.clip.frame_count) {
      std::fprintf(stderr, "fk_dump: %s has no frame %d\n", argv[1], frame);
      return 2;
    }
    std::vector<ikfix::core::Transform> world(clip.skeleton.names.size());
    ikfix::core::forward_kinematics(clip.skeleton, clip.clip.frame(frame), clip.space.to_world(),
                                    world);
    nlohmann::ordered_json out;
    out["frame"] = frame;
    out["joints"] = nlohmann::ordered_json::object();
    for (std::size_t j = 0; j < world.size(); ++j) {
      const auto& p = world[j].translation;
      out["joints"][clip.skeleton.names[j]] = {p.x, p.y, p.z};
    }
    std::printf("%s\n", out.dump().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fk_dump: %s\n", e.what());
    return 2;
  }
}
