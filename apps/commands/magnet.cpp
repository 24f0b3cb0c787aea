// apps/commands/magnet.cpp — `prox magnet [SCENE]`: seed 004's Magnet in an SDL2 window.
//
// Wherever the mouse is (the probe P), every shape's closest point is found
// with prox::planar::closest (boundary or solid, the library's functions) and
// drawn: a silver line from P, an amber dot on it, its distance beside it.
// The readout gives the first segment's fraction before and after the clamp,
// and for every shape the feature that holds the closest point (edge, corner,
// rim, end, inside) and its signed distance. Keys: see kHelp below.
// --readout prints one machine-readable line per shape after every change
// ("magnet shape=I kind=K point=X,Y distance=D ..."), for tests and scripts.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <variant>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "gui/window.hpp"
#include "prox/planar/closest.hpp"
#include "prox/planar/field.hpp"
#include "prox/planar/scene.hpp"

namespace prox::cli {
namespace {

using gui::Color;
using planar::Part;
using planar::Shape;

constexpr Color kBackground{20, 22, 28};
constexpr Color kGrid{34, 38, 47};
constexpr Color kText{235, 238, 242};
constexpr Color kGrey{120, 130, 142};
constexpr Color kBlue{47, 111, 235};
constexpr Color kAmber{232, 89, 12};
constexpr Color kSilver{150, 158, 170};
constexpr Color kDragged{110, 160, 255};

const std::pair<const char*, const char*> kHelp[] = {
    {"Move the mouse", "the probe P: every shape's closest point to it"},
    {"S", "circle, box, polygons: boundary <-> solid"},
    {"drag a shape", "move it (left button)"},
    {"F", "distance field background (signed when solid)"},
    {"P", "pin the probe where it is / follow the mouse again"},
    {"F12 or W", "screenshot (PNG in the current folder)"},
    {"H", "this help"},
    {"Esc or Q", "quit"},
};

double dist(const Vec2d& a, const Vec2d& b) { return std::hypot(a[0] - b[0], a[1] - b[1]); }

std::string fmt2(double v) { return fmt::format("{:.2f}", v); }

/// The shape's outline as points (closed when the shape has an inside).
std::pair<std::vector<Vec2d>, bool> outline(const Shape& shape) {
  return std::visit(
      [](const auto& s) -> std::pair<std::vector<Vec2d>, bool> {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, planar::Segment<double>>) {
          return {{s.a, s.b}, false};
        } else if constexpr (std::is_same_v<S, planar::Circle<double>>) {
          std::vector<Vec2d> p;
          const int n = std::clamp(static_cast<int>(s.radius), 32, 256);
          for (int i = 0; i < n; ++i) {
            const double a = 2 * 3.14159265358979323846 * i / n;
            p.push_back(s.center + Vec2d{std::cos(a), std::sin(a)} * s.radius);
          }
          return {p, true};
        } else if constexpr (std::is_same_v<S, Box<double, 2>>) {
          return {{s.lo, Vec2d{s.hi[0], s.lo[1]}, s.hi, Vec2d{s.lo[0], s.hi[1]}}, true};
        } else if constexpr (std::is_same_v<S, planar::OrientedBox<double>>) {
          const Vec2d u = s.axis * s.half[0], v = Vec2d{-s.axis[1], s.axis[0]} * s.half[1];
          return {{s.center - u - v, s.center + u - v, s.center + u + v, s.center - u + v}, true};
        } else if constexpr (std::is_same_v<S, planar::Capsule<double>>) {
          // Two half circles joined by the two sides.
          std::vector<Vec2d> p;
          const Vec2d d = s.b - s.a;
          const double base = std::atan2(d[1], d[0]);
          const int n = 48;
          for (int i = 0; i <= n; ++i) {
            const double a = base - 3.14159265358979323846 / 2 + 3.14159265358979323846 * i / n;
            p.push_back(s.b + Vec2d{std::cos(a), std::sin(a)} * s.radius);
          }
          for (int i = 0; i <= n; ++i) {
            const double a = base + 3.14159265358979323846 / 2 + 3.14159265358979323846 * i / n;
            p.push_back(s.a + Vec2d{std::cos(a), std::sin(a)} * s.radius);
          }
          return {p, true};
        } else if constexpr (std::is_same_v<S, planar::Polyline<double>>) {
          return {s.points, false};
        } else {
          return {s.points, true};
        }
      },
      shape);
}

void translate(Shape& shape, const Vec2d& d) {
  std::visit(
      [&](auto& s) {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, planar::Segment<double>> ||
                      std::is_same_v<S, planar::Capsule<double>>) {
          s.a = s.a + d, s.b = s.b + d;
        } else if constexpr (std::is_same_v<S, planar::Circle<double>> ||
                             std::is_same_v<S, planar::OrientedBox<double>>) {
          s.center = s.center + d;
        } else if constexpr (std::is_same_v<S, Box<double, 2>>) {
          s.lo = s.lo + d, s.hi = s.hi + d;
        } else {
          for (Vec2d& p : s.points) p = p + d;
        }
      },
      shape);
}

