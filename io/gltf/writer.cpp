#include "io/gltf/writer.hpp"

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/gltf/base64.hpp"
#include "io/gltf/json_text.hpp"

namespace ikfix::io::gltf {
namespace {

namespace fs = std::filesystem;
using json_text::Edit;
using json_text::Span;

constexpr int kFloat = 5126;

std::size_t align4(std::size_t n) { return (n + 3) & ~static_cast<std::size_t>(3); }

void put_u32(std::string& out, std::uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out.append(b, 4);
}

bool is_relative_uri(const std::string& uri) {
  if (uri.empty() || uri.rfind("data:", 0) == 0 || uri.find("://") != std::string::npos)
    return false;
  return fs::path(uri).is_relative();
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      auto hex = [](char c) {
        return c >= '0' && c <= '9'   ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
               : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                      : -1;
      };
      const int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

std::string percent_encode_path(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.' || c == '~' || c == '/' || c >= 0x80;
    if (keep) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// Builds the appended bytes and the JSON for the new accessors and bufferViews.
struct NewData {
  int buffer = 0;        // buffer index the new bufferViews refer to
  std::size_t base = 0;  // byte offset of `bytes` within that buffer
  std::string bytes;
  int first_view = 0;
  int first_accessor = 0;
  std::vector<std::string> views;
  std::vector<std::string> accessors;

  int add(const std::vector<float>& data, const char* type, int count,
          const std::optional<std::pair<float, float>>& min_max) {
    const std::size_t offset = base + bytes.size();
    bytes.append(reinterpret_cast<const char*>(data.data()), data.size() * sizeof(float));
    Json view = Json::object();
    view["buffer"] = buffer;
    view["byteOffset"] = offset;
    view["byteLength"] = data.size() * sizeof(float);
    views.push_back(view.dump());
    Json accessor = Json::object();
    accessor["bufferView"] = first_view + static_cast<int>(views.size()) - 1;
    accessor["componentType"] = kFloat;
    accessor["count"] = count;
    accessor["type"] = type;
    if (min_max) {
      accessor["min"] = Json::array({static_cast<double>(min_max->first)});
      accessor["max"] = Json::array({static_cast<double>(min_max->second)});
    }
    accessors.push_back(accessor.dump());
    return first_accessor + static_cast<int>(accessors.size()) - 1;
  }
};

// Sampler output values of one joint's translation / rotation / scale over a clip: floats,
// rotations as unit (x, y, z, w) quaternions sign-continuous from frame to frame.
std::vector<float> channel_values(const core::Clip& clip, int j, Path path, const std::string& file,
                                  const std::string& joint_name) {
  const int frames = clip.frame_count;
  const int components = path == Path::rotation ? 4 : 3;
  std::vector<float> values(static_cast<std::size_t>(frames) * components);
  core::Quat previous(1, 0, 0, 0);
  for (int f = 0; f < frames; ++f) {
    const core::Transform& t = clip.at(f, j);
    float* v = values.data() + static_cast<std::size_t>(f) * components;
    if (path == Path::rotation) {
      core::Quat q = glm::normalize(t.rotation);
      if (!core::is_finite(q))
        throw InputError(
            file, "joint '" + joint_name + "': non-finite rotation at frame " + std::to_string(f));
      if (f > 0) q = core::align_hemisphere(q, previous);
      previous = q;
      v[0] = static_cast<float>(q.x);
      v[1] = static_cast<float>(q.y);
      v[2] = static_cast<float>(q.z);
      v[3] = static_cast<float>(q.w);
    } else {
      const core::Vec3 p = path == Path::translation ? t.translation : t.scale;
      if (!core::is_finite(p))
        throw InputError(file, "joint '" + joint_name + "': non-finite " +
                                   std::string(path_name(path)) + " at frame " + std::to_string(f));
      v[0] = static_cast<float>(p.x);
      v[1] = static_cast<float>(p.y);
      v[2] = static_cast<float>(p.z);
    }
  }
  return values;
}

// The output file in three pieces, so that save() can write the original BIN bytes straight from
// the document without copying them: head + middle (a view into the document) + tail.
struct Output {
  std::string head;
  std::string_view middle;
  std::string tail;
};

// A top-level member of the document's JSON, as the reader found it (the last one of that key).
std::optional<Span> top_member(const Document& doc, std::string_view key) {
  std::optional<Span> found;
  for (const auto& m : doc.top_members)
    if (m.key == key) found = Span{m.begin, m.end};
  return found;
}

// True when new bytes go into the GLB's BIN chunk (buffer 0), false when they go into a new
// embedded buffer.
bool writes_into_bin(const Document& doc) {
  return doc.container == Container::glb &&
         ((!doc.buffers.empty() && doc.buffers[0].source == BufferSource::glb_bin) ||
          doc.buffers.empty());
}

// Empty new data placed after the document's bufferViews, accessors and (BIN or buffer) bytes.
NewData start_new_data(const Document& doc, bool into_bin) {
  NewData data;
  data.first_view = static_cast<int>(array_member(doc.json, "bufferViews").size());
  data.first_accessor = static_cast<int>(array_member(doc.json, "accessors").size());
  if (into_bin) {
    data.buffer = 0;
    data.base = doc.has_bin_chunk ? align4(doc.bin_length) : 0;
  } else {
    data.buffer = static_cast<int>(array_member(doc.json, "buffers").size());
    data.base = 0;
  }
  return data;
}

// Throws unless `e` belongs to `doc`, names an animation not written yet (marked in
// `animation_done`) and its clips match the take's frames and joints.
void check_take_edit(const Document& doc, const TakeEdit& e, std::vector<char>& animation_done) {
  const std::string& file = doc.source_name;
  if (!e.layout || !e.original || !e.edited || e.layout->document.get() != &doc)
    throw InputError(file, "internal: a take to write does not belong to this document");
  const TakeLayout& layout = *e.layout;
  const int a = layout.animation;
  if (animation_done[a])
    throw InputError(file, "animation " + std::to_string(a) + " written twice");
  animation_done[a] = 1;
  const int frames = static_cast<int>(layout.frame_times.size());
  const int joints = static_cast<int>(layout.joint_nodes.size());
  if (e.original->frame_count != frames || e.edited->frame_count != frames ||
      e.original->joint_count != joints || e.edited->joint_count != joints ||
      static_cast<int>(e.changed.size()) != joints)
    throw InputError(file,
                     "the edited clip does not match the take as read (frames or joints differ)");
}

// True when component `path` of joint `j` differs (bitwise) between the two clips on any frame.
bool component_differs(const core::Clip& before, const core::Clip& after, int j, Path path,
                       int frames) {
  for (int f = 0; f < frames; ++f) {
    const core::Transform& x = before.at(f, j);
    const core::Transform& y = after.at(f, j);
    const bool differs = path == Path::translation ? x.translation != y.translation
                         : path == Path::rotation  ? x.rotation != y.rotation
                                                   : x.scale != y.scale;
    if (differs) return true;
  }
  return false;
}

// Adds the take's frame times (seconds, strictly increasing) as a SCALAR accessor with min/max.
int add_take_times(NewData& data, const TakeLayout& layout, const Animation& anim,
                   const std::string& file) {
  std::vector<float> times(layout.frame_times.begin(), layout.frame_times.end());
  for (std::size_t f = 1; f < times.size(); ++f)
    if (!(times[f] > times[f - 1]))
      throw InputError(file,
                       "frame times of animation '" + anim.display_name + "' are not increasing");
  return data.add(times, "SCALAR", static_cast<int>(times.size()),
                  std::make_pair(times.front(), times.back()));
}

// Index of the channel animating (node, path) in `anim`, or -1.
int find_channel(const Animation& anim, int node, Path path) {
  for (std::size_t c = 0; c < anim.channels.size(); ++c)
    if (anim.channels[c].node == node && anim.channels[c].path == path) return static_cast<int>(c);
  return -1;
}

// The JSON changes to one animation: samplers and channels replaced in place (by index) and
// appended (as JSON text).
struct AnimationPatch {
  std::map<int, Json> replaced_samplers;  // sampler index -> new object
  std::map<int, Json> replaced_channels;  // channel index -> new object
  std::vector<std::string> new_samplers, new_channels;
  int next_sampler = 0;  // index the next appended sampler gets

  bool empty() const {
    return replaced_samplers.empty() && replaced_channels.empty() && new_samplers.empty() &&
           new_channels.empty();
  }
};

// Points (node, path) at a LINEAR sampler from `time_accessor` to `output`: the channel's own
// sampler is replaced when only that channel uses it; otherwise a new sampler is appended and
// the channel (existing or new) refers to it.
void route_channel(AnimationPatch& patch, const Animation& anim, const Json& anim_json,
                   const std::vector<int>& sampler_users, int node, Path path, int time_accessor,
                   int output) {
  const int channel = find_channel(anim, node, path);
  if (channel >= 0 && sampler_users[anim.channels[channel].sampler] == 1) {
    const int s = anim.channels[channel].sampler;
    Json sampler = anim_json["samplers"][s];
    sampler["input"] = time_accessor;
    sampler["output"] = output;
    if (sampler.contains("interpolation")) sampler["interpolation"] = "LINEAR";
    patch.replaced_samplers[s] = std::move(sampler);
    return;
  }
  Json sampler = Json::object();
  sampler["input"] = time_accessor;
  sampler["interpolation"] = "LINEAR";
  sampler["output"] = output;
  patch.new_samplers.push_back(sampler.dump());
  const int s = patch.next_sampler++;
  if (channel >= 0) {
    Json c = anim_json["channels"][channel];
    c["sampler"] = s;
    patch.replaced_channels[channel] = std::move(c);
  } else {
    Json c = Json::object();
    c["sampler"] = s;
    c["target"] = Json::object();
    c["target"]["node"] = node;
    c["target"]["path"] = std::string(path_name(path));
    patch.new_channels.push_back(c.dump());
  }
}

// The patch of one take's animation: every changed component of every changed joint gets new
// data (one time accessor shared by the take) and a sampler routed to it.
AnimationPatch patch_take(const Document& doc, const TakeEdit& e, NewData& data) {
  const std::string& file = doc.source_name;
  const TakeLayout& layout = *e.layout;
  const Animation& anim = doc.animations[layout.animation];
  const Json& anim_json = doc.json["animations"][layout.animation];
  const int frames = static_cast<int>(layout.frame_times.size());
  const int joints = static_cast<int>(layout.joint_nodes.size());
  std::vector<int> sampler_users(anim.samplers.size(), 0);
  for (const Channel& c : anim.channels) ++sampler_users[c.sampler];
  AnimationPatch patch;
  patch.next_sampler = static_cast<int>(anim.samplers.size());
  int time_accessor = -1;
  for (int j = 0; j < joints; ++j) {
    if (!e.changed[j]) continue;
    const int node = layout.joint_nodes[j];
    for (Path path : {Path::translation, Path::rotation, Path::scale}) {
      if (!component_differs(*e.original, *e.edited, j, path, frames)) continue;
      const std::string joint_name = doc.nodes[node].display_name;
      if (doc.nodes[node].has_matrix)
        throw InputError(file, "joint '" + joint_name + "' (node " + std::to_string(node) +
                                   ") has a matrix; glTF cannot animate it, so its edit cannot be "
                                   "written");
      const std::vector<float> values = channel_values(*e.edited, j, path, file, joint_name);
      if (time_accessor < 0) time_accessor = add_take_times(data, layout, anim, file);
      const int output =
          data.add(values, path == Path::rotation ? "VEC4" : "VEC3", frames, std::nullopt);
      route_channel(patch, anim, anim_json, sampler_users, node, path, time_accessor, output);
    }
  }
  return patch;
}

// Text edits applying `patch` to the animation whose JSON text is `anim_span`.
void add_patch_edits(std::string_view text, Span anim_span, const AnimationPatch& patch,
                     std::vector<Edit>& text_edits) {
  Span samplers_span, channels_span;
  for (const auto& [key, span] : json_text::members(text, anim_span)) {
    if (key == "samplers") samplers_span = span;
    if (key == "channels") channels_span = span;
  }
  const std::vector<Span> sampler_spans = json_text::elements(text, samplers_span);
  const std::vector<Span> channel_spans = json_text::elements(text, channels_span);
  for (const auto& [s, json] : patch.replaced_samplers)
    text_edits.push_back({sampler_spans.at(s).begin,
                          sampler_spans.at(s).end - sampler_spans.at(s).begin, json.dump()});
  for (const auto& [c, json] : patch.replaced_channels)
    text_edits.push_back({channel_spans.at(c).begin,
                          channel_spans.at(c).end - channel_spans.at(c).begin, json.dump()});
  if (!patch.new_samplers.empty())
    text_edits.push_back(json_text::append_to_array(text, samplers_span, patch.new_samplers));
  if (!patch.new_channels.empty())
    text_edits.push_back(json_text::append_to_array(text, channels_span, patch.new_channels));
}

// Data and text edits for every take edit, in order.
void add_take_edits(const Document& doc, std::span<const TakeEdit> edits, NewData& data,
                    std::vector<Edit>& text_edits) {
  const std::string_view text = doc.json_text();
  const Span animations_span = top_member(doc, "animations").value_or(Span{});
  std::vector<Span> animation_spans;  // found when the first animation needs editing
  std::vector<char> animation_done(doc.animations.size(), 0);
  for (const TakeEdit& e : edits) {
    check_take_edit(doc, e, animation_done);
    const AnimationPatch patch = patch_take(doc, e, data);
    if (patch.empty()) continue;
    if (animation_spans.empty()) animation_spans = json_text::elements(text, animations_span);
    const Span anim_span = animation_spans.at(static_cast<std::size_t>(e.layout->animation));
    add_patch_edits(text, anim_span, patch, text_edits);
  }
}

// Throws unless the new animation fits the character (joints, frames, rate) and its name is
// free (or the others are to be replaced).
void check_new_animation(const Document& doc, const NewAnimation& added) {
  const std::string& file = doc.source_name;
  const core::Clip& clip = *added.clip;
  const int joints = static_cast<int>(added.joint_nodes->size());
  if (clip.joint_count != joints || static_cast<int>(added.animated.size()) != joints ||
      clip.locals.size() != static_cast<std::size_t>(joints) * clip.frame_count ||
      clip.frame_count < 1 || !(clip.fps > 0))
    throw InputError(
        file,
        "the clip for the new animation does not match the character (joints, frames or rate)");
  if (added.name.empty()) throw InputError(file, "the new animation needs a name");
  if (!added.replace_others)
    for (const Animation& a : doc.animations)
      if (a.name == added.name)
        throw InputError(file, "the file already has an animation '" + added.name + "'");
}

// Frame times of the new animation in seconds (f / fps as floats), checked strictly increasing.
std::vector<float> new_animation_times(const core::Clip& clip, const std::string& file) {
  std::vector<float> times(static_cast<std::size_t>(clip.frame_count));
  for (int f = 0; f < clip.frame_count; ++f)
    times[f] = static_cast<float>(static_cast<double>(f) / clip.fps);
  for (std::size_t f = 1; f < times.size(); ++f)
    if (!(times[f] > times[f - 1]))
      throw InputError(file, "the new animation's frame times are not increasing as floats");
  return times;
}

// True when joint `j`'s scale leaves `rest_scale` (the node's own) on some frame.
bool scale_leaves_rest(const core::Clip& clip, int j, const core::Vec3& rest_scale) {
  for (int f = 0; f < clip.frame_count; ++f)
    if (clip.at(f, j).scale != rest_scale) return true;
  return false;
}

// The new animation's JSON object; its accessors' bytes go into `data`.
Json build_new_animation(const Document& doc, const NewAnimation& added, NewData& data) {
  const std::string& file = doc.source_name;
  const std::vector<int>& nodes = *added.joint_nodes;
  const core::Clip& clip = *added.clip;
  const std::vector<float> times = new_animation_times(clip, file);
  int time_accessor = -1;
  Json samplers = Json::array(), channels = Json::array();
  for (int j = 0; j < static_cast<int>(nodes.size()); ++j) {
    if (!added.animated[j]) continue;
    const int node = nodes[j];
    const std::string joint_name = doc.nodes[node].display_name;
    if (doc.nodes[node].has_matrix)
      throw InputError(file, "joint '" + joint_name + "' (node " + std::to_string(node) +
                                 ") has a matrix; glTF cannot animate it");
    for (Path path : {Path::translation, Path::rotation, Path::scale}) {
      // Scale only when it moves away from the node's own.
      if (path == Path::scale && !scale_leaves_rest(clip, j, doc.nodes[node].rest.scale)) continue;
      if (time_accessor < 0)
        time_accessor = data.add(times, "SCALAR", clip.frame_count,
                                 std::make_pair(times.front(), times.back()));
      const std::vector<float> values = channel_values(clip, j, path, file, joint_name);
      const int output = data.add(values, path == Path::rotation ? "VEC4" : "VEC3",
                                  clip.frame_count, std::nullopt);
      Json sampler = Json::object();
      sampler["input"] = time_accessor;
      sampler["interpolation"] = "LINEAR";
      sampler["output"] = output;
      Json channel = Json::object();
      channel["sampler"] = static_cast<int>(samplers.size());
      channel["target"] = Json::object();
      channel["target"]["node"] = node;
      channel["target"]["path"] = std::string(path_name(path));
      samplers.push_back(std::move(sampler));
      channels.push_back(std::move(channel));
    }
  }
  if (samplers.empty()) throw InputError(file, "the new animation animates no joint");
  Json animation = Json::object();
  animation["name"] = added.name;
  animation["channels"] = std::move(channels);
  animation["samplers"] = std::move(samplers);
  return animation;
}

// Data and the text edit adding the new animation (appended, or replacing the others).
void add_new_animation_edit(const Document& doc, const NewAnimation& added, NewData& data,
                            std::vector<Edit>& text_edits) {
  check_new_animation(doc, added);
  const Json animation = build_new_animation(doc, added, data);
  const std::string_view text = doc.json_text();
  const auto animations_member = top_member(doc, "animations");
  if (!animations_member) {
    text_edits.push_back(json_text::add_member(text, Span{doc.top_begin, doc.top_end}, "animations",
                                               "[" + animation.dump() + "]"));
  } else if (added.replace_others) {
    text_edits.push_back({animations_member->begin,
                          animations_member->end - animations_member->begin,
                          "[" + animation.dump() + "]"});
  } else {
    text_edits.push_back(json_text::append_to_array(text, *animations_member, {animation.dump()}));
  }
}

// Text edits pointing the relative uris of the top-level array `kind` ("buffers", "images") of
// a .gltf or .glb in `in_dir` at the same files from `out_dir`. A buffer that would then lie
// outside `out_dir` (which the reader refuses, io/gltf/uri_file.hpp) is embedded as a data uri.
void rebase_uris_of(const Document& doc, const char* kind, const fs::path& in_dir,
                    const fs::path& out_dir, std::vector<Edit>& text_edits) {
  const std::string_view text = doc.json_text();
  const Json& list = array_member(doc.json, kind);
  const auto list_span = top_member(doc, kind);
  if (!list_span) return;
  const std::vector<Span> spans = json_text::elements(text, *list_span);
  for (std::size_t i = 0; i < list.size() && i < spans.size(); ++i) {
    if (!list[i].is_object() || !list[i].contains("uri") || !list[i]["uri"].is_string()) continue;
    const std::string uri = list[i]["uri"].get<std::string>();
    if (!is_relative_uri(uri)) continue;
    const fs::path target = (in_dir / percent_decode(uri)).lexically_normal();
    std::string moved = percent_encode_path(target.lexically_relative(out_dir).generic_string());
    if (std::string_view(kind) == "buffers" && moved.starts_with("..") && i < doc.buffers.size() &&
        doc.buffers[i].owner >= 0)
      moved = "data:application/octet-stream;base64," +
              base64_encode(doc.owned_buffers[static_cast<std::size_t>(doc.buffers[i].owner)]);
    const auto uri_span = json_text::member(text, spans[i], "uri");
    if (uri_span)
      text_edits.push_back({uri_span->begin, uri_span->end - uri_span->begin, Json(moved).dump()});
  }
}

// For a .gltf or .glb written to another folder than its input's: relative uris of buffers and
// images rewritten to point back at the input's files.
void rebase_relative_uris(const Document& doc, const fs::path& output_path,
                          std::vector<Edit>& text_edits) {
  std::error_code ec;
  const fs::path in_dir = fs::weakly_canonical(fs::absolute(doc.path, ec), ec).parent_path();
  const fs::path out_dir = fs::weakly_canonical(fs::absolute(output_path, ec), ec).parent_path();
  if (in_dir == out_dir) return;
  for (const char* kind : {"buffers", "images"})
    rebase_uris_of(doc, kind, in_dir, out_dir, text_edits);
}

// Text edit appending JSON `items` to the top-level array `key`, or adding that array.
void append_to_top_array(const Document& doc, const char* key,
                         const std::vector<std::string>& items, std::vector<Edit>& text_edits) {
  const std::string_view text = doc.json_text();
  const auto span = top_member(doc, key);
  if (span) {
    text_edits.push_back(json_text::append_to_array(text, *span, items));
  } else {
    std::string value = "[";
    for (std::size_t i = 0; i < items.size(); ++i) value += (i ? "," : "") + items[i];
    text_edits.push_back(
        json_text::add_member(text, Span{doc.top_begin, doc.top_end}, key, value + "]"));
  }
}

// Text edits declaring the new bufferViews, accessors and their buffer (buffer 0's byteLength
// grown, or a new embedded buffer). Returns the bytes to append to a GLB's BIN chunk (empty for
// a .gltf).
std::string add_new_data_edits(const Document& doc, const NewData& data, bool into_bin,
                               std::vector<Edit>& text_edits) {
  std::string bin_tail;
  if (data.bytes.empty()) return bin_tail;
  append_to_top_array(doc, "bufferViews", data.views, text_edits);
  append_to_top_array(doc, "accessors", data.accessors, text_edits);
  const std::size_t new_length = data.base + data.bytes.size();
  if (into_bin) {
    if (doc.buffers.empty()) {
      Json b = Json::object();
      b["byteLength"] = new_length;
      append_to_top_array(doc, "buffers", {b.dump()}, text_edits);
    } else {
      const std::string_view text = doc.json_text();
      const Span buffer0 = json_text::value_at(text, top_member(doc, "buffers")->begin + 1);
      const Span length = *json_text::member(text, buffer0, "byteLength");
      text_edits.push_back({length.begin, length.end - length.begin, std::to_string(new_length)});
    }
    if (doc.has_bin_chunk) bin_tail.assign(data.base - doc.bin_length, '\0');
    bin_tail += data.bytes;
  } else {
    Json b = Json::object();
    b["byteLength"] = data.bytes.size();
    b["uri"] = "data:application/octet-stream;base64," + base64_encode(data.bytes);
    append_to_top_array(doc, "buffers", {b.dump()}, text_edits);
  }
  return bin_tail;
}

// The GLB container around the patched JSON: header, JSON chunk (space-padded), BIN chunk
// (original bytes as a view, then `bin_tail`, zero-padded), then the file's other chunks.
Output glb_output(const Document& doc, std::string json_out, std::string bin_tail) {
  Output out;
  json_out.append(align4(json_out.size()) - json_out.size(), ' ');
  const std::size_t bin_data = (doc.has_bin_chunk ? doc.bin_length : 0) + bin_tail.size();
  const bool has_bin = doc.has_bin_chunk || !bin_tail.empty();
  const std::size_t bin_chunk = align4(bin_data);
  const std::size_t tail = doc.file_bytes.size() - doc.tail_offset;
  const std::size_t total = 12 + 8 + json_out.size() + (has_bin ? 8 + bin_chunk : 0) + tail;
  if (total > 0xFFFFFFFFull)
    throw InputError(doc.source_name, "the patched GLB would exceed 4 GiB");
  out.head.reserve(28 + json_out.size());
  out.head.append(doc.file_bytes, 0, 8);  // magic + version
  put_u32(out.head, static_cast<std::uint32_t>(total));
  put_u32(out.head, static_cast<std::uint32_t>(json_out.size()));
  put_u32(out.head, 0x4E4F534A);
  out.head += json_out;
  if (has_bin) {
    put_u32(out.head, static_cast<std::uint32_t>(bin_chunk));
    put_u32(out.head, 0x004E4942);
    if (doc.has_bin_chunk)
      out.middle = std::string_view(doc.file_bytes).substr(doc.bin_offset, doc.bin_length);
    out.tail = std::move(bin_tail);
    out.tail.append(bin_chunk - bin_data, '\0');
  }
  out.tail.append(doc.file_bytes, doc.tail_offset, tail);
  return out;
}

// The patched file: take edits, the added animation (if any), rebased uris, then the new data's
// declarations, in that order (the order fixes accessor and bufferView indices).
Output assemble(const Document& doc, std::span<const TakeEdit> edits, const fs::path& output_path,
                const NewAnimation* added = nullptr) {
  const bool into_bin = writes_into_bin(doc);
  NewData data = start_new_data(doc, into_bin);
  std::vector<Edit> text_edits;
  add_take_edits(doc, edits, data, text_edits);
  if (added) add_new_animation_edit(doc, *added, data, text_edits);
  rebase_relative_uris(doc, output_path, text_edits);
  if (text_edits.empty() && data.bytes.empty())
    return {{}, doc.file_bytes, {}};  // nothing changed: same bytes
  std::string bin_tail = add_new_data_edits(doc, data, into_bin, text_edits);
  std::string json_out = json_text::apply(doc.json_text(), std::move(text_edits));
  if (doc.container == Container::gltf) {
    if (doc.json_offset > 0) json_out.insert(0, doc.file_bytes, 0, doc.json_offset);  // keep a BOM
    Output out;
    out.head = std::move(json_out);
    return out;
  }
  return glb_output(doc, std::move(json_out), std::move(bin_tail));
}

// Writes the pieces as one file through io::write_file_atomic (temp file, then put in place;
// staged with the command's other outputs inside an io::OutputTransaction).
void write_atomic(const fs::path& path, std::initializer_list<std::string_view> parts) {
  const std::vector<std::string_view> pieces(parts);
  io::write_file_atomic(path, std::span<const std::string_view>(pieces));
}

}  // namespace

std::string write(const Document& doc, std::span<const TakeEdit> edits,
                  const fs::path& output_path) {
  const Output out = assemble(doc, edits, output_path);
  std::string bytes;
  bytes.reserve(out.head.size() + out.middle.size() + out.tail.size());
  bytes.append(out.head).append(out.middle).append(out.tail);
  return bytes;
}

void save(const fs::path& path, const Document& doc, std::span<const TakeEdit> edits) {
  const Output out = assemble(doc, edits, path);
  write_atomic(path, {out.head, out.middle, out.tail});
}

std::string write_new_animation(const Document& doc, const NewAnimation& animation,
                                const fs::path& output_path) {
  const Output out = assemble(doc, {}, output_path, &animation);
  std::string bytes;
  bytes.reserve(out.head.size() + out.middle.size() + out.tail.size());
  bytes.append(out.head).append(out.middle).append(out.tail);
  return bytes;
}

void save_new_animation(const fs::path& path, const Document& doc,
                        const std::vector<int>& joint_nodes, const core::Clip& clip,
                        std::span<const char> animated, const std::string& name,
                        bool replace_others) {
  const std::string ext = path.extension().string();
  const bool glb_path = ext == ".glb" || ext == ".GLB";
  if ((doc.container == Container::glb) != glb_path &&
      (ext == ".glb" || ext == ".gltf" || ext == ".GLB" || ext == ".GLTF"))
    throw InputError(path.string(), std::string("the character is a ") +
                                        (doc.container == Container::glb ? ".glb" : ".gltf") +
                                        "; write its new animation to the same container");
  const NewAnimation animation{name, &joint_nodes, &clip, animated, replace_others};
  const Output out = assemble(doc, {}, path, &animation);
  write_atomic(path, {out.head, out.middle, out.tail});
}

}  // namespace ikfix::io::gltf
