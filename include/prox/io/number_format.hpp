// prox/io/number_format.hpp — numbers as text that read back to the same bits.
//
// std::to_chars without a precision prints the shortest decimal string that
// parses back (std::from_chars, strtod, numpy.loadtxt) to exactly the same
// float/double. Non-finite values print as "inf", "-inf" and "nan", which
// strtod, Python's float() and numpy read back.
#pragma once

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>

namespace prox::io {

/// Appends the shortest round-trip text of x to out.
template <class T>
inline void append_number(std::string& out, T x) {
  char buf[32];
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) {
      out += "nan";
      return;
    }
  }
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  out.append(buf, r.ptr);
}

/// The shortest round-trip text of x.
template <class T>
inline std::string format_number(T x) {
  std::string s;
  append_number(s, x);
  return s;
}

}  // namespace prox::io
