// apps/commands/view.cpp — `prox view MESH`: the mesh ray-cast by prox in an SDL2 window,
// with picking (seed 002: the ray through the mouse finds the triangle under it)
// and a probe point's closest point and signed distance.
//
// The picture is render_mesh (apps/render.hpp, the `prox render` modes) for a
// camera orbiting the mesh; the first frame's camera is exactly make_camera's
// (the view of `prox render --view`), so a pixel's ray is the one
// `prox render` casts. Progressive: while the mouse drags or the wheel turns, a
// quarter-size picture is cast and stretched; once still, the full one.
// Picking casts the ray through the mouse pixel's centre with
// MeshIndex::first_hit. --readout prints "view pick ..." and "view probe ..."
// lines on stdout after every change, for tests and scripts.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <numbers>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "gui/window.hpp"
#include "prox/mesh/sign.hpp"
#include "render.hpp"

namespace prox::cli {
namespace {

using gui::Color;

constexpr Color kText{235, 238, 242};
constexpr Color kGrey{150, 158, 170};
constexpr Color kPanel{10, 12, 16, 200};
constexpr Color kHighlight{255, 220, 0, 140};
constexpr Color kHighlightEdge{255, 220, 0};
constexpr Color kAmber{232, 89, 12};
constexpr Color kProbe{80, 220, 255};

const std::pair<const char*, const char*> kHelp[] = {
    {"mouse over the mesh", "pick: the triangle under it, its t, barycentrics, face"},
    {"left drag", "orbit"},
    {"right / middle drag", "pan (also Shift + left drag)"},
    {"wheel", "zoom"},
    {"click", "place the probe on the surface (off the mesh: remove it)"},
    {"Shift+wheel, [ ]", "move the probe along the normal"},
    {"1 2 3 4 or M", "normals, depth, triangle ids, distance slice"},
    {"R", "reset the view"},
    {"F12 or W", "screenshot (PNG in the current folder)"},
    {"H", "this help"},
    {"Esc or Q", "quit"},
};

Vec3d unit(const Vec3d& v) { return v / std::sqrt(squared_norm(v)); }

std::string v3(const Vec3d& v) { return fmt::format("{:.6g},{:.6g},{:.6g}", v[0], v[1], v[2]); }
std::string v3s(const Vec3d& v) { return fmt::format("({:.4g}, {:.4g}, {:.4g})", v[0], v[1], v[2]); }

struct Probe {
  Vec3d base, normal;
  double offset = 0;
  std::int32_t triangle = -1;
  Vec3d point() const { return base + normal * offset; }
};

struct Stats {
  int full = 0, coarse = 0;
  double full_ms = 0, coarse_ms = 0;
};

class Viewer {
 public:
  Viewer(const MeshIndex<double>& index, std::string name, gui::Window& window, Vec3d view,
         RenderMode mode, int threads, bool readout)
      : index_(index), name_(std::move(name)), window_(window), view0_(view), mode_(mode),
        threads_(threads), readout_(readout) {
    bounds_ = index_.mesh().bounds();
    reset();
  }

