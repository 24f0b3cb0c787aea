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
#include "prox/mesh/batch.hpp"

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

/// The BatchOptions of a `threads=` argument (0: all cores); ValueError below 0.
inline BatchOptions batch_options(int threads) {
  if (threads < 0)
    throw std::invalid_argument("threads must be >= 0 (0: all cores), got " +
                                std::to_string(threads));
  BatchOptions o;
  o.threads = threads;
  return o;
}

/// A new (n) array of V with element i = fn(i), filled on prox's pool with the
/// GIL released (each slot depends only on its own query: any `threads` gives
/// the same bytes). The plumbing of every one-value-per-query method.
template <class V, class Fn>
nb::object map_out(std::size_t n, int threads, Fn&& fn) {
  const BatchOptions o = batch_options(threads);
  Out<V> out({n});
  {
    nb::gil_scoped_release release;
    batch_for_each(n, o, [&](std::size_t i) { out.data[i] = fn(i); });
  }
  return out.array;
}

/// Runs write(i) for i in [0, n) on prox's pool with the GIL released: the
/// plumbing of the methods that fill several arrays per query.
template <class Fn>
void for_each_out(std::size_t n, int threads, Fn&& write) {
  const BatchOptions o = batch_options(threads);
  nb::gil_scoped_release release;
  batch_for_each(n, o, write);
}

/// map_out for one query per point of p, visited in the points' Morton order
/// (prox::BatchOptions::spatial_order: faster, and the same bytes in every slot).
template <class V, class T, class Fn>
nb::object map_out_points(const Rows<T, 3>& p, int threads, Fn&& fn) {
  const BatchOptions o = batch_options(threads);
  Out<V> out({p.size()});
  {
    nb::gil_scoped_release release;
    const std::vector<std::size_t> order =
        detail::spatial_order(p.size(), o, [&](std::size_t i) { return p[i]; });
    batch_for_each_in(p.size(), order, o, [&](std::size_t i) { out.data[i] = fn(i); });
  }
  return out.array;
}

/// for_each_out for one query per point of p, in the points' Morton order.
template <class T, class Fn>
void for_each_out_points(const Rows<T, 3>& p, int threads, Fn&& write) {
  const BatchOptions o = batch_options(threads);
  nb::gil_scoped_release release;
  const std::vector<std::size_t> order =
      detail::spatial_order(p.size(), o, [&](std::size_t i) { return p[i]; });
  batch_for_each_in(p.size(), order, o, write);
}

/// BatchLists of fn(i) for i in [0, n) (a vector of answers per query), on
/// prox's pool with the GIL released.
template <class Item, class Fn>
BatchLists<Item> lists_of(std::size_t n, int threads, Fn&& fn) {
  const BatchOptions o = batch_options(threads);
  nb::gil_scoped_release release;
  return batch_lists<Item>(n, fn, o);
}

/// The (#Q+1) int64 splits of BatchLists: query i's answers are [splits[i], splits[i+1]).
template <class Item>
nb::object splits_of(const BatchLists<Item>& lists) {
  Out<std::int64_t> splits({lists.size() + 1});
  for (std::size_t i = 0; i <= lists.size(); ++i)
    splits.data[i] = std::int64_t(lists.offsets[i]);
  return splits.array;
}

/// The query of each answer of BatchLists, int64.
template <class Item>
nb::object query_ids_of(const BatchLists<Item>& lists) {
  Out<std::int64_t> ids({lists.items.size()});
  for (std::size_t i = 0; i < lists.size(); ++i)
    for (std::size_t j = lists.offsets[i]; j < lists.offsets[i + 1]; ++j)
      ids.data[j] = std::int64_t(i);
  return ids.array;
}

}  // namespace prox::python
