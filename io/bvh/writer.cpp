#include "io/bvh/writer.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string_view>
#include <vector>

#include "io/bvh/byte_buffer.hpp"
#include "io/bvh/euler.hpp"
#include "io/bvh/number_format.hpp"
#include "io/decimal.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/parallel_blocks.hpp"

namespace ikfix::io::bvh {
namespace {

constexpr int kMaxDecimals = io::kMaxShownDecimals;
// How far an edited value may stray on an axis the joint has no channel for (degrees for
// rotations; for translations, relative to 1 + |OFFSET|) before the write is refused.
constexpr double kUnrepresentableDeg = 1e-6;
constexpr double kUnrepresentableRel = 1e-6;
// Below this many frames per block a hand-over costs more than it saves.
constexpr int kMinFramesPerBlock = 64;
// Bytes a streaming write (see write_to) buffers before handing them on.
constexpr std::size_t kStreamBytes = std::size_t{128} << 10;
// How many frames ahead the encoder prefetches the edited transforms.
constexpr int kPrefetchFrames = 2;

// Most decimals each of `channels` shows over all frames. One sweep in file order (frame-major),
// so the text is read sequentially instead of one strided column at a time.
std::vector<int> column_decimals(const Document& doc, const std::vector<int>& channels) {
  std::vector<int> best(channels.size(), 0);
  if (doc.channel_decimals.size() == static_cast<std::size_t>(doc.channel_count)) {
    for (std::size_t s = 0; s < channels.size(); ++s) best[s] = doc.channel_decimals[channels[s]];
    return best;
  }
  for (int f = 0; f < doc.frame_count; ++f)
    for (std::size_t s = 0; s < channels.size(); ++s)
      if (best[s] < kMaxDecimals)
        best[s] = std::max(best[s], io::decimals_shown(doc.value_view(f, channels[s])));
  return best;
}

// What to compute for one edited joint.
struct JointPlan {
  int joint = 0;
  int rotation_count = 0;               // rotation channels the joint has (0..3)
  std::array<int, 3> axes{0, 1, 2};     // listed rotation axes first, then the missing ones
  std::array<int, 3> rotation_value{};  // channel index within a frame of each listed rotation
  std::array<int, 3> position_value{-1, -1, -1};  // channel index per axis, -1 when absent
  // Per listed rotation: whether an approximate angle prints as the exact one (its decimals).
  std::array<io::CertainRounding, 3> rotation_rounding{};
};

[[noreturn]] void refuse(const Document& doc, const std::string& cause) {
  throw InputError(doc.source_name, 0, "cannot write: " + cause);
}

std::string where(const Document& doc, int joint, int frame) {
  return "joint '" + doc.joints[joint].name + "' at frame index " + std::to_string(frame);
}

// Refuses the write unless the edited clip and the change flags match the document's joints and
// frames.
void check_write_inputs(const Document& doc, const core::Clip& edited,
                        std::span<const bool> changed, std::span<const char> changed_rotations) {
  const int joint_count = doc.joint_count();
  const int frame_count = doc.frame_count;
  if (changed.size() != static_cast<std::size_t>(joint_count))
    refuse(doc, std::to_string(changed.size()) + " change flags for " +
                    std::to_string(joint_count) + " joints");
  if (edited.joint_count != joint_count || edited.frame_count != frame_count ||
      edited.locals.size() != static_cast<std::size_t>(frame_count) * joint_count)
    refuse(doc, "edited clip has " + std::to_string(edited.joint_count) + " joints x " +
                    std::to_string(edited.frame_count) + " frames; the file has " +
                    std::to_string(joint_count) + " x " + std::to_string(frame_count));
  if (!changed_rotations.empty() &&
      changed_rotations.size() != static_cast<std::size_t>(frame_count) * joint_count)
    refuse(doc, std::to_string(changed_rotations.size()) + " rotation change flags for " +
                    std::to_string(frame_count) + " frames x " + std::to_string(joint_count) +
                    " joints");
}

// Whether the transform's ten numbers are all finite, in one test: x * 0 is a zero for a finite
// x and NaN for an infinite or NaN one, so the sum is NaN exactly when one of them is not finite.
inline bool all_finite(const core::Transform& t) {
  const double zeros[3] = {
      t.translation.x * 0.0 + t.translation.y * 0.0 + t.translation.z * 0.0,
      t.rotation.w * 0.0 + t.rotation.x * 0.0 + t.rotation.y * 0.0 + t.rotation.z * 0.0,
      t.scale.x * 0.0 + t.scale.y * 0.0 + t.scale.z * 0.0};
  return zeros[0] + zeros[1] + zeros[2] == 0.0;
}

// What to compute for the edited joints, and where their values go.
struct EditPlan {
  std::vector<JointPlan> joints;
  std::vector<int> slots;     // channel index within a frame of each replaceable value, ascending
  std::vector<int> decimals;  // per slot: decimals the value is printed with
  std::vector<int> slot_of;   // per channel of a frame: its slot, -1 when it keeps its text
};

// The plan of joint `j`; its channels are appended to `slots`.
JointPlan plan_joint(const Document& doc, int j, std::vector<int>& slots) {
  const Joint& joint = doc.joints[j];
  JointPlan plan;
  plan.joint = j;
  bool listed[3] = {false, false, false};
  for (std::size_t n = 0; n < joint.channels.size(); ++n) {
    const ChannelKind kind = joint.channels[n];
    const int value = joint.first_value + static_cast<int>(n);
    if (is_position(kind)) {
      plan.position_value[axis_of(kind)] = value;
    } else {
      plan.axes[plan.rotation_count] = axis_of(kind);
      plan.rotation_value[plan.rotation_count] = value;
      listed[axis_of(kind)] = true;
      ++plan.rotation_count;
    }
    slots.push_back(value);
  }
  int next = plan.rotation_count;
  for (int a = 0; a < 3; ++a)
    if (!listed[a]) plan.axes[next++] = a;
  return plan;
}

ChannelKind channel_kind_at(const Document& doc, int channel) {
  for (const Joint& joint : doc.joints) {
    const int n = channel - joint.first_value;
    if (n >= 0 && n < static_cast<int>(joint.channels.size())) return joint.channels[n];
  }
  return ChannelKind::Xposition;
}

// Most decimals any channel of `group` (1: rotations, 0: positions) shows; `all_decimals` (per
// channel of the file) is computed on first use.
int group_decimals(const Document& doc, int group, std::vector<int>& all_decimals) {
  if (all_decimals.empty()) {
    std::vector<int> every(doc.channel_count);
    for (int c = 0; c < doc.channel_count; ++c) every[c] = c;
    all_decimals = column_decimals(doc, every);
  }
  int most = 0;
  for (const Joint& joint : doc.joints)
    for (std::size_t n = 0; n < joint.channels.size(); ++n)
      if ((is_rotation(joint.channels[n]) ? 1 : 0) == group)
        most = std::max(most, all_decimals[joint.first_value + static_cast<int>(n)]);
  return most;
}

// Decimals per replaceable channel; channels that never show a decimal point borrow the most
// any channel of the same kind (rotation / position) shows.
std::vector<int> slot_decimals(const Document& doc, const std::vector<int>& slots) {
  std::vector<int> decimals = column_decimals(doc, slots);
  int kind_fallback[2] = {-1, -1};
  std::vector<int> all_decimals;  // per channel of the file, computed only when a slot needs it
  for (std::size_t s = 0; s < slots.size(); ++s) {
    if (decimals[s] > 0) continue;
    const int group = is_rotation(channel_kind_at(doc, slots[s])) ? 1 : 0;
    if (kind_fallback[group] < 0) kind_fallback[group] = group_decimals(doc, group, all_decimals);
    decimals[s] = kind_fallback[group];
  }
  return decimals;
}

// The plan of the flagged joints. Joints come in file order and channel indices grow with it,
// so `slots` ascends and the output cursor only moves forward. No joint flagged: no plan.
EditPlan plan_edits(const Document& doc, std::span<const bool> changed) {
  EditPlan plan;
  for (int j = 0; j < doc.joint_count(); ++j)
    if (changed[j]) plan.joints.push_back(plan_joint(doc, j, plan.slots));
  if (plan.joints.empty()) return plan;
  plan.decimals = slot_decimals(doc, plan.slots);
  plan.slot_of.assign(doc.channel_count, -1);
  for (std::size_t s = 0; s < plan.slots.size(); ++s)
    plan.slot_of[plan.slots[s]] = static_cast<int>(s);
  for (JointPlan& joint : plan.joints)
    for (int n = 0; n < joint.rotation_count; ++n)
      joint.rotation_rounding[n] = io::CertainRounding(
          kApproxEulerErrorDeg, plan.decimals[plan.slot_of[joint.rotation_value[n]]]);
  return plan;
}

// Frames cut into `count` blocks encoded independently (each frame compares with its own row of
// the file). Block k covers the text from the start of its first frame's values to the start of
// the next block's, so the blocks joined in order are the serial bytes.
struct BlockLayout {
  const Document* doc = nullptr;
  int count = 1;

