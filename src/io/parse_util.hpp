// src/io/parse_util.hpp — internal helpers shared by the mesh and table readers:
// error messages with file + line / byte offset, number parsing that accepts
// exactly what a user would call a number, a whitespace/line-aware text cursor,
// and endian-aware loads for binary formats. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "prox/io/mesh_data.hpp"

namespace prox::io::detail {

/// 1-based line number of a byte offset (only computed when reporting an error).
std::size_t line_of(std::string_view bytes, std::size_t offset);
/// A token as it may appear in a message: at most 32 characters, non-printables as '?'.
std::string quote(std::string_view token);

[[noreturn]] void fail(const std::string& name, const std::string& what);
[[noreturn]] void fail_at_line(const std::string& name, std::string_view bytes,
                               std::size_t offset, const std::string& what);
[[noreturn]] void fail_at_byte(const std::string& name, std::size_t offset,
                               const std::string& what);

/// Decimal or scientific number, optional sign, "inf"/"nan" included; whole token.
bool parse_double(std::string_view token, double& out);
/// Optional sign and decimal digits; whole token; false on overflow.
bool parse_int(std::string_view token, std::int64_t& out);

/// Reads whitespace-separated tokens from text, knowing where lines end.
struct TextCursor {
  std::string_view s;
  const std::string& name;
  std::size_t pos = 0;

  bool at_end() const { return pos >= s.size(); }
  std::size_t left() const { return s.size() - pos; }
  /// Skips spaces, tabs, \r, \f, \v, NUL bytes — not newlines.
  void skip_blanks() {
    while (pos < s.size()) {
      const char c = s[pos];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos;
      } else {
        break;
      }
    }
  }
  /// True at the end of the current line (after blanks), or at the end of text.
  bool at_eol() {
    skip_blanks();
    return pos >= s.size() || s[pos] == '\n';
  }
  /// Moves past the next newline (or to the end).
  void skip_line() {
    const std::size_t nl = s.find('\n', pos);
    pos = nl == std::string_view::npos ? s.size() : nl + 1;
  }
  /// Skips whitespace including newlines and, if comment != 0, comments to end of line.
  void skip_space(char comment) {
    while (pos < s.size()) {
      const char c = s[pos];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
        ++pos;
      } else if (comment != 0 && c == comment) {
        skip_line();
      } else {
        break;
      }
    }
  }
  /// The next token on this line (empty at end of line).
  std::string_view token_on_line() {
    skip_blanks();
    const std::size_t b = pos;
    while (pos < s.size()) {
      const char c = s[pos];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') break;
      ++pos;
    }
    return s.substr(b, pos - b);
  }
  /// The next token, crossing lines and comments (empty at the end of text).
  std::string_view token_any(char comment) {
    skip_space(comment);
    return token_on_line();
  }

  [[noreturn]] void fail_here(std::size_t at, const std::string& what) const {
    fail_at_line(name, s, at, what);
  }
  /// A number token on this line; `what` names it in the error ("vertex 3 y").
  double number_on_line(const std::string& what, bool allow_non_finite);
  /// A number token anywhere ahead (OFF is token-based across lines).
  double number_any(const std::string& what, bool allow_non_finite, char comment);
  /// An integer token anywhere ahead.
  std::int64_t integer_any(const std::string& what, char comment);
};

inline std::uint16_t bswap(std::uint16_t v) { return __builtin_bswap16(v); }
inline std::uint32_t bswap(std::uint32_t v) { return __builtin_bswap32(v); }
inline std::uint64_t bswap(std::uint64_t v) { return __builtin_bswap64(v); }

/// Loads a U (1, 2, 4 or 8 bytes; integer or floating) from unaligned memory.
template <class U>
inline U load(const char* p, bool swap) {
  if constexpr (sizeof(U) == 1) {
    U v;
    std::memcpy(&v, p, 1);
    return v;
  } else {
    using Bits = std::conditional_t<sizeof(U) == 2, std::uint16_t,
                                    std::conditional_t<sizeof(U) == 4, std::uint32_t, std::uint64_t>>;
    Bits b;
    std::memcpy(&b, p, sizeof(U));
    if (swap) b = bswap(b);
    U v;
    std::memcpy(&v, &b, sizeof(U));
    return v;
  }
}

/// True on a little-endian host (every platform prox targets, but say it once).
inline bool host_is_little_endian() {
  const std::uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

}  // namespace prox::io::detail