bool has_inside(const Shape& shape) {
  return !std::holds_alternative<planar::Segment<double>>(shape) &&
         !std::holds_alternative<planar::Polyline<double>>(shape);
}

std::optional<double> signed_distance(const Vec2d& p, const Shape& shape) {
  return std::visit(
      [&](const auto& s) -> std::optional<double> {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, planar::Segment<double>> ||
                      std::is_same_v<S, planar::Polyline<double>>) {
          return std::nullopt;
        } else {
          return planar::signed_distance(p, s);
        }
      },
      shape);
}

bool inside(const Vec2d& p, const Shape& shape) {
  return std::visit(
      [&](const auto& s) {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, planar::Segment<double>> ||
                      std::is_same_v<S, planar::Polyline<double>>) {
          return false;
        } else {
          return planar::contains(p, s);
        }
      },
      shape);
}

/// Number of points (corners) of a shape's outline, for naming the corner at an edge's end.
std::size_t corner_count(const Shape& shape) {
  return std::visit(
      [](const auto& s) -> std::size_t {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, planar::ConvexPolygon<double>> ||
                      std::is_same_v<S, planar::Polygon<double>> ||
                      std::is_same_v<S, planar::Polyline<double>>) {
          return s.points.size();
        } else {
          return 4;
        }
      },
      shape);
}

/// The feature of the shape that holds r: "inside", "rim", "end A", "edge 2", "corner 1", ...
std::string feature_name(const Shape& shape, const planar::ClosestResult<double>& r, Part part) {
  if (part == Part::solid && r.edge < 0 && r.sq_distance == 0 && has_inside(shape)) return "inside";
  if (std::holds_alternative<planar::Segment<double>>(shape)) {
    if (r.t <= 0) return "end A";
    if (r.t >= 1) return "end B";
    return "interior";
  }
  if (std::holds_alternative<planar::Circle<double>>(shape)) return "rim";
  if (std::holds_alternative<planar::Capsule<double>>(shape)) {
    if (r.t <= 0) return "cap A";
    if (r.t >= 1) return "cap B";
    return "side";
  }
  if (r.edge < 0) return "outline";
  const std::size_t n = corner_count(shape);
  const bool box = std::holds_alternative<Box<double, 2>>(shape);
  static const char* const box_edges[] = {"top edge", "right edge", "bottom edge", "left edge"};
  static const char* const box_corners[] = {"top-left corner", "top-right corner",
                                            "bottom-right corner", "bottom-left corner"};
  const std::size_t e = static_cast<std::size_t>(r.edge);
  const bool open = std::holds_alternative<planar::Polyline<double>>(shape);
  if (r.t <= 0 || r.t >= 1) {
    const std::size_t k = r.t <= 0 ? e : (open ? e + 1 : (e + 1) % n);
    if (box) return box_corners[k % 4];
    return fmt::format("corner {}", k);
  }
  if (box) return box_edges[e % 4];
  return fmt::format("edge {}", e);
}

struct ShapeAnswer {
  planar::ClosestResult<double> closest;
  std::string feature;
  std::optional<double> signed_d;
  double distance = 0;
  double raw_t = 0;  // segment: fraction before the clamp
};

class Magnet {
 public:
  Magnet(planar::Scene scene, gui::Window& window, double scale, bool readout)
      : scene_(std::move(scene)), window_(window), scale_(scale), readout_(readout) {}