  bool handle(const gui::Input& in) {
    switch (in.kind) {
      case gui::Input::quit: return false;
      case gui::Input::move: {
        const int dx = in.x - mx_, dy = in.y - my_;
        mx_ = in.x, my_ = in.y;
        if (button_ != 0) {
          if (std::abs(in.x - down_x_) + std::abs(in.y - down_y_) > 3) dragged_ = true;
          if (button_ == SDL_BUTTON_LEFT && !pan_drag_) orbit(dx, dy);
          else pan(dx, dy);
        }
        break;
      }
      case gui::Input::down:
        mx_ = in.x, my_ = in.y;
        if (button_ == 0) {
          button_ = in.button;
          pan_drag_ = in.shift;
          down_x_ = in.x, down_y_ = in.y;
          dragged_ = false;
        }
        break;
      case gui::Input::up:
        mx_ = in.x, my_ = in.y;
        if (in.button == button_) {
          if (button_ == SDL_BUTTON_LEFT && !dragged_) place_probe();
          button_ = 0;
        }
        break;
      case gui::Input::scroll:
        if (in.shift) move_probe(in.wheel);
        else {
          dist_ *= std::pow(0.88, in.wheel);
          stale_ = true, moving_ = true;
        }
        break;
      case gui::Input::key:
        switch (in.keycode) {
          case SDLK_ESCAPE:
          case SDLK_q: return false;
          case SDLK_1: set_mode(RenderMode::normal); break;
          case SDLK_2: set_mode(RenderMode::depth); break;
          case SDLK_3: set_mode(RenderMode::id); break;
          case SDLK_4: set_mode(RenderMode::distance); break;
          case SDLK_m: {
            const RenderMode next[] = {RenderMode::depth, RenderMode::id, RenderMode::distance,
                                       RenderMode::normal};
            set_mode(mode_ == RenderMode::normal ? next[0]
                     : mode_ == RenderMode::depth ? next[1]
                     : mode_ == RenderMode::id    ? next[2]
                                                  : next[3]);
            break;
          }
          case SDLK_r: reset(); break;
          case SDLK_LEFTBRACKET: move_probe(-1); break;
          case SDLK_RIGHTBRACKET: move_probe(1); break;
          case SDLK_h: help_ = !help_; break;
          case SDLK_F12:
          case SDLK_w: screenshot_ = gui::screenshot_name("view"); break;
          default: break;
        }
        break;
      default: break;
    }
    return true;
  }

  void frame(bool full) {
    if (stale_ || (full && coarse_)) {
      const bool quick = !full && moving_;
      render(quick);
    }
    moving_ = false;
    window_.picture(picture_);
    const Camera cam = camera(window_.width(), window_.height());
    // Picking: the ray through the mouse pixel's centre.
    pick_ = MeshRayHit<double>{};
    if (mx_ >= 0 && my_ >= 0 && mx_ < window_.width() && my_ < window_.height()) {
      pick_ = index_.first_hit(cam.ray(mx_, my_));
    }
    if (pick_.found()) {
      const std::size_t t = static_cast<std::size_t>(pick_.triangle);
      const Vec3d a = index_.mesh().corner(t, 0), b = index_.mesh().corner(t, 1), c = index_.mesh().corner(t, 2);
      const auto pa = project(cam, a), pb = project(cam, b), pc = project(cam, c);
      if (pa && pb && pc) {
        window_.triangle(*pa, *pb, *pc, kHighlight);
        window_.polyline({*pa, *pb, *pc}, true, kHighlightEdge);
      }
    }
    if (probe_) draw_probe(cam);
    draw_readout();
    if (help_) draw_help();
    if (!screenshot_.empty()) {
      window_.save_png(screenshot_);
      screenshot_.clear();
    }
    if (readout_) print_readout(cam);
  }

  bool busy() const { return coarse_; }

  /// Renders `frames` full pictures orbiting once around the mesh, then as many coarse
  /// (quarter-size) ones; returns {ms per full frame, ms per coarse frame}.
  std::pair<double, double> bench(int frames) {
    double ms[2] = {0, 0};
    for (int quick = 0; quick < 2; ++quick) {
      Timer timer;
      for (int i = 0; i < frames; ++i) {
        orbit(static_cast<int>(std::lround(628.0 / frames)), 0);
        render(quick == 1);
        window_.picture(picture_);
        window_.present();
      }
      ms[quick] = timer.ms() / std::max(1, frames);
    }
    return {ms[0], ms[1]};
  }

  const Stats& stats() const { return stats_; }

  SignedClosestPoint<double> signed_query(const Vec3d& p) const {
    if (!signed_) signed_ = std::make_unique<SignedMesh<MeshIndex<double>>>(index_, SignOptions{SignMethod::winding});
    return signed_->query(p);
  }

