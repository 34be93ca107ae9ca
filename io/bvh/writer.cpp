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
};

[[noreturn]] void refuse(const Document& doc, const std::string& cause) {
  throw InputError(doc.source_name, 0, "cannot write: " + cause);
}

std::string where(const Document& doc, int joint, int frame) {
  return "joint '" + doc.joints[joint].name + "' at frame index " + std::to_string(frame);
}

// Hands the output text to `sink` in order, as it is encoded (`sink` null: appends it to
// `*whole`). Returns false, passing nothing on, when no joint is flagged: the text is doc.text.
bool write_to(const Document& doc, const core::Clip& edited, std::span<const bool> changed,
              std::span<const char> changed_rotations, const core::ParallelRunner* runner,
              const io::ByteSink* sink, std::string* whole) {
  const int joint_count = doc.joint_count();
  const int frame_count = doc.frame_count;
  const int channels = doc.channel_count;
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

  // Plans for the edited joints, and the channels whose text may change. Joints come in file
  // order and channel indices grow with it, so `slots` ascends and the output cursor only moves
  // forward.
  std::vector<JointPlan> plans;
  std::vector<int> slots;  // channel index within a frame of each replaceable value
  for (int j = 0; j < joint_count; ++j) {
    if (!changed[j]) continue;
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
    plans.push_back(plan);
  }
  if (plans.empty()) return false;

  // Decimals per replaceable channel; channels that never show a decimal point borrow the most
  // any channel of the same kind (rotation / position) shows.
  std::vector<int> decimals(slots.size());
  int kind_fallback[2] = {-1, -1};
  auto channel_kind_at = [&](int channel) {
    for (const Joint& joint : doc.joints) {
      const int n = channel - joint.first_value;
      if (n >= 0 && n < static_cast<int>(joint.channels.size())) return joint.channels[n];
    }
    return ChannelKind::Xposition;
  };
  const std::vector<int> slot_decimals = column_decimals(doc, slots);
  std::vector<int> all_decimals;  // per channel of the file, computed only when a slot needs it
  for (std::size_t s = 0; s < slots.size(); ++s) {
    decimals[s] = slot_decimals[s];
    if (decimals[s] > 0) continue;
    const int group = is_rotation(channel_kind_at(slots[s])) ? 1 : 0;
    if (kind_fallback[group] < 0) {
      if (all_decimals.empty()) {
        std::vector<int> every(channels);
        for (int c = 0; c < channels; ++c) every[c] = c;
        all_decimals = column_decimals(doc, every);
      }
      kind_fallback[group] = 0;
      for (const Joint& joint : doc.joints)
        for (std::size_t n = 0; n < joint.channels.size(); ++n)
          if ((is_rotation(joint.channels[n]) ? 1 : 0) == group)
            kind_fallback[group] = std::max(kind_fallback[group],
                                            all_decimals[joint.first_value + static_cast<int>(n)]);
    }
    decimals[s] = kind_fallback[group];
  }

  // Slot of each replaceable channel, to place computed values.
  std::vector<int> slot_of(channels, -1);
  for (std::size_t s = 0; s < slots.size(); ++s) slot_of[slots[s]] = static_cast<int>(s);

  // Frames are encoded independently (each compares with its own row of the file), so blocks
  // of frames can go to separate buffers, passed on in order. Block k covers the text from the
  // start of its first frame's values to the start of the next block's: the bytes are the
  // serial ones.
  const int blocks = io::block_count(runner, frame_count, kMinFramesPerBlock);
  auto block_frame = [&](int k) {
    return static_cast<int>(static_cast<long long>(frame_count) * k / blocks);
  };
  auto block_offset = [&](int k) -> std::size_t {
    if (k == 0) return 0;
    if (k == blocks) return doc.text.size();
    return doc.value_text[static_cast<std::size_t>(block_frame(k)) * channels].offset;
  };
  std::size_t largest_block = 0;
  for (int k = 0; k < blocks; ++k)
    largest_block = std::max(largest_block, block_offset(k + 1) - block_offset(k));
  auto emit = [&](std::string_view bytes) {
    if (sink)
      (*sink)(bytes);
    else
      whole->append(bytes);
  };

  // One block (no runner of two threads): the text goes out as it is encoded, kStreamBytes at a
  // time, through a small buffer that stays in the caches.
  // Several blocks: each is encoded into a buffer of its own, passed on as soon as it and every
  // block before it are done - so the output is written while the other threads still encode,
  // not all at the end - and the buffer is then used again for a later block: a few block-sized
  // buffers whose pages are touched once instead of fresh, page-faulted memory for the whole
  // output. The spare buffers are sized here, on the calling thread (its heap is set up for
  // large blocks).
  const bool single = blocks == 1;
  const std::size_t buffer_bytes =
      single ? 2 * kStreamBytes : largest_block + largest_block / 8 + 64;
  std::mutex order_mutex;
  int next_out = 0;                                                // lowest block not yet passed on
  std::vector<ByteBuffer> done(static_cast<std::size_t>(blocks));  // encoded, waiting its turn
  std::vector<char> is_done(static_cast<std::size_t>(blocks), 0);
  std::vector<ByteBuffer> spare(static_cast<std::size_t>(single ? 1 : runner->threads()));
  for (ByteBuffer& buffer : spare) buffer.reserve(buffer_bytes);
  if (whole) whole->reserve(doc.text.size() + doc.text.size() / 8 + 64);
  auto take_buffer = [&] {
    ByteBuffer buffer;
    const std::lock_guard lock(order_mutex);
    if (!spare.empty()) {
      buffer = std::move(spare.back());
      spare.pop_back();
    }
    return buffer;
  };
  auto hand_over = [&](int k, ByteBuffer&& text_of_block) {
    const std::lock_guard lock(order_mutex);
    done[k] = std::move(text_of_block);
    is_done[k] = 1;
    for (; next_out < blocks && is_done[next_out]; ++next_out) {
      ByteBuffer& ready = done[next_out];
      emit(ready.view());
      ready.clear();
      spare.push_back(std::move(ready));
    }
  };
  const char* text = doc.text.data();
  // Appends doc.text[from, to) to `out`; on one block, a long stretch of kept text (frames that
  // keep every value) is passed on as it lies in doc.text instead of being copied through `out`.
  auto pass_text = [&](ByteBuffer& out, std::size_t from, std::size_t to) {
    if (single && to - from >= kStreamBytes) {
      emit(out.view());
      out.clear();
      emit(std::string_view(text + from, to - from));
    } else {
      out.append(text + from, to - from);
    }
  };

  auto encode_block = [&](int k) {
    ByteBuffer out = take_buffer();
    out.reserve(buffer_bytes);
    std::vector<double> row(slots.size());
    std::vector<char> kept(slots.size(), 0);  // 1: the slot keeps its text this frame
    char buffer[kNumberBuffer];
    std::size_t cursor = block_offset(k);
    for (int f = block_frame(k); f < block_frame(k + 1); ++f) {
      const double* original = doc.values.data() + static_cast<std::size_t>(f) * channels;
      // The edited joints are a few 80-byte transforms per frame, strided through a clip far
      // larger than the caches: ask for a later frame's now so they arrive before they are read.
      if (f + kPrefetchFrames < frame_count) {
        for (const JointPlan& plan : plans) {
          const char* ahead =
              reinterpret_cast<const char*>(&edited.at(f + kPrefetchFrames, plan.joint));
          __builtin_prefetch(ahead);
          __builtin_prefetch(ahead + sizeof(core::Transform) - 1);
        }
      }
      for (const JointPlan& plan : plans) {
        const Joint& joint = doc.joints[plan.joint];
        const core::Transform& t = edited.at(f, plan.joint);
        if (!core::is_finite(t.translation) || !core::is_finite(t.rotation) ||
            !core::is_finite(t.scale))
          refuse(doc, where(doc, plan.joint, f) + ": edited transform is not finite");
        if (std::abs(t.scale.x - 1.0) > kUnrepresentableRel ||
            std::abs(t.scale.y - 1.0) > kUnrepresentableRel ||
            std::abs(t.scale.z - 1.0) > kUnrepresentableRel)
          refuse(doc, where(doc, plan.joint, f) + ": BVH cannot store a scale other than 1");

        // Translation.
        for (int a = 0; a < 3; ++a) {
          const double delta = t.translation[a] - joint.offset[a];
          if (plan.position_value[a] >= 0) {
            row[slot_of[plan.position_value[a]]] = delta;
          } else if (std::abs(delta) > kUnrepresentableRel * (1.0 + std::abs(joint.offset[a]))) {
            refuse(doc, where(doc, plan.joint, f) + ": translation moved along " +
                            std::string(1, static_cast<char>('X' + a)) + " but the joint has no " +
                            std::string(1, static_cast<char>('X' + a)) + "position channel");
          }
        }

        // Rotation: untouched (the reader's own, bit for bit), its channels keep their text.
        if (plan.rotation_count > 0 && !changed_rotations.empty() &&
            !changed_rotations[static_cast<std::size_t>(f) * joint_count + plan.joint]) {
          for (int n = 0; n < plan.rotation_count; ++n) kept[slot_of[plan.rotation_value[n]]] = 1;
          continue;
        }
        for (int n = 0; n < plan.rotation_count; ++n) kept[slot_of[plan.rotation_value[n]]] = 0;
        const double norm = glm::length(t.rotation);
        if (!(norm > 1e-9)) refuse(doc, where(doc, plan.joint, f) + ": edited rotation is zero");
        std::array<double, 3> reference{0.0, 0.0, 0.0};
        for (int n = 0; n < plan.rotation_count; ++n)
          reference[n] = original[plan.rotation_value[n]];
        // Edited rotations are mostly unit to the last bit (norm exactly 1), and q / 1 is q.
        const std::array<double, 3> angles =
            euler_from_quat_deg(norm == 1.0 ? t.rotation : t.rotation / norm, plan.axes, reference);
        for (int n = 0; n < 3; ++n) {
          if (n < plan.rotation_count) {
            row[slot_of[plan.rotation_value[n]]] = angles[n];
          } else if (std::abs(angles[n]) > kUnrepresentableDeg) {
            refuse(doc, where(doc, plan.joint, f) + ": edited rotation needs " +
                            std::string(1, static_cast<char>('X' + plan.axes[n])) +
                            "rotation, which the joint's CHANNELS do not have");
          }
        }
      }

      for (std::size_t s = 0; s < slots.size(); ++s) {
        if (kept[s]) continue;
        const double v = row[s];
        if (!std::isfinite(v))
          refuse(doc, "value at frame " + std::to_string(f) + ", channel " +
                          std::to_string(slots[s]) + " is not finite");
        // A value that prints as the number the file already holds keeps its original text.
        // Most values take the fast path: the printed number is known from its rounded units
        // (what read_double would give for the text), so only values that differ are printed.
        // An identical text always reads back as the same number, so one compare covers both.
        const std::size_t index = static_cast<std::size_t>(f) * channels + slots[s];
        const TextSpan span = doc.value_text[index];
        std::uint64_t units = 0;
        if (io::fixed_units(v, decimals[s], units)) {
          if (io::fixed_units_value(v, decimals[s], units) == doc.values[index]) continue;
          // Printed straight into the output, after the text since the last replaced value.
          if (single && span.offset - cursor >= kStreamBytes) {
            pass_text(out, cursor, span.offset);
            cursor = span.offset;
          }
          const std::size_t gap = span.offset - cursor;
          char* at = out.room(gap + io::kFixedUnitsRoom);
          std::memcpy(at, text + cursor, gap);
          const char* end =
              io::write_fixed_units(at + gap, units == 0 ? 0.0 : v, decimals[s], units);
          out.commit(static_cast<std::size_t>(end - at));
          cursor = static_cast<std::size_t>(span.offset) + span.length;
          continue;
        }
        {
          const std::size_t n = format_fixed(v, decimals[s], buffer);
          if (n == 0) refuse(doc, "value " + std::to_string(v) + " is too long to print");
          if (std::string_view(buffer, n) == std::string_view(text + span.offset, span.length))
            continue;
          double reread = 0.0;
          io::read_double(buffer, buffer + n, reread);
          if (reread == doc.values[index]) continue;
          pass_text(out, cursor, span.offset);
          out.append(buffer, n);
          cursor = static_cast<std::size_t>(span.offset) + span.length;
        }
      }
      if (single && out.size() >= kStreamBytes) {
        emit(out.view());
        out.clear();
      }
    }
    const std::size_t end = block_offset(k + 1);
    pass_text(out, cursor, end);
    if (single)
      emit(out.view());
    else
      hand_over(k, std::move(out));
  };
  io::for_each_block(runner, blocks, encode_block);
  return true;
}

}  // namespace

std::string write(const Document& doc, const core::Clip& edited, std::span<const bool> changed,
                  const core::ParallelRunner* runner, std::span<const char> changed_rotations) {
  std::string out;
  if (!write_to(doc, edited, changed, changed_rotations, runner, nullptr, &out)) return doc.text;
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