  bool handle(const gui::Input& in) {
    switch (in.kind) {
      case gui::Input::quit: return false;
      case gui::Input::move: {
        const Vec2d m = to_scene(in.x, in.y);
        if (dragging_ >= 0) {
          translate(scene_.shapes[static_cast<std::size_t>(dragging_)], m - mouse_);
          field_dirty_ = true;
        }
        mouse_ = m;
        break;
      }
      case gui::Input::down:
        mouse_ = to_scene(in.x, in.y);
        if (in.button == SDL_BUTTON_LEFT) dragging_ = pick(mouse_);
        break;
      case gui::Input::up:
        mouse_ = to_scene(in.x, in.y);
        if (in.button == SDL_BUTTON_LEFT && dragging_ >= 0) {
          dragging_ = -1;
          field_dirty_ = true;
        }
        break;
      case gui::Input::key:
        switch (in.keycode) {
          case SDLK_ESCAPE:
          case SDLK_q: return false;
          case SDLK_s:
            part_ = part_ == Part::boundary ? Part::solid : Part::boundary;
            field_dirty_ = true;
            break;
          case SDLK_f: show_field_ = !show_field_; break;
          case SDLK_p:
            if (pinned_) pinned_.reset();
            else pinned_ = mouse_;
            break;
          case SDLK_h: help_ = !help_; break;
          case SDLK_F12:
          case SDLK_w: screenshot_ = gui::screenshot_name("magnet"); break;
          default: break;
        }
        break;
      default: break;
    }
    return true;
  }

  void frame(bool full) {
    window_.clear(kBackground);
    if (show_field_) draw_field(full || dragging_ < 0);
    else draw_grid();
    const Vec2d p = probe();
    // The shapes.
    for (std::size_t i = 0; i < scene_.shapes.size(); ++i) {
      const auto [pts, closed] = outline(scene_.shapes[i]);
      std::vector<Vec2d> s;
      for (const Vec2d& q : pts) s.push_back(to_screen(q));
      window_.polyline(s, closed, static_cast<int>(i) == dragging_ ? kDragged : kBlue);
      if (const auto* seg = std::get_if<planar::Segment<double>>(&scene_.shapes[i])) {
        const Vec2d a = to_screen(seg->a), b = to_screen(seg->b);
        window_.text("A", a[0] - 20, a[1] - 10, kBlue);
        window_.text("B", b[0] + 10, b[1] - 10, kBlue);
      }
    }
    // Every shape's closest point to P.
    answers_.clear();
    for (const Shape& shape : scene_.shapes) answers_.push_back(answer(p, shape));
    const Vec2d ps = to_screen(p);
    for (const ShapeAnswer& a : answers_) show_closest(ps, to_screen(a.closest.point), a.distance);
    // P as a cross.
    const Color cross = pinned_ ? kAmber : kText;
    window_.line(ps[0] - 7, ps[1], ps[0] + 7, ps[1], cross);
    window_.line(ps[0], ps[1] - 7, ps[0], ps[1] + 7, cross);
    window_.text(pinned_ ? "P (pinned)" : "P", ps[0] + 8, ps[1] + 2, cross);
    draw_readout(p);
    if (help_) draw_help();
    if (!screenshot_.empty()) {
      window_.save_png(screenshot_);
      screenshot_.clear();
    }
    if (readout_) print_readout(p);
  }

  bool busy() const { return show_field_ && field_coarse_; }

 private:
  planar::Scene scene_;
  gui::Window& window_;
  double scale_;
  bool readout_;
  Vec2d mouse_{-1e4, -1e4};
  std::optional<Vec2d> pinned_;
  Part part_ = Part::boundary;
  bool show_field_ = false, help_ = false;
  int dragging_ = -1;
  bool field_dirty_ = true, field_coarse_ = false;
  Image field_;
  std::string screenshot_;
  std::vector<ShapeAnswer> answers_;
  std::string last_readout_;

  // Window pixel (x, y) is scene point scale * (x, y), as in `prox field2d` (the seed's screen at scale 1).
  Vec2d to_scene(int x, int y) const { return Vec2d{x * scale_, y * scale_}; }
  Vec2d to_screen(const Vec2d& p) const { return Vec2d{p[0] / scale_, p[1] / scale_}; }
  Vec2d probe() const { return pinned_ ? *pinned_ : mouse_; }