 private:
  const MeshIndex<double>& index_;
  // The probe's sign: the certified winding number (SignedMesh, built on the
  // first probe; its confidence is what the readout shows).
  mutable std::unique_ptr<SignedMesh<MeshIndex<double>>> signed_;
  std::string name_;
  gui::Window& window_;
  Vec3d view0_;
  RenderMode mode_;
  int threads_;
  bool readout_;
  Box3<double> bounds_;
  Vec3d target_{0, 0, 0}, dir_{0, 0, 1};
  double dist_ = 1, diag_ = 1;
  Image picture_;
  bool stale_ = true, coarse_ = false, moving_ = false, help_ = false;
  int mx_ = -1, my_ = -1, button_ = 0, down_x_ = 0, down_y_ = 0;
  bool dragged_ = false, pan_drag_ = false;
  MeshRayHit<double> pick_;
  std::optional<Probe> probe_;
  std::string screenshot_, last_readout_;
  double last_ms_ = 0;
  Stats stats_;

  void reset() {
    const bool empty = bounds_.is_empty();
    target_ = empty ? Vec3d::zero() : bounds_.center();
    diag_ = empty ? 1.0 : std::sqrt(squared_norm(bounds_.diagonal()));
    if (!(diag_ > 0)) diag_ = 1.0;
    dist_ = diag_;
    dir_ = view0_;
    stale_ = true;
  }

  Camera camera(int w, int h) const { return look_at(target_, dir_, dist_, w, h); }

  void set_mode(RenderMode m) {
    if (m != mode_) mode_ = m, stale_ = true;
  }

  void render(bool quick) {
    const int w = quick ? std::max(1, window_.width() / 4) : window_.width();
    const int h = quick ? std::max(1, window_.height() / 4) : window_.height();
    RenderStats rs;
    picture_ = render_mesh(index_, camera(w, h), mode_, threads_, &rs);
    last_ms_ = rs.ms;
    if (quick) ++stats_.coarse, stats_.coarse_ms += rs.ms;
    else ++stats_.full, stats_.full_ms += rs.ms;
    coarse_ = quick;
    stale_ = false;
  }

  /// Turns the eye about the world's up axis (x drag) and the camera's right axis (y drag).
  void orbit(int dx, int dy) {
    const Vec3d d = unit(dir_);
    double yaw = std::atan2(d[0], d[2]);
    double pitch = std::asin(std::clamp(d[1], -1.0, 1.0));
    yaw -= dx * 0.01;
    pitch = std::clamp(pitch + dy * 0.01, -1.55, 1.55);
    dir_ = Vec3d{std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw)};
    stale_ = true, moving_ = true;
  }

  void pan(int dx, int dy) {
    const Camera c = camera(window_.width(), window_.height());
    // One pixel at the focus distance, along the camera's right and up.
    const double px = 2.0 * dist_ / window_.height() * std::sqrt(squared_norm(c.up));
    target_ = target_ - unit(c.right) * (dx * px) + unit(c.up) * (dy * px);
    stale_ = true, moving_ = true;
  }

  /// Window position of a 3D point (nullopt behind the eye).
  static std::optional<Vec2d> project(const Camera& c, const Vec3d& p) {
    const Vec3d d = p - c.eye;
    const double z = dot(d, c.forward);
    if (!(z > 1e-12)) return std::nullopt;
    const double sx = dot(d, c.right) / (squared_norm(c.right) * z);
    const double sy = dot(d, c.up) / (squared_norm(c.up) * z);
    return Vec2d{(sx + 1) * 0.5 * c.width, (1 - sy) * 0.5 * c.height};
  }

  void place_probe() {
    const Camera cam = camera(window_.width(), window_.height());
    const MeshRayHit<double> h = index_.first_hit(cam.ray(mx_, my_));
    if (!h.found()) {
      probe_.reset();
      return;
    }
    const std::size_t t = static_cast<std::size_t>(h.triangle);
    const Vec3d a = index_.mesh().corner(t, 0);
    Vec3d n = cross(index_.mesh().corner(t, 1) - a, index_.mesh().corner(t, 2) - a);
    const double len = std::sqrt(squared_norm(n));
    n = len > 0 ? n / len : Vec3d{0, 0, 1};
    const Ray<double> r = cam.ray(mx_, my_);
    probe_ = Probe{r.at(h.t), n, 0.0, h.triangle};
  }