  int frame(int k) const {
    return static_cast<int>(static_cast<long long>(doc->frame_count) * k / count);
  }
  std::size_t offset(int k) const {
    if (k == 0) return 0;
    if (k == count) return doc->text.size();
    return doc->frame_text[static_cast<std::size_t>(frame(k))];
  }
  std::size_t largest() const {
    std::size_t largest_block = 0;
    for (int k = 0; k < count; ++k)
      largest_block = std::max(largest_block, offset(k + 1) - offset(k));
    return largest_block;
  }
};

// Passes encoded text on in block order, to `sink` (or appended to `*whole` when `sink` is null).
//
// One block (no runner of two threads): the text goes out as it is encoded, kStreamBytes at a
// time, through a small buffer that stays in the caches.
// Several blocks: each is encoded into a buffer of its own, passed on as soon as it and every
// block before it are done - so the output is written while the other threads still encode,
// not all at the end - and the buffer is then used again for a later block: a few block-sized
// buffers whose pages are touched once instead of fresh, page-faulted memory for the whole
// output. The spare buffers are sized in the constructor, on the calling thread (its heap is
// set up for large blocks).
class OrderedOutput {
 public:
  OrderedOutput(const Document& doc, const BlockLayout& layout, int threads,
                const io::ByteSink* sink, std::string* whole)
      : sink_(sink),
        whole_(whole),
        blocks_(layout.count),
        buffer_bytes_(single() ? 2 * kStreamBytes : layout.largest() + layout.largest() / 8 + 64),
        done_(static_cast<std::size_t>(blocks_)),
        is_done_(static_cast<std::size_t>(blocks_), 0),
        spare_(static_cast<std::size_t>(single() ? 1 : threads)) {
    for (ByteBuffer& buffer : spare_) buffer.reserve(buffer_bytes_);
    if (whole_) whole_->reserve(doc.text.size() + doc.text.size() / 8 + 64);
  }

