#include "io/assimp/scene_wire.hpp"

#include <cstring>
#include <type_traits>
#include <vector>

namespace ikfix::io::assimp::wire {
namespace {

constexpr std::uint32_t kRequestMagic = 0x52414b49;  // "IKAR"
constexpr std::uint32_t kResultMagic = 0x41414b49;   // "IKAA"
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kFlushBytes = 64 * 1024;

class Writer {
 public:
  explicit Writer(std::function<void(std::string_view)> flush) : flush_(std::move(flush)) {}

  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    append(&value, sizeof value);
  }
  void put_count(std::size_t n) { put(static_cast<std::uint64_t>(n)); }
  void put_string(std::string_view text) {
    put_count(text.size());
    append(text.data(), text.size());
  }
  void finish() {
    if (!buffer_.empty()) flush_(buffer_);
    buffer_.clear();
  }

 private:
  void append(const void* data, std::size_t n) {
    buffer_.append(static_cast<const char*>(data), n);
    if (buffer_.size() >= kFlushBytes) finish();
  }
  std::function<void(std::string_view)> flush_;
  std::string buffer_;
};

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T), "a number");
    T value;
    std::memcpy(&value, data_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  // A count of elements that take at least `min_bytes` each: no more than the bytes left hold.
  std::size_t get_count(std::size_t min_bytes, const char* what) {
    const auto n = get<std::uint64_t>();
    if (n > (data_.size() - at_) / min_bytes) fail(std::to_string(n) + " " + what);
    return static_cast<std::size_t>(n);
  }
  std::string get_string() {
    const std::size_t n = get_count(1, "bytes of text");
    std::string text(data_.substr(at_, n));
    at_ += n;
    return text;
  }
  void expect_end() const {
    if (at_ != data_.size())
      throw WireError(std::to_string(data_.size() - at_) + " bytes after the end (byte " +
                      std::to_string(at_) + ")");
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw WireError(what + " at byte " + std::to_string(at_) + " of " +
                    std::to_string(data_.size()));
  }

 private:
  void need(std::size_t n, const char* what) const {
    if (data_.size() - at_ < n) fail(std::string("truncated before ") + what);
  }
  std::string_view data_;
  std::size_t at_ = 0;
};

void put_vec(Writer& w, const Vec3r& v) { w.put(v.x), w.put(v.y), w.put(v.z); }
Vec3r get_vec(Reader& r) {
  Vec3r v;
  v.x = r.get<Real>(), v.y = r.get<Real>(), v.z = r.get<Real>();
  return v;
}
void put_quat(Writer& w, const QuatR& q) { w.put(q.w), w.put(q.x), w.put(q.y), w.put(q.z); }
QuatR get_quat(Reader& r) {
  QuatR q;
  q.w = r.get<Real>(), q.x = r.get<Real>(), q.y = r.get<Real>(), q.z = r.get<Real>();
  return q;
}

template <typename T, typename PutOne>
void put_list(Writer& w, const std::vector<T>& list, PutOne put_one) {
  w.put_count(list.size());
  for (const T& item : list) put_one(item);
}
template <typename T, typename GetOne>
void get_list(Reader& r, std::size_t min_bytes, const char* what, std::vector<T>& list,
              GetOne get_one) {
  const std::size_t n = r.get_count(min_bytes, what);
  list.clear();
  list.reserve(n);
  for (std::size_t i = 0; i < n; ++i) list.push_back(get_one());
}

void put_node(Writer& w, const Node& node) {
  w.put_string(node.name);
  for (Real m : node.matrix) w.put(m);
  put_vec(w, node.scale), put_vec(w, node.position), put_quat(w, node.rotation);
  put_list(w, node.meshes, [&](std::uint32_t m) { w.put(m); });
  put_list(w, node.children, [&](std::uint32_t c) { w.put(c); });
}
Node get_node(Reader& r) {
  Node node;
  node.name = r.get_string();
  for (Real& m : node.matrix) m = r.get<Real>();
  node.scale = get_vec(r), node.position = get_vec(r), node.rotation = get_quat(r);
  get_list(r, 4, "mesh indices", node.meshes, [&] { return r.get<std::uint32_t>(); });
  get_list(r, 4, "children", node.children, [&] { return r.get<std::uint32_t>(); });
  return node;
}

