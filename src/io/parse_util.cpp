// src/io/parse_util.cpp — error formatting and number parsing for the readers.
#include "parse_util.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace prox::io::detail {

std::size_t line_of(std::string_view bytes, std::size_t offset) {
  if (offset > bytes.size()) offset = bytes.size();
  std::size_t line = 1;
  for (std::size_t i = 0; i < offset; ++i) line += bytes[i] == '\n';
  return line;
}

std::string quote(std::string_view token) {
  std::string out = "'";
  const std::size_t n = token.size() < 32 ? token.size() : 32;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    out += (c >= 32 && c < 127) ? static_cast<char>(c) : '?';
  }
  if (token.size() > n) out += "...";
  out += "'";
  return out;
}

void fail(const std::string& name, const std::string& what) { throw ReadError(name + ": " + what); }

void fail_at_line(const std::string& name, std::string_view bytes, std::size_t offset,
                  const std::string& what) {
  throw ReadError(name + ": line " + std::to_string(line_of(bytes, offset)) + ": " + what);
}

void fail_at_byte(const std::string& name, std::size_t offset, const std::string& what) {
  throw ReadError(name + ": byte " + std::to_string(offset) + ": " + what);
}

bool parse_double(std::string_view token, double& out) {
  if (token.empty()) return false;
  const char* b = token.data();
  const char* e = b + token.size();
  bool negate = false;
  if (*b == '+' || *b == '-') {
    negate = *b == '-';
    ++b;
    if (b == e || *b == '+' || *b == '-') return false;
  }
  double v = 0;
  const auto r = std::from_chars(b, e, v, std::chars_format::general);
  // Out-of-range values (1e999) come back as result_out_of_range: a bad number.
  if (r.ec != std::errc() || r.ptr != e) return false;
  out = negate ? -v : v;
  return true;
}

bool parse_int(std::string_view token, std::int64_t& out) {
  if (token.empty()) return false;
  const char* b = token.data();
  const char* e = b + token.size();
  if (*b == '+') {
    ++b;
    if (b == e || *b == '-') return false;
  }
  const auto r = std::from_chars(b, e, out);
  return r.ec == std::errc() && r.ptr == e;
}

namespace {
double checked_number(const TextCursor& c, std::size_t at, std::string_view tok,
                      const std::string& what, bool allow_non_finite) {
  if (tok.empty()) c.fail_here(at, "missing number for " + what + " (truncated?)");
  double v = 0;
  if (!parse_double(tok, v)) c.fail_here(at, "bad number " + quote(tok) + " for " + what);
  if (!allow_non_finite && !std::isfinite(v)) {
    c.fail_here(at, "non-finite number " + quote(tok) + " for " + what);
  }
  return v;
}
}  // namespace

double TextCursor::number_on_line(const std::string& what, bool allow_non_finite) {
  skip_blanks();
  const std::size_t at = pos;
  const std::string_view tok = token_on_line();
  return checked_number(*this, at, tok, what, allow_non_finite);
}

double TextCursor::number_any(const std::string& what, bool allow_non_finite, char comment) {
  skip_space(comment);
  const std::size_t at = pos;
  const std::string_view tok = token_on_line();
  return checked_number(*this, at, tok, what, allow_non_finite);
}

std::int64_t TextCursor::integer_any(const std::string& what, char comment) {
  skip_space(comment);
  const std::size_t at = pos;
  const std::string_view tok = token_on_line();
  if (tok.empty()) fail_here(at, "missing " + what + " (truncated?)");
  std::int64_t v = 0;
  if (!parse_int(tok, v)) fail_here(at, "bad integer " + quote(tok) + " for " + what);
  return v;
}

}  // namespace prox::io::detail