  /// The shape under the mouse: inside it, or within 8 pixels of its outline (nearest wins).
  int pick(const Vec2d& m) const {
    int best = -1;
    double best_d = 8 * scale_;
    for (std::size_t i = 0; i < scene_.shapes.size(); ++i) {
      const Shape& s = scene_.shapes[i];
      const double d = std::sqrt(planar::closest(m, s, Part::boundary).sq_distance);
      if (d <= best_d || (best < 0 && inside(m, s))) {
        if (d <= best_d) best_d = d;
        best = static_cast<int>(i);
      }
    }
    return best;
  }

  ShapeAnswer answer(const Vec2d& p, const Shape& shape) const {
    ShapeAnswer a;
    a.closest = planar::closest(p, shape, part_);
    a.distance = std::sqrt(a.closest.sq_distance);
    a.feature = feature_name(shape, a.closest, part_);
    a.signed_d = signed_distance(p, shape);
    if (const auto* seg = std::get_if<planar::Segment<double>>(&shape)) {
      const Vec2d ab = seg->b - seg->a;
      const double len_sq = dot(ab, ab);
      a.raw_t = len_sq > 0 ? dot(p - seg->a, ab) / len_sq : 0.0;
    }
    return a;
  }

  void show_closest(const Vec2d& mouse, const Vec2d& closest, double d) {
    window_.line(mouse[0], mouse[1], closest[0], closest[1], kSilver);
    window_.dot(closest[0], closest[1], 5, kAmber);
    const double pixels = dist(mouse, closest);
    const Vec2d away = pixels > 0.5 ? (closest - mouse) / pixels : Vec2d{0, -1};
    const std::string label = std::to_string(std::lround(d));
    const auto [w, h] = window_.text_size(label);
    const Vec2d at = closest + away * 22.0;
    window_.text(label, at[0] - w / 2.0, at[1] - h / 2.0, kAmber);
  }

  void draw_grid() {
    for (int x = 0; x < window_.width(); x += 50) window_.line(x, 0, x, window_.height(), kGrid);
    for (int y = 0; y < window_.height(); y += 50) window_.line(0, y, window_.width(), y, kGrid);
  }

  void draw_field(bool full) {
    if (field_dirty_ || (full && field_coarse_)) {
      const int step = full ? 1 : 4;
      planar::FieldOptions o;
      o.width = (window_.width() + step - 1) / step;
      o.height = (window_.height() + step - 1) / step;
      o.scale = scale_ * step;
      o.part = part_;
      field_ = planar::render_distance_field(scene_, o);
      field_dirty_ = false;
      field_coarse_ = step > 1;
    }
    window_.picture(field_);
  }

  void draw_readout(const Vec2d& p) {
    double y = 10;
    const ShapeAnswer* seg = nullptr;
    for (std::size_t i = 0; i < scene_.shapes.size(); ++i)
      if (std::holds_alternative<planar::Segment<double>>(scene_.shapes[i])) {
        seg = &answers_[i];
        break;
      }
    if (seg) {
      window_.text("segment: t = " + fmt2(seg->raw_t) + ", clamped to " +
                       fmt2(std::clamp(seg->raw_t, 0.0, 1.0)),
                   12, y, kText);
      y += 20;
    }
    window_.text(part_ == Part::solid ? "solid: inside a shape, P is its own closest point"
                                      : "boundaries: inside a shape, P goes to an edge",
                 12, y, kSilver);
    y += 20;
    window_.text(fmt::format("P = ({:.0f}, {:.0f})", p[0], p[1]), 12, y, kGrey);
    // One line per shape, at the top right: kind, distance, feature, signed distance.
    double ry = 10;
    for (std::size_t i = 0; i < answers_.size(); ++i) {
      const ShapeAnswer& a = answers_[i];
      std::string s = a.feature == "inside"
                          ? fmt::format("{} {}: 0.0, P is inside", planar::shape_keyword(scene_.shapes[i]), i)
                          : fmt::format("{} {}: {:.1f} at {}", planar::shape_keyword(scene_.shapes[i]), i,
                                        a.distance, a.feature);
      if (a.signed_d) s += fmt::format(", signed {:.1f}", *a.signed_d);
      const auto [w, h] = window_.text_size(s);
      window_.text(s, window_.width() - 12 - w, ry, kSilver);
      ry += 18;
      (void)h;
    }
    window_.text("[Move] look  [S] solid/boundary  [drag] move a shape  [F] field  [P] pin  [H] help  [Esc] quit",
                 12, window_.height() - 26, kGrey);
  }

