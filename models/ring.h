// Ring: a double-ended queue over one power-of-two array, for the page
// cache's queues (models/host_cache.h), which push at the back, pop at the
// front and index from the front once or more per write. std::deque does
// the same, but every index there divides by its block size and every few
// pushes allocate a block; the simulator spends much of a recording in those
// queues (docs/capacity.md, "Where a recording's time goes").
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

namespace sd {

template <class T>
class Ring {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return buf_[(head_ + i) & mask_]; }
  const T& operator[](size_t i) const { return buf_[(head_ + i) & mask_]; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }
  void push_back(T v) {
    if (size_ == buf_.size()) grow();
    buf_[(head_ + size_) & mask_] = std::move(v);
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  void clear() { head_ = size_ = 0; }

  // Iteration from the front, for range-for.
  template <class R, class V>
  class Iter {
   public:
    Iter(R* r, size_t i) : r_(r), i_(i) {}
    V& operator*() const { return (*r_)[i_]; }
    V* operator->() const { return &(*r_)[i_]; }
    Iter& operator++() { return ++i_, *this; }
    bool operator!=(const Iter& o) const { return i_ != o.i_; }
    bool operator==(const Iter& o) const { return i_ == o.i_; }

   private:
    R* r_;
    size_t i_;
  };
  using iterator = Iter<Ring, T>;
  using const_iterator = Iter<const Ring, const T>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  void grow() {
    std::vector<T> next(buf_.empty() ? 16 : 2 * buf_.size());
    for (size_t i = 0; i < size_; ++i) next[i] = std::move((*this)[i]);
    buf_.swap(next);
    head_ = 0;
    mask_ = buf_.size() - 1;
  }
  std::vector<T> buf_;
  size_t head_ = 0, size_ = 0, mask_ = 0;
};

}  // namespace sd