void put_mesh(Writer& w, const Mesh& mesh) {
  w.put_string(mesh.name);
  put_list(w, mesh.vertices, [&](const Vec3r& v) { put_vec(w, v); });
  put_list(w, mesh.normals, [&](const Vec3r& v) { put_vec(w, v); });
  put_list(w, mesh.triangles,
           [&](const std::array<std::uint32_t, 3>& t) { w.put(t[0]), w.put(t[1]), w.put(t[2]); });
  put_list(w, mesh.bones, [&](const std::string& b) { w.put_string(b); });
}
Mesh get_mesh(Reader& r) {
  Mesh mesh;
  mesh.name = r.get_string();
  get_list(r, 12, "vertices", mesh.vertices, [&] { return get_vec(r); });
  get_list(r, 12, "normals", mesh.normals, [&] { return get_vec(r); });
  get_list(r, 12, "triangles", mesh.triangles, [&] {
    std::array<std::uint32_t, 3> t{};
    for (std::uint32_t& corner : t) corner = r.get<std::uint32_t>();
    return t;
  });
  get_list(r, 8, "bones", mesh.bones, [&] { return r.get_string(); });
  return mesh;
}

template <typename Key>
void put_keys(Writer& w, const std::vector<Key>& keys) {
  put_list(w, keys, [&](const Key& k) {
    w.put(k.time);
    if constexpr (std::is_same_v<Key, QuatKey>)
      put_quat(w, k.value);
    else
      put_vec(w, k.value);
  });
}
template <typename Key>
void get_keys(Reader& r, std::vector<Key>& keys) {
  constexpr bool kQuat = std::is_same_v<Key, QuatKey>;
  get_list(r, kQuat ? 24 : 20, "keys", keys, [&] {
    Key k;
    k.time = r.get<double>();
    if constexpr (kQuat)
      k.value = get_quat(r);
    else
      k.value = get_vec(r);
    return k;
  });
}

void put_animation(Writer& w, const Animation& anim) {
  w.put_string(anim.name);
  w.put(anim.duration), w.put(anim.ticks_per_second);
  put_list(w, anim.channels, [&](const NodeChannel& ch) {
    w.put_string(ch.node);
    put_keys(w, ch.positions), put_keys(w, ch.rotations), put_keys(w, ch.scalings);
  });
}
Animation get_animation(Reader& r) {
  Animation anim;
  anim.name = r.get_string();
  anim.duration = r.get<double>(), anim.ticks_per_second = r.get<double>();
  get_list(r, 32, "channels", anim.channels, [&] {
    NodeChannel ch;
    ch.node = r.get_string();
    get_keys(r, ch.positions), get_keys(r, ch.rotations), get_keys(r, ch.scalings);
    return ch;
  });
  return anim;
}