  void draw_help() { gui::draw_help(window_, kHelp, 560, Color{10, 12, 16, 225}, kSilver, kText); }

  void print_readout(const Vec2d& p) {
    std::ostringstream s;
    s << fmt::format("magnet probe={:.3f},{:.3f} part={} pinned={}\n", p[0], p[1],
                     part_ == Part::solid ? "solid" : "boundary", pinned_ ? 1 : 0);
    for (std::size_t i = 0; i < answers_.size(); ++i) {
      const ShapeAnswer& a = answers_[i];
      std::string feature = a.feature;
      std::replace(feature.begin(), feature.end(), ' ', '-');
      s << fmt::format("magnet shape={} kind={} point={:.3f},{:.3f} distance={:.3f} edge={} t={:.4f} feature={}",
                       i, planar::shape_keyword(scene_.shapes[i]), a.closest.point[0], a.closest.point[1],
                       a.distance, a.closest.edge, a.closest.t, feature);
      if (a.signed_d) s << fmt::format(" signed={:.3f}", *a.signed_d);
      if (std::holds_alternative<planar::Segment<double>>(scene_.shapes[i]))
        s << fmt::format(" raw_t={:.4f} clamped_t={:.4f}", a.raw_t, std::clamp(a.raw_t, 0.0, 1.0));
      s << "\n";
    }
    gui::print_if_changed(s.str(), last_readout_);
  }
};

}  // namespace

Runner setup_magnet(CLI::App& app) {
  struct Options {
    std::string scene;
    gui::GuiOptions gui;
    double scale = 0;
    bool field = false, solid = false;
  };
  auto o = std::make_shared<Options>();
  app.add_option("SCENE", o->scene, "2D scene file (as `prox field2d` reads); default: seed 004's four shapes");
  gui::add_gui_options(app, o->gui,
                       "print the readout on stdout after every change, one 'magnet shape=...' line per shape");
  app.add_flag("--solid", o->solid, "start with solid shapes (as if S was pressed)");
  app.add_flag("--field", o->field, "start with the distance field shown (as if F was pressed)");
  app.add_option("--scale", o->scale, "scene units per window pixel (default: fit the canvas in 1600x1000)")
      ->check(CLI::PositiveNumber);
  app.add_option("--font", o->gui.font, "TrueType font for the text (default: DejaVu Sans)");
  app.footer("Keys: S solid/boundary, F field, P pin, drag a shape to move it, H help, F12/W screenshot, Esc quit.\n"
             "Example: prox magnet --script steps.txt --screenshot magnet.png");
  return [o]() {
    const std::vector<gui::Input> script = gui::check_gui_options(o->gui);
    planar::Scene scene = o->scene.empty() ? planar::default_scene() : planar::load_scene(o->scene);
    for (const Shape& s : scene.shapes) (void)planar::closest(Vec2d{0, 0}, s, Part::boundary);  // validates
    const double scale = o->scale > 0 ? o->scale
                                      : std::max({1.0, scene.width / 1600.0, scene.height / 1000.0});
    gui::WindowOptions w;
    w.title = o->scene.empty() ? std::string("prox magnet") : "prox magnet: " + o->scene;
    w.width = std::max(64, static_cast<int>(std::lround(scene.width / scale)));
    w.height = std::max(64, static_cast<int>(std::lround(scene.height / scale)));
    w.font = o->gui.font;
    w.hidden = o->gui.hidden;
    gui::Window window(w);
    Magnet magnet(std::move(scene), window, scale, o->gui.readout);
    for (const auto& [on, key] : {std::pair{o->solid, SDLK_s}, std::pair{o->field, SDLK_f}}) {
      if (!on) continue;
      gui::Input press;
      press.kind = gui::Input::key;
      press.keycode = key;
      magnet.handle(press);
    }
    gui::run_app(window, magnet, script, o->gui);
    return 0;
  };
}

}  // namespace prox::cli