  bool single() const { return blocks_ == 1; }
  std::size_t buffer_bytes() const { return buffer_bytes_; }

  void emit(std::string_view bytes) {
    if (sink_)
      (*sink_)(bytes);
    else
      whole_->append(bytes);
  }

  // A spare buffer (empty, with room), or a new one when none is left.
  ByteBuffer take_buffer() {
    ByteBuffer buffer;
    const std::lock_guard lock(order_mutex_);
    if (!spare_.empty()) {
      buffer = std::move(spare_.back());
      spare_.pop_back();
    }
    return buffer;
  }

  // Block k is encoded: passes it and every waiting block after it on, in order.
  void hand_over(int k, ByteBuffer&& text_of_block) {
    const std::lock_guard lock(order_mutex_);
    done_[k] = std::move(text_of_block);
    is_done_[k] = 1;
    for (; next_out_ < blocks_ && is_done_[next_out_]; ++next_out_) {
      ByteBuffer& ready = done_[next_out_];
      emit(ready.view());
      ready.clear();
      spare_.push_back(std::move(ready));
    }
  }

 private:
  const io::ByteSink* sink_;
  std::string* whole_;
  int blocks_;
  std::size_t buffer_bytes_;
  std::mutex order_mutex_;
  int next_out_ = 0;              // lowest block not yet passed on
  std::vector<ByteBuffer> done_;  // encoded, waiting its turn
  std::vector<char> is_done_;
  std::vector<ByteBuffer> spare_;
};

// The state of one block's encoding.
struct BlockScratch {
  ByteBuffer out;
  std::vector<double> row;  // per slot: the value computed this frame
  std::vector<char> kept;   // per slot, 1: the slot keeps its text this frame
  // Per channel up to the last slot: where the file's value lies in the frame being encoded.
  std::vector<TextSpan> spans;
  char number[kNumberBuffer];
  std::size_t cursor = 0;  // doc.text up to here is in `out` (or passed on)
};

// Encodes blocks of frames: edited values in place of the file's, every other byte as it was.
class BlockEncoder {
 public:
  BlockEncoder(const Document& doc, const core::Clip& edited,
               std::span<const char> changed_rotations, const EditPlan& plan,
               const BlockLayout& layout, OrderedOutput& output)
      : doc_(doc),
        edited_(edited),
        changed_rotations_(changed_rotations),
        plan_(plan),
        layout_(layout),
        output_(output),
        text_(doc.text.data()),
        values_(holds_every_slot(doc, plan) ? doc.values.data() : nullptr) {}

