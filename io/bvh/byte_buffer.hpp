#pragma once
// Internal: the BVH writer's output buffer. It appends ~150k short pieces per clip (a number, the
// text between two numbers): unlike std::string it never zero-fills (no resize before writing a
// number in place) and hands out room to print straight into, so a number is not printed into a
// scratch buffer and copied again.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

namespace ikfix::io::bvh {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  // A moved-from buffer is empty, with no room (not a null pointer with its old capacity).
  ByteBuffer(ByteBuffer&& other) noexcept
      : data_(std::move(other.data_)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  ByteBuffer& operator=(ByteBuffer&& other) noexcept {
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    return *this;
  }

  void reserve(std::size_t bytes) {
    if (bytes > capacity_) grow_to(bytes);
  }
  // At least `bytes` writable bytes after the content; commit() what was written there.
  char* room(std::size_t bytes) {
    if (bytes > capacity_ - size_) grow_to(std::max(size_ + bytes, 2 * capacity_));
    return data_.get() + size_;
  }
  void commit(std::size_t bytes) { size_ += bytes; }
  void append(const char* bytes, std::size_t count) {
    std::memcpy(room(count), bytes, count);
    size_ += count;
  }
  void clear() { size_ = 0; }
  std::size_t size() const { return size_; }
  std::string_view view() const { return {data_.get(), size_}; }

 private:
  void grow_to(std::size_t bytes) {
    std::unique_ptr<char[]> bigger = std::make_unique_for_overwrite<char[]>(bytes);
    if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = bytes;
  }

  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace ikfix::io::bvh