  void move_probe(int notches) {
    if (probe_) probe_->offset += notches * diag_ / 200;
  }

  void draw_probe(const Camera& cam) {
    const Vec3d p = probe_->point();
    const MeshClosestPoint<double> cp = index_.closest_point(p);
    const auto sp = project(cam, p);
    const auto sc = cp.found() ? project(cam, cp.point) : std::nullopt;
    if (sp && sc) window_.line((*sp)[0], (*sp)[1], (*sc)[0], (*sc)[1], kText);
    if (sc) window_.dot((*sc)[0], (*sc)[1], 4, kAmber);
    if (sp) {
      window_.dot((*sp)[0], (*sp)[1], 5, Color{0, 0, 0});
      window_.dot((*sp)[0], (*sp)[1], 4, kProbe);
    }
  }

  std::vector<std::string> readout_lines() const {
    std::vector<std::string> lines;
    lines.push_back(fmt::format("{}: {} triangles, mode {}, {:.0f} ms/frame{}", name_,
                                index_.mesh().num_triangles(), to_string(mode_), last_ms_,
                                coarse_ ? " (coarse)" : ""));
    if (pick_.found()) {
      const Vec3d b = pick_.bary();
      const Vec3d hit = camera(window_.width(), window_.height()).ray(mx_, my_).at(pick_.t);
      lines.push_back(fmt::format("pick: triangle {}  t {:.6g}  {} face", pick_.triangle, pick_.t,
                                  pick_.front_face ? "front" : "back"));
      lines.push_back(fmt::format("      bary ({:.4f}, {:.4f}, {:.4f})  hit {}", b[0], b[1], b[2], v3s(hit)));
    } else {
      lines.push_back("pick: nothing under the mouse");
    }
    if (probe_) {
      const Vec3d p = probe_->point();
      const MeshClosestPoint<double> cp = index_.closest_point(p);
      const SignedClosestPoint<double> sd = signed_query(p);
      lines.push_back(fmt::format("probe {} (offset {:.4g} along triangle {}'s normal)", v3s(p),
                                  probe_->offset, probe_->triangle));
      lines.push_back(fmt::format("      closest {} on triangle {}: distance {:.6g}", v3s(cp.point),
                                  cp.triangle, std::sqrt(cp.sq_distance)));
      lines.push_back(fmt::format("      signed {:.6g} (winding number {:.4f}: sign {})", sd.signed_distance,
                                  sd.winding_number, to_string(sd.confidence)));
    }
    return lines;
  }

  void draw_readout() {
    const std::vector<std::string> lines = readout_lines();
    double w = 0;
    for (const std::string& l : lines) w = std::max(w, static_cast<double>(window_.text_size(l).first));
    window_.rect(6, 6, w + 14, 8 + 18.0 * lines.size(), kPanel, true);
    double y = 10;
    for (const std::string& l : lines) {
      window_.text(l, 13, y, kText);
      y += 18;
    }
    window_.text("[drag] orbit  [right drag] pan  [wheel] zoom  [click] probe  [1-4] mode  [H] help",
                 12, window_.height() - 24, kGrey);
  }

  void draw_help() { gui::draw_help(window_, kHelp, 600, Color{10, 12, 16, 230}, kGrey, kText); }