  void encode_block(int k) {
    BlockScratch b;
    b.out = output_.take_buffer();
    b.row.resize(plan_.slots.size());
    b.kept.assign(plan_.slots.size(), 0);
    b.spans.resize(static_cast<std::size_t>(plan_.slots.back()) + 1);
    b.out.reserve(output_.buffer_bytes());
    b.cursor = layout_.offset(k);
    for (int f = layout_.frame(k); f < layout_.frame(k + 1); ++f) {
      prefetch(f);
      doc_.frame_spans(f, b.spans);
      for (const JointPlan& joint : plan_.joints) fill_row(joint, f, b);
      for (std::size_t s = 0; s < plan_.slots.size(); ++s)
        if (!b.kept[s]) put_value(f, s, b);
      if (output_.single() && b.out.size() >= kStreamBytes) {
        output_.emit(b.out.view());
        b.out.clear();
      }
    }
    pass_text(b.out, b.cursor, layout_.offset(k + 1));
    if (output_.single())
      output_.emit(b.out.view());
    else
      output_.hand_over(k, std::move(b.out));
  }

 private:
  // The edited joints are a few 80-byte transforms per frame, strided through a clip far larger
  // than the caches: ask for a later frame's now so they arrive before they are read.
  void prefetch(int f) const {
    if (f + kPrefetchFrames >= doc_.frame_count) return;
    for (const JointPlan& joint : plan_.joints) {
      const char* ahead =
          reinterpret_cast<const char*>(&edited_.at(f + kPrefetchFrames, joint.joint));
      __builtin_prefetch(ahead);
      __builtin_prefetch(ahead + sizeof(core::Transform) - 1);
    }
  }

  // Refuses a transform BVH cannot store: non-finite, or scaled.
  void check_transform(const JointPlan& joint, const core::Transform& t, int f) const {
    if (!all_finite(t))
      refuse(doc_, where(doc_, joint.joint, f) + ": edited transform is not finite");
    if (std::abs(t.scale.x - 1.0) > kUnrepresentableRel ||
        std::abs(t.scale.y - 1.0) > kUnrepresentableRel ||
        std::abs(t.scale.z - 1.0) > kUnrepresentableRel)
      refuse(doc_, where(doc_, joint.joint, f) + ": BVH cannot store a scale other than 1");
  }

  // Position channels get translation - OFFSET (the file's convention: the translation itself
  // when its channels hold the whole translation); an axis without a channel must not move.
  void put_translation(const JointPlan& joint, const core::Transform& t, int f,
                       BlockScratch& b) const {
    const Joint& file_joint = doc_.joints[joint.joint];
    const bool channels_only = doc_.positions == PositionConvention::channels_only;
    for (int a = 0; a < 3; ++a) {
      const double delta = t.translation[a] - file_joint.offset[a];
      if (joint.position_value[a] >= 0) {
        b.row[plan_.slot_of[joint.position_value[a]]] = channels_only ? t.translation[a] : delta;
      } else if (std::abs(delta) > kUnrepresentableRel * (1.0 + std::abs(file_joint.offset[a]))) {
        refuse(doc_, where(doc_, joint.joint, f) + ": translation moved along " +
                         std::string(1, static_cast<char>('X' + a)) + " but the joint has no " +
                         std::string(1, static_cast<char>('X' + a)) + "position channel");
      }
    }
  }

