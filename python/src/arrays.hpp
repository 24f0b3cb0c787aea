// python/src/arrays.hpp — the NumPy edge of the bindings: strided input rows and
// freshly allocated output arrays.
//
// The Python layer (python/prox/__init__.py) flattens every query to (N, k) rows
// in the mesh's dtype without copying when it can; here a Rows<T> reads those
// rows with whatever strides NumPy gave (so rays[:, :3] and rays[:, 3:] are read
// in place), and Out<V> is a C-contiguous NumPy array allocated with the GIL
// held and filled after it is released.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "prox/core/vec.hpp"

namespace prox::python {

namespace nb = nanobind;

/// An (N, K) input of T on the CPU, any strides.
template <class T>
using InArray = nb::ndarray<const T, nb::ndim<2>, nb::device::cpu>;

/// Row i of an (N, K) array as a Vec<T, K>, read through the array's strides.
template <class T, int K>
class Rows {
 public:
  Rows(const InArray<T>& a, const char* name) : data_(a.data()), n_(a.shape(0)) {
    if (a.shape(1) != std::size_t(K))
      throw std::invalid_argument(std::string(name) + " must have shape (N, " +
                                  std::to_string(K) + "), got (" + std::to_string(a.shape(0)) +
                                  ", " + std::to_string(a.shape(1)) + ")");
    s0_ = a.stride(0);
    s1_ = a.stride(1);
  }
  std::size_t size() const { return n_; }
  Vec<T, K> operator[](std::size_t i) const {
    Vec<T, K> v;
    const T* row = data_ + std::int64_t(i) * s0_;
    for (int k = 0; k < K; ++k) v[k] = row[k * s1_];
    return v;
  }
  /// The rows as a span of Vec<T, K> when they are laid out as one (C-contiguous).
  const Vec<T, K>* contiguous() const {
    static_assert(sizeof(Vec<T, K>) == K * sizeof(T));
    return (s1_ == 1 && (s0_ == K || n_ <= 1)) ? reinterpret_cast<const Vec<T, K>*>(data_)
                                                : nullptr;
  }

 private:
  const T* data_;
  std::size_t n_;
  std::int64_t s0_ = 0, s1_ = 0;
};

/// A new C-contiguous NumPy array of V; data is writable until it is returned.
template <class V>
struct Out {
  V* data = nullptr;
  nb::object array;

  explicit Out(std::initializer_list<std::size_t> shape) {
    std::size_t n = 1;
    for (std::size_t s : shape) n *= s;
    data = new V[n > 0 ? n : 1];
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<V*>(p); });
    array = nb::cast(nb::ndarray<nb::numpy, V>(data, shape, owner));
  }
};

/// A new (nx, ny, nz) NumPy array of V in Fortran order (x fastest): element
/// [i, j, k] is data[i + nx (j + ny k)].
template <class V>
struct FortranOut {
  V* data = nullptr;
  nb::object array;

  FortranOut(std::size_t nx, std::size_t ny, std::size_t nz) {
    const std::size_t n = nx * ny * nz;
    data = new V[n > 0 ? n : 1];
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<V*>(p); });
    const std::size_t shape[3] = {nx, ny, nz};
    const std::int64_t strides[3] = {1, std::int64_t(nx), std::int64_t(nx * ny)};
    array = nb::cast(nb::ndarray<nb::numpy, V>(data, 3, shape, owner, strides));
  }
};

}  // namespace prox::python