  void print_readout(const Camera& cam) {
    std::ostringstream s;
    if (pick_.found()) {
      const Vec3d b = pick_.bary();
      s << fmt::format("view pick x={} y={} triangle={} t={:.9g} bary={} hit={} face={}\n", mx_, my_,
                       pick_.triangle, pick_.t, v3(b), v3(cam.ray(mx_, my_).at(pick_.t)),
                       pick_.front_face ? "front" : "back");
    } else {
      s << fmt::format("view pick x={} y={} triangle=-1\n", mx_, my_);
    }
    if (probe_) {
      const Vec3d p = probe_->point();
      const MeshClosestPoint<double> cp = index_.closest_point(p);
      const SignedClosestPoint<double> sd = signed_query(p);
      s << fmt::format("view probe point={} offset={:.9g} closest={} triangle={} distance={:.9g} signed={:.9g} winding={:.6f} sign={}\n",
                       v3(p), probe_->offset, v3(cp.point), cp.triangle, std::sqrt(cp.sq_distance),
                       sd.signed_distance, sd.winding_number, to_string(sd.confidence));
    }
    gui::print_if_changed(s.str(), last_readout_);
  }
};

}  // namespace

Runner setup_view(CLI::App& app) {
  struct Options {
    std::string mesh, mode = "normal", view = "+z", size = "800x600";
    gui::GuiOptions gui;
    bool stats = false;
    int threads = 0, bench = 0;
  };
  auto o = std::make_shared<Options>();
  app.add_option("MESH", o->mesh, "mesh file (OBJ, OFF, STL, PLY)")->required();
  app.add_option("--mode", o->mode, "first picture: normal, depth, id or distance")->capture_default_str();
  app.add_option("--view", o->view, "first direction from the mesh's centre to the eye (as prox render)")
      ->capture_default_str();
  app.add_option("--size", o->size, "window size WIDTHxHEIGHT")->capture_default_str();
  gui::add_gui_options(app, o->gui,
                       "print 'view pick ...' / 'view probe ...' lines on stdout after every change");
  app.add_flag("--stats", o->stats, "at exit, print frames drawn and their mean time on stderr");
  app.add_option("--bench", o->bench, "render N full frames orbiting the mesh, print frames/s, exit")
      ->check(CLI::PositiveNumber);
  app.add_option("--font", o->gui.font, "TrueType font for the text (default: DejaVu Sans)");
  add_threads_option(app, o->threads);
  app.footer("Keys: 1-4 mode, R reset, [ ] probe offset, H help, F12/W screenshot, Esc quit.\n"
             "Example: prox view bunny.obj");
  return [o]() {
    const RenderMode mode = parse_render_mode(o->mode);
    const Vec3d view = parse_view(o->view);
    const auto [w, h] = parse_size(o->size);
    const std::vector<gui::Input> script = gui::check_gui_options(o->gui, "--bench", o->bench > 0);
    const LoadedMesh loaded = load_mesh(o->mesh, o->threads);
    gui::WindowOptions wo;
    const std::string name = std::filesystem::path(o->mesh).filename().string();
    wo.title = "prox view: " + name;
    wo.width = w, wo.height = h;
    wo.font = o->gui.font;
    wo.hidden = o->gui.hidden;
    gui::Window window(wo);
    Viewer viewer(*loaded.index, name, window, view, mode, o->threads, o->gui.readout);
    if (o->bench > 0) {
      const auto [full, coarse] = viewer.bench(o->bench);
      std::cout << fmt::format("view bench mesh={} triangles={} size={}x{} mode={} frames={} ms_per_frame={:.2f} "
                               "fps={:.2f} coarse_ms={:.2f} coarse_fps={:.2f}\n",
                               name, loaded.triangles, w, h, to_string(mode), o->bench, full, 1000.0 / full,
                               coarse, 1000.0 / coarse);
      return 0;
    }
    gui::run_app(window, viewer, script, o->gui);
    if (o->stats) {
      const Stats& s = viewer.stats();
      std::cerr << fmt::format("prox view: {} full frames ({}x{}) {:.1f} ms mean ({:.1f} fps); {} coarse frames {:.1f} ms mean\n",
                               s.full, w, h, s.full ? s.full_ms / s.full : 0.0,
                               s.full ? 1000.0 * s.full / s.full_ms : 0.0, s.coarse,
                               s.coarse ? s.coarse_ms / s.coarse : 0.0);
    }
    return 0;
  };
}

}  // namespace prox::cli