  // Rotation channels get Euler angles (degrees) in the joint's channel order, continuous with
  // the file's own angles; a rotation about an axis without a channel is refused.
  void put_rotation(const JointPlan& joint, const core::Transform& t, int f,
                    BlockScratch& b) const {
    const double norm = glm::length(t.rotation);
    if (!(norm > 1e-9)) refuse(doc_, where(doc_, joint.joint, f) + ": edited rotation is zero");
    std::array<double, 3> reference{0.0, 0.0, 0.0};
    for (int n = 0; n < joint.rotation_count; ++n)
      reference[n] = original(f, joint.rotation_value[n], b);
    // Edited rotations are mostly unit to the last bit (norm exactly 1), and q / 1 is q.
    const core::Quat q = norm == 1.0 ? t.rotation : t.rotation / norm;
    std::array<double, 3> angles;
    if (!certain_approx_angles(joint, q, reference, angles))
      angles = euler_from_quat_deg(q, joint.axes, reference);
    for (int n = 0; n < 3; ++n) {
      if (n < joint.rotation_count) {
        b.row[plan_.slot_of[joint.rotation_value[n]]] = angles[n];
      } else if (std::abs(angles[n]) > kUnrepresentableDeg) {
        refuse(doc_, where(doc_, joint.joint, f) + ": edited rotation needs " +
                         std::string(1, static_cast<char>('X' + joint.axes[n])) +
                         "rotation, which the joint's CHANNELS do not have");
      }
    }
  }

  // approx_euler_from_quat_deg's angles, when they print as euler_from_quat_deg's would in each
  // of the joint's three rotation channels (the rounding to the slot's decimals is certain
  // within kApproxEulerErrorDeg): put_value then writes the same text from either. The exact
  // angles' libm calls (three atan2 and a hypot) are left to the values near a rounding tie and
  // the close calls.
  bool certain_approx_angles(const JointPlan& joint, const core::Quat& q,
                             const std::array<double, 3>& reference,
                             std::array<double, 3>& angles) const {
    if (joint.rotation_count != 3 || !approx_euler_from_quat_deg(q, joint.axes, reference, angles))
      return false;
    return joint.rotation_rounding[0].certain(angles[0]) &&
           joint.rotation_rounding[1].certain(angles[1]) &&
           joint.rotation_rounding[2].certain(angles[2]);
  }

  // The joint's values at frame f into the row. An untouched rotation (the reader's own, bit
  // for bit) keeps its channels' text.
  void fill_row(const JointPlan& joint, int f, BlockScratch& b) const {
    const core::Transform& t = edited_.at(f, joint.joint);
    check_transform(joint, t, f);
    put_translation(joint, t, f, b);
    const bool untouched =
        joint.rotation_count > 0 && !changed_rotations_.empty() &&
        !changed_rotations_[static_cast<std::size_t>(f) * doc_.joint_count() + joint.joint];
    for (int n = 0; n < joint.rotation_count; ++n)
      b.kept[plan_.slot_of[joint.rotation_value[n]]] = untouched ? 1 : 0;
    if (!untouched) put_rotation(joint, t, f, b);
  }

  // Slot s's value at frame f, unless it prints as the number the file already holds (then the
  // original text stays). Most values take the fast path: the printed number is known from its
  // rounded units (what read_double would give for the text), so only values that differ are
  // printed. An identical text always reads back as the same number, so one compare covers both.
  void put_value(int f, std::size_t s, BlockScratch& b) {
    const double v = b.row[s];
    if (!std::isfinite(v))
      refuse(doc_, "value at frame " + std::to_string(f) + ", channel " +
                       std::to_string(plan_.slots[s]) + " is not finite");
    const int channel = plan_.slots[s];
    const int decimals = plan_.decimals[s];
    std::uint64_t units = 0;
    if (io::fixed_units(v, decimals, units))
      put_units(v, decimals, units, f, channel, b);
    else
      put_formatted(v, decimals, f, channel, b);
  }

  // Fast path: printed straight into the output, after the text since the last replaced value.
  void put_units(double v, int decimals, std::uint64_t units, int f, int channel, BlockScratch& b) {
    if (io::fixed_units_value(v, decimals, units) == original(f, channel, b)) return;
    const TextSpan span = b.spans[static_cast<std::size_t>(channel)];
    if (output_.single() && span.offset - b.cursor >= kStreamBytes) {
      pass_text(b.out, b.cursor, span.offset);
      b.cursor = span.offset;
    }
    const std::size_t gap = span.offset - b.cursor;
    char* at = b.out.room(gap + io::kFixedUnitsRoom);
    std::memcpy(at, text_ + b.cursor, gap);
    const char* end = io::write_fixed_units(at + gap, units == 0 ? 0.0 : v, decimals, units);
    b.out.commit(static_cast<std::size_t>(end - at));
    b.cursor = static_cast<std::size_t>(span.offset) + span.length;
  }

