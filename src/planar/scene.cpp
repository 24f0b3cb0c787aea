// src/planar/scene.cpp — the scene text format (parser and writer), the seed's
// built-in scene and the scene's distance. Hand-written: the format is a few
// keywords and numbers per line, which no Debian package parses for us with
// line-numbered errors.
#include "prox/planar/scene.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prox::planar {
namespace {

/// What a keyword needs: a fixed count of numbers, or pairs (count = -1).
struct Keyword {
  std::string_view name;
  int count;
  std::string_view numbers;  // described for error messages
};

constexpr Keyword keywords[] = {
    {"canvas", 2, "width, height"},
    {"segment", 4, "ax, ay, bx, by"},
    {"circle", 3, "center x, center y, radius"},
    {"box", 4, "x0, y0, x1, y1"},
    {"obox", 5, "center x, center y, half width, half height, degrees"},
    {"capsule", 5, "ax, ay, bx, by, radius"},
    {"convex", -1, "x y pairs"},
    {"polygon", -1, "x y pairs"},
    {"polyline", -1, "x y pairs"},
};

class LineError {
 public:
  LineError(std::string_view name, int line) : prefix_(detail::join({name, ":", std::to_string(line), ": "})) {}
  [[noreturn]] void fail(std::string_view what) const { throw std::runtime_error(detail::join({prefix_, what})); }

 private:
  std::string prefix_;
};

double parse_number(std::string_view word, const LineError& err) {
  double v = 0;
  const char* first = word.data();
  const char* last = word.data() + word.size();
  if (!word.empty() && *first == '+') ++first;  // from_chars refuses a leading '+'
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last) err.fail(detail::join({"'", word, "' is not a number"}));
  if (!std::isfinite(v)) err.fail(detail::join({"'", word, "' is not a finite number"}));
  return v;
}

std::vector<Vec2d> to_points(const std::vector<double>& v) {
  std::vector<Vec2d> pts;
  for (std::size_t i = 0; i + 1 < v.size(); i += 2) pts.push_back(Vec2d{v[i], v[i + 1]});
  return pts;
}

Shape make_shape(std::string_view kw, const std::vector<double>& v) {
  if (kw == "segment") return Segment<double>{{v[0], v[1]}, {v[2], v[3]}};
  if (kw == "circle") return Circle<double>{{v[0], v[1]}, v[2]};
  if (kw == "box") return Box<double, 2>{{v[0], v[1]}, {v[2], v[3]}};
  if (kw == "obox") {
    const double radians = v[4] * std::numbers::pi / 180.0;
    return OrientedBox<double>::from_angle({v[0], v[1]}, {v[2], v[3]}, radians);
  }
  if (kw == "capsule") return Capsule<double>{{v[0], v[1]}, {v[2], v[3]}, v[4]};
  if (kw == "convex") return ConvexPolygon<double>{to_points(v)};
  if (kw == "polygon") return Polygon<double>{to_points(v)};
  return Polyline<double>{to_points(v)};
}

void parse_line(std::string_view text, const LineError& err, Scene& scene) {
  std::istringstream words{std::string(text)};
  std::string kw;
  if (!(words >> kw)) return;
  const Keyword* spec = nullptr;
  for (const Keyword& k : keywords)
    if (k.name == kw) spec = &k;
  if (!spec) {
    err.fail(detail::join({"unknown shape '", kw,
                           "' (expected canvas, segment, circle, box, obox, capsule, convex, polygon or polyline)"}));
  }
  std::vector<double> v;
  for (std::string w; words >> w;) v.push_back(parse_number(w, err));
  const std::string n = std::to_string(v.size());
  if (spec->count >= 0 && static_cast<int>(v.size()) != spec->count) {
    err.fail(detail::join({kw, " needs ", std::to_string(spec->count), " numbers (", spec->numbers,
                           "), got ", n}));
  }
  if (spec->count < 0 && (v.empty() || v.size() % 2 != 0)) {
    err.fail(detail::join({kw, " needs x y pairs (an even count, at least 2 numbers), got ", n}));
  }
  if (kw == "canvas") {
    if (!(v[0] >= 1 && v[0] <= 1 << 15 && v[1] >= 1 && v[1] <= 1 << 15) ||
        v[0] != std::floor(v[0]) || v[1] != std::floor(v[1])) {
      err.fail("canvas needs whole sizes from 1 to 32768");
    }
    scene.width = static_cast<int>(v[0]);
    scene.height = static_cast<int>(v[1]);
    return;
  }
  if (kw == "box" && (v[0] > v[2] || v[1] > v[3])) {
    err.fail(detail::join({"box needs x0 <= x1 and y0 <= y1 (its min corner first), got (",
                           std::to_string(v[0]), ", ", std::to_string(v[1]), ") (", std::to_string(v[2]),
                           ", ", std::to_string(v[3]), ")"}));
  }
  if (kw == "obox" && (v[2] < 0 || v[3] < 0)) err.fail("obox half sizes must be >= 0");
  Shape shape = make_shape(kw, v);
  try {
    std::visit([](const auto& s) { validate(s); }, shape);
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    const std::string_view tag = "prox::planar: ";
    if (what.rfind(tag, 0) == 0) what.erase(0, tag.size());
    err.fail(what);
  }
  scene.shapes.push_back(std::move(shape));
}

