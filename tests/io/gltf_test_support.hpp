#pragma once
// Small hand-built glTF documents for the glTF reader/writer tests: accessors are appended to
// one buffer, embedded as a base64 data URI when the text is produced.
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/gltf/base64.hpp"
#include "io/gltf/gltf.hpp"

namespace ikfix::test {

struct MiniGltf {
  using Json = nlohmann::ordered_json;
  std::string bin;
  Json json;

  MiniGltf() {
    json["asset"] = {{"version", "2.0"}};
    json["scene"] = 0;
    json["scenes"] = Json::array({Json{{"nodes", Json::array({0})}}});
    json["nodes"] = Json::array();
    json["animations"] = Json::array();
    json["accessors"] = Json::array();
    json["bufferViews"] = Json::array();
  }

  // Appends raw bytes as a new bufferView (4-byte aligned); returns its index.
  int add_view(const void* data, std::size_t size) {
    while (bin.size() % 4) bin += '\0';
    const std::size_t offset = bin.size();
    bin.append(static_cast<const char*>(data), size);
    json["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", offset}, {"byteLength", size}});
    return static_cast<int>(json["bufferViews"].size()) - 1;
  }

  int add_accessor(int view, int component_type, int count, const char* type,
                   bool normalized = false) {
    Json a = {
        {"bufferView", view}, {"componentType", component_type}, {"count", count}, {"type", type}};
    if (normalized) a["normalized"] = true;
    json["accessors"].push_back(a);
    return static_cast<int>(json["accessors"].size()) - 1;
  }

  int add_floats(const std::vector<float>& v, const char* type, int components) {
    const int count = static_cast<int>(v.size()) / components;
    const int index = add_accessor(add_view(v.data(), v.size() * sizeof(float)), 5126, count, type);
    if (std::string(type) == "SCALAR") {
      json["accessors"][index]["min"] = {static_cast<double>(v.front())};
      json["accessors"][index]["max"] = {static_cast<double>(v.back())};
    }
    return index;
  }

  template <typename T>
  int add_ints(const std::vector<T>& v, int component_type, const char* type, int components,
               bool normalized) {
    return add_accessor(add_view(v.data(), v.size() * sizeof(T)), component_type,
                        static_cast<int>(v.size()) / components, type, normalized);
  }

  // A node with TRS; returns its index. parent -1 adds it to the scene's roots only if index 0.
  int add_node(const std::string& name, int parent, const std::vector<double>& translation = {},
               const std::vector<double>& rotation_xyzw = {}) {
    Json n = Json::object();
    if (!name.empty()) n["name"] = name;
    if (!translation.empty()) n["translation"] = translation;
    if (!rotation_xyzw.empty()) n["rotation"] = rotation_xyzw;
    json["nodes"].push_back(n);
    const int index = static_cast<int>(json["nodes"].size()) - 1;
    if (parent >= 0) json["nodes"][parent]["children"].push_back(index);
    return index;
  }

  // Adds an animation with the given (node, path, input, output, interpolation) channels, one
  // sampler each. Returns its index.
  struct ChannelSpec {
    int node;
    const char* path;
    int input;
    int output;
    const char* interpolation;
  };
  int add_animation(const std::string& name, const std::vector<ChannelSpec>& channels) {
    Json anim = Json::object();
    if (!name.empty()) anim["name"] = name;
    anim["channels"] = Json::array();
    anim["samplers"] = Json::array();
    for (const auto& c : channels) {
      const int s = static_cast<int>(anim["samplers"].size());
      anim["samplers"].push_back(
          {{"input", c.input}, {"interpolation", c.interpolation}, {"output", c.output}});
      anim["channels"].push_back(
          {{"sampler", s}, {"target", {{"node", c.node}, {"path", c.path}}}});
    }
    json["animations"].push_back(anim);
    return static_cast<int>(json["animations"].size()) - 1;
  }

  std::string text() const {
    Json j = json;
    j["buffers"] = Json::array(
        {Json{{"byteLength", bin.size()},
              {"uri", "data:application/octet-stream;base64," + io::gltf::base64_encode(bin)}}});
    return j.dump();
  }

  io::gltf::Document parse(const std::string& name = "mini.gltf") const {
    return io::gltf::parse(text(), name);
  }
};

}  // namespace ikfix::test