  // Slow path: printed into a buffer, compared with the file's text and its number.
  void put_formatted(double v, int decimals, int f, int channel, BlockScratch& b) {
    const TextSpan span = b.spans[static_cast<std::size_t>(channel)];
    const std::size_t n = format_fixed(v, decimals, b.number);
    if (n == 0) refuse(doc_, "value " + std::to_string(v) + " is too long to print");
    if (std::string_view(b.number, n) == std::string_view(text_ + span.offset, span.length)) return;
    double reread = 0.0;
    io::read_double(b.number, b.number + n, reread);
    if (reread == original(f, channel, b)) return;
    pass_text(b.out, b.cursor, span.offset);
    b.out.append(b.number, n);
    b.cursor = static_cast<std::size_t>(span.offset) + span.length;
  }

  // The file's value of `channel` at frame f (the frame being encoded, whose spans `b` holds):
  // see Document::values.
  double original(int f, int channel, const BlockScratch& b) const {
    return values_ ? values_[static_cast<std::size_t>(f) * doc_.channel_count + channel]
                   : read_value_text(doc_.view(b.spans[static_cast<std::size_t>(channel)]));
  }

  // Whether Document::values holds the numbers of every channel the plan may replace.
  static bool holds_every_slot(const Document& doc, const EditPlan& plan) {
    return std::all_of(plan.slots.begin(), plan.slots.end(),
                       [&](int channel) { return doc.holds_values(channel); });
  }

  // Appends doc.text[from, to) to `out`; on one block, a long stretch of kept text (frames that
  // keep every value) is passed on as it lies in doc.text instead of being copied through `out`.
  void pass_text(ByteBuffer& out, std::size_t from, std::size_t to) {
    if (output_.single() && to - from >= kStreamBytes) {
      output_.emit(out.view());
      out.clear();
      output_.emit(std::string_view(text_ + from, to - from));
    } else {
      out.append(text_ + from, to - from);
    }
  }

  const Document& doc_;
  const core::Clip& edited_;
  std::span<const char> changed_rotations_;
  const EditPlan& plan_;
  const BlockLayout& layout_;
  OrderedOutput& output_;
  const char* text_;
  // Document::values when it holds every slot's numbers (see original()), else null.
  const double* values_;
};

// Hands the output text to `sink` in order, as it is encoded (`sink` null: appends it to
// `*whole`). Returns false, passing nothing on, when no joint is flagged: the text is doc.text.
bool write_to(const Document& doc, const core::Clip& edited, std::span<const bool> changed,
              std::span<const char> changed_rotations, const core::ParallelRunner* runner,
              const io::ByteSink* sink, std::string* whole) {
  check_write_inputs(doc, edited, changed, changed_rotations);
  const EditPlan plan = plan_edits(doc, changed);
  if (plan.joints.empty()) return false;
  const BlockLayout layout{&doc, io::block_count(runner, doc.frame_count, kMinFramesPerBlock)};
  OrderedOutput output(doc, layout, layout.count == 1 ? 1 : runner->threads(), sink, whole);
  BlockEncoder encoder(doc, edited, changed_rotations, plan, layout, output);
  io::for_each_block(runner, layout.count, [&](int k) { encoder.encode_block(k); });
  return true;
}

}  // namespace

std::string write(const Document& doc, const core::Clip& edited, std::span<const bool> changed,
                  const core::ParallelRunner* runner, std::span<const char> changed_rotations) {
  std::string out;
  if (!write_to(doc, edited, changed, changed_rotations, runner, nullptr, &out))
    return std::string(doc.text);
  return out;
}

void save(const std::filesystem::path& path, const Document& doc, const core::Clip& edited,
          std::span<const bool> changed, const core::ParallelRunner* runner,
          std::span<const char> changed_rotations) {
  // The text goes to the file as it is encoded (see write_to): never the whole output in memory.
  io::write_file_atomic(path, [&](const io::ByteSink& emit) {
    if (!write_to(doc, edited, changed, changed_rotations, runner, &emit, nullptr)) emit(doc.text);
  });
}

}  // namespace ikfix::io::bvh