/// Appends " x" per value, shortest round-trip form. (Appending, rather than
/// "literal" + std::string, also keeps GCC 12's -Wrestrict false positive away.)
void append_numbers(std::string& out, std::initializer_list<double> values) {
  for (const double x : values) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    out += ' ';
    out.append(buf, r.ptr);
  }
}

void append_points(std::string& out, std::string_view kw, const std::vector<Vec2d>& pts) {
  out += kw;
  for (const Vec2d& p : pts) append_numbers(out, {p[0], p[1]});
}

}  // namespace

Scene default_scene() {
  Scene s;
  s.shapes.push_back(Segment<double>{{150, 160}, {400, 120}});
  s.shapes.push_back(Circle<double>{{720, 200}, 95});
  s.shapes.push_back(Box<double, 2>{{150, 420}, {340, 580}});
  s.shapes.push_back(Polygon<double>{{{560, 430}, {780, 410}, {690, 610}}});
  return s;
}

Scene parse_scene(std::istream& in, std::string_view name) {
  Scene scene;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    parse_line(line, LineError(name, number), scene);
  }
  if (in.bad()) throw std::runtime_error(detail::join({name, ": read error"}));
  return scene;
}

Scene load_scene(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(detail::join({"cannot open scene file '", path.string(), "'"}));
  return parse_scene(in, path.string());
}

std::string_view shape_keyword(const Shape& shape) {
  static constexpr std::string_view names[] = {"segment", "circle",  "box",     "obox",
                                               "capsule", "convex", "polygon", "polyline"};
  return names[shape.index()];
}

std::string format_scene(const Scene& scene) {
  std::string out = "canvas";
  append_numbers(out, {double(scene.width), double(scene.height)});
  out += '\n';
  for (const Shape& shape : scene.shapes) {
    std::visit(
        [&](const auto& s) {
          using S = std::decay_t<decltype(s)>;
          if constexpr (std::is_same_v<S, Segment<double>>) {
            out += "segment";
            append_numbers(out, {s.a[0], s.a[1], s.b[0], s.b[1]});
          } else if constexpr (std::is_same_v<S, Circle<double>>) {
            out += "circle";
            append_numbers(out, {s.center[0], s.center[1], s.radius});
          } else if constexpr (std::is_same_v<S, Box<double, 2>>) {
            out += "box";
            append_numbers(out, {s.lo[0], s.lo[1], s.hi[0], s.hi[1]});
          } else if constexpr (std::is_same_v<S, OrientedBox<double>>) {
            const double deg = std::atan2(s.axis[1], s.axis[0]) * 180.0 / std::numbers::pi;
            out += "obox";
            append_numbers(out, {s.center[0], s.center[1], s.half[0], s.half[1], deg});
          } else if constexpr (std::is_same_v<S, Capsule<double>>) {
            out += "capsule";
            append_numbers(out, {s.a[0], s.a[1], s.b[0], s.b[1], s.radius});
          } else if constexpr (std::is_same_v<S, ConvexPolygon<double>>) {
            append_points(out, "convex", s.points);
          } else if constexpr (std::is_same_v<S, Polygon<double>>) {
            append_points(out, "polygon", s.points);
          } else {
            append_points(out, "polyline", s.points);
          }
        },
        shape);
    out += '\n';
  }
  return out;
}

ClosestResult<double> closest(const Vec2d& p, const Shape& shape, Part part) {
  return std::visit([&](const auto& s) { return planar::closest(p, s, part); }, shape);
}

SceneClosest scene_closest(const Vec2d& p, const Scene& scene, Part part) {
  SceneClosest best;
  best.closest = ClosestResult<double>{Vec2d::splat(std::numeric_limits<double>::quiet_NaN()),
                                       std::numeric_limits<double>::quiet_NaN(), -1,
                                       std::numeric_limits<double>::quiet_NaN()};
  for (std::size_t i = 0; i < scene.shapes.size(); ++i) {
    const ClosestResult<double> r = closest(p, scene.shapes[i], part);
    if (best.shape < 0 ? r.sq_distance == r.sq_distance : r.sq_distance < best.closest.sq_distance) {
      best.shape = static_cast<int>(i);
      best.closest = r;
    }
  }
  return best;
}

double scene_distance(const Vec2d& p, const Scene& scene, Part part) {
  double best = std::numeric_limits<double>::infinity();
  for (const Shape& shape : scene.shapes) {
    const double d = std::visit(
        [&](const auto& s) -> double {
          using S = std::decay_t<decltype(s)>;
          constexpr bool open = std::is_same_v<S, Segment<double>> || std::is_same_v<S, Polyline<double>>;
          if (part == Part::solid && !open) return signed_distance(p, s);
          return std::sqrt(closest_on(p, s).sq_distance);
        },
        shape);
    if (d < best) best = d;
  }
  return best;
}

}  // namespace prox::planar
