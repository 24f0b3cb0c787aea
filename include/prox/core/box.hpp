// prox/core/box.hpp — axis-aligned box Box<T,N> (lo <= hi component-wise when
// non-empty). The empty box has lo = +inf, hi = -inf so that extend() works
// without a special case.
#pragma once

#include "prox/core/vec.hpp"

namespace prox {

template <class T, int N>
struct Box {
  Vec<T, N> lo;
  Vec<T, N> hi;

  static Box empty() {
    return Box{Vec<T, N>::splat(ScalarTraits<T>::infinity()),
               Vec<T, N>::splat(-ScalarTraits<T>::infinity())};
  }
  bool is_empty() const {
    for (int i = 0; i < N; ++i)
      if (hi[i] < lo[i]) return true;
    return false;
  }
  void extend(const Vec<T, N>& p) {
    lo = min(lo, p);
    hi = max(hi, p);
  }
  void extend(const Box& b) {
    lo = min(lo, b.lo);
    hi = max(hi, b.hi);
  }
  Vec<T, N> diagonal() const { return hi - lo; }
  Vec<T, N> center() const { return (lo + hi) * T(0.5); }
};

template <class T> using Box2 = Box<T, 2>;
template <class T> using Box3 = Box<T, 3>;

}  // namespace prox