// The invariants the module's depth-first copy gives and the readers rely on.
void check_scene(const Scene& scene, const Reader& r) {
  std::vector<bool> is_child(scene.nodes.size(), false);
  for (std::size_t n = 0; n < scene.nodes.size(); ++n) {
    for (std::uint32_t c : scene.nodes[n].children) {
      if (c <= n || c >= scene.nodes.size() || is_child[c])
        r.fail("node " + std::to_string(n) + " has a bad child " + std::to_string(c));
      is_child[c] = true;
    }
    for (std::uint32_t m : scene.nodes[n].meshes)
      if (m >= scene.meshes.size())
        r.fail("node " + std::to_string(n) + " names mesh " + std::to_string(m));
  }
  for (std::size_t n = 1; n < scene.nodes.size(); ++n)
    if (!is_child[n]) r.fail("node " + std::to_string(n) + " has no parent");
  for (std::size_t m = 0; m < scene.meshes.size(); ++m) {
    const Mesh& mesh = scene.meshes[m];
    if (!mesh.normals.empty() && mesh.normals.size() != mesh.vertices.size())
      r.fail("mesh " + std::to_string(m) + " has a normal count unlike its vertex count");
    for (const auto& tri : mesh.triangles)
      for (std::uint32_t corner : tri)
        if (corner >= mesh.vertices.size())
          r.fail("mesh " + std::to_string(m) + " has a corner past its vertices");
  }
}

}  // namespace

std::string encode_request(const ImportRequest& request, std::uint64_t memory_limit_bytes) {
  std::string out;
  Writer w([&](std::string_view piece) { out.append(piece); });
  w.put(kRequestMagic), w.put(kVersion);
  w.put(memory_limit_bytes);
  w.put(static_cast<std::uint8_t>(request.triangulate));
  w.put(static_cast<std::uint8_t>(request.no_skeleton_meshes));
  w.put_string(request.file);
  w.put_string(request.format_hint);
  w.put(static_cast<std::uint8_t>(request.bytes != nullptr));
  if (request.bytes) w.put_string(*request.bytes);
  w.finish();
  return out;
}

void decode_request(std::string_view data, ChildRequest& out) {
  Reader r(data);
  if (r.get<std::uint32_t>() != kRequestMagic || r.get<std::uint32_t>() != kVersion)
    r.fail("not an import request of this version");
  out.memory_limit_bytes = r.get<std::uint64_t>();
  out.request.triangulate = r.get<std::uint8_t>() != 0;
  out.request.no_skeleton_meshes = r.get<std::uint8_t>() != 0;
  out.request.file = r.get_string();
  out.request.format_hint = r.get_string();
  const bool from_memory = r.get<std::uint8_t>() != 0;
  out.bytes = from_memory ? r.get_string() : std::string();
  out.request.bytes = from_memory ? &out.bytes : nullptr;
  r.expect_end();
}

void encode_result(Status status, const std::string& message, const Scene& scene,
                   const std::function<void(std::string_view)>& flush) {
  Writer w(flush);
  w.put(kResultMagic), w.put(kVersion), w.put(static_cast<std::uint8_t>(status));
  if (status != Status::imported) {
    w.put_string(message);
  } else {
    put_list(w, scene.nodes, [&](const Node& n) { put_node(w, n); });
    put_list(w, scene.meshes, [&](const Mesh& m) { put_mesh(w, m); });
    put_list(w, scene.animations, [&](const Animation& a) { put_animation(w, a); });
  }
  w.finish();
}

Result decode_result(std::string_view data, Scene& scene) {
  scene = Scene{};
  Reader r(data);
  if (r.get<std::uint32_t>() != kResultMagic || r.get<std::uint32_t>() != kVersion)
    r.fail("not an import result of this version");
  Result result;
  const auto status = r.get<std::uint8_t>();
  if (status > static_cast<std::uint8_t>(Status::out_of_memory))
    r.fail("unknown status " + std::to_string(status));
  result.status = static_cast<Status>(status);
  if (result.status != Status::imported) {
    result.message = r.get_string();
    r.expect_end();
    return result;
  }
  // Smallest encodings: a node 120 bytes, a mesh 40, an animation 32.
  get_list(r, 120, "nodes", scene.nodes, [&] { return get_node(r); });
  get_list(r, 40, "meshes", scene.meshes, [&] { return get_mesh(r); });
  get_list(r, 32, "animations", scene.animations, [&] { return get_animation(r); });
  r.expect_end();
  check_scene(scene, r);
  return result;
}

}  // namespace ikfix::io::assimp::wire
