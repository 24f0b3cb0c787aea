// apps/gui/window.cpp — the SDL2 window, its drawing and its input (see window.hpp).
#include "gui/window.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "command.hpp"
#include "common.hpp"
#include "prox/image/png.hpp"

#ifndef PROX_DEFAULT_FONT
#define PROX_DEFAULT_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
#endif

namespace prox::cli::gui {
namespace {

[[noreturn]] void sdl_fail(const std::string& what) {
  throw std::runtime_error(what + ": " + SDL_GetError());
}

int parse_button(const std::string& s, const std::string& where) {
  if (s == "left") return SDL_BUTTON_LEFT;
  if (s == "right") return SDL_BUTTON_RIGHT;
  if (s == "middle") return SDL_BUTTON_MIDDLE;
  throw std::runtime_error(where + ": button must be left, right or middle, not '" + s + "'");
}

}  // namespace

std::vector<Input> load_script(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot open the script");
  std::vector<Input> steps;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = path.string() + ":" + std::to_string(number);
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (w.empty()) continue;
    auto number_at = [&](std::size_t i) {
      if (i >= w.size()) throw std::runtime_error(where + ": '" + w[0] + "' needs more numbers");
      try {
        std::size_t used = 0;
        const int v = std::stoi(w[i], &used);
        if (used != w[i].size()) throw std::invalid_argument("junk");
        return v;
      } catch (const std::exception&) {
        throw std::runtime_error(where + ": bad number '" + w[i] + "'");
      }
    };
    auto too_many = [&](std::size_t n) {
      if (w.size() > n) throw std::runtime_error(where + ": too many words after '" + w[0] + "'");
    };
    Input in_step;
    in_step.scripted = true;
    const std::string& op = w[0];
    if (op == "move" || op == "down" || op == "up" || op == "click") {
      in_step.x = number_at(1);
      in_step.y = number_at(2);
      if (w.size() > 3) in_step.button = parse_button(w[3], where);
      too_many(4);
      if (op == "move") {
        in_step.kind = Input::move;
        steps.push_back(in_step);
      } else if (op == "down" || op == "up") {
        Input m = in_step;
        m.kind = Input::move;
        steps.push_back(m);
        in_step.kind = op == "down" ? Input::down : Input::up;
        steps.push_back(in_step);
      } else {
        Input m = in_step;
        m.kind = Input::move;
        steps.push_back(m);
        in_step.kind = Input::down;
        steps.push_back(in_step);
        in_step.kind = Input::up;
        steps.push_back(in_step);
      }
    } else if (op == "drag") {
      const int x0 = number_at(1), y0 = number_at(2), x1 = number_at(3), y1 = number_at(4);
      int button = SDL_BUTTON_LEFT, moves = 8;
      std::size_t i = 5;
      if (i < w.size() && !std::isdigit(static_cast<unsigned char>(w[i][0]))) button = parse_button(w[i++], where);
      if (i < w.size()) moves = std::max(1, number_at(i++));
      too_many(i);
      Input s = in_step;
      s.button = button;
      s.kind = Input::move, s.x = x0, s.y = y0;
      steps.push_back(s);
      s.kind = Input::down;
      steps.push_back(s);
      for (int k = 1; k <= moves; ++k) {
        s.kind = Input::move;
        s.x = x0 + (x1 - x0) * k / moves;
        s.y = y0 + (y1 - y0) * k / moves;
        steps.push_back(s);
      }
      s.kind = Input::up;
      steps.push_back(s);
    } else if (op == "wheel") {
      in_step.kind = Input::scroll;
      in_step.wheel = number_at(1);
      if (w.size() > 2) {
        if (w[2] != "shift") throw std::runtime_error(where + ": expected 'shift', not '" + w[2] + "'");
        in_step.shift = true;
      }
      too_many(3);
      steps.push_back(in_step);
    } else if (op == "key") {
      if (w.size() < 2) throw std::runtime_error(where + ": 'key' needs a key name");
      in_step.kind = Input::key;
      in_step.keycode = SDL_GetKeyFromName(w[1].c_str());
      if (in_step.keycode == SDLK_UNKNOWN) throw std::runtime_error(where + ": unknown key '" + w[1] + "'");
      if (w.size() > 2) {
        if (w[2] != "shift") throw std::runtime_error(where + ": expected 'shift', not '" + w[2] + "'");
        in_step.shift = true;
      }
      too_many(3);
      steps.push_back(in_step);
    } else if (op == "wait") {
      in_step.kind = Input::wait;
      in_step.ms = number_at(1);
      if (in_step.ms < 0) throw std::runtime_error(where + ": wait needs a time >= 0 ms");
      too_many(2);
      steps.push_back(in_step);
    } else if (op == "screenshot") {
      if (w.size() != 2) throw std::runtime_error(where + ": 'screenshot' needs one .png path");
      in_step.kind = Input::screenshot;
      in_step.path = w[1];
      steps.push_back(in_step);
    } else if (op == "quit") {
      too_many(1);
      in_step.kind = Input::quit;
      steps.push_back(in_step);
    } else {
      throw std::runtime_error(where + ": unknown step '" + op +
                               "' (move, down, up, click, drag, wheel, key, wait, screenshot, quit)");
    }
  }
  return steps;
}

Window::Window(const WindowOptions& o) : width_(o.width), height_(o.height) {
  if (o.hidden) SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    sdl_fail(o.hidden ? "cannot start SDL's offscreen video" : "cannot open a window (is DISPLAY set?)");
  }
  if (!o.hidden) {
    // SDL falls back to its offscreen driver when there is no display: a window
    // nobody can see, waiting forever. Say so instead.
    const std::string driver = SDL_GetCurrentVideoDriver() ? SDL_GetCurrentVideoDriver() : "";
    if (driver == "offscreen" || driver == "dummy" || driver == "evdev") {
      SDL_Quit();
      throw std::runtime_error("no display to open a window on (DISPLAY or WAYLAND_DISPLAY unset?); "
                               "--hidden with --script or --screenshot runs without one");
    }
  }
  if (TTF_Init() != 0) sdl_fail("cannot start SDL_ttf");
  // The software renderer draws the same pixels on every machine (tests read them).
  SDL_SetHint(SDL_HINT_RENDER_DRIVER, "software");
  window_ = SDL_CreateWindow(o.title.c_str(), 0, 0, width_, height_,
                             o.hidden ? SDL_WINDOW_HIDDEN : SDL_WINDOW_SHOWN);
  if (!window_) sdl_fail("cannot create the window");
  renderer_ = SDL_CreateRenderer(window_, -1, SDL_RENDERER_SOFTWARE);
  if (!renderer_) sdl_fail("cannot create the renderer");
  SDL_SetRenderDrawBlendMode(renderer_, SDL_BLENDMODE_BLEND);
  const std::string font = o.font.empty() ? PROX_DEFAULT_FONT : o.font;
  font_ = TTF_OpenFont(font.c_str(), o.font_size);
  if (!font_) {
    if (!o.font.empty()) throw std::runtime_error("--font: cannot open '" + o.font + "': " + TTF_GetError());
    std::cerr << "prox: no font at " << font << " (install fonts-dejavu-core); drawing without text\n";
  }
}

Window::~Window() {
  if (picture_) SDL_DestroyTexture(picture_);
  if (font_) TTF_CloseFont(font_);
  if (renderer_) SDL_DestroyRenderer(renderer_);
  if (window_) SDL_DestroyWindow(window_);
  TTF_Quit();
  SDL_Quit();
}

std::uint32_t Window::id() const { return SDL_GetWindowID(window_); }

bool Window::next_event(Input& input, int timeout_ms) {
  SDL_Event e;
  while (SDL_WaitEventTimeout(&e, timeout_ms)) {
    timeout_ms = 0;
    input = Input{};
    input.shift = (SDL_GetModState() & KMOD_SHIFT) != 0;
    switch (e.type) {
      case SDL_QUIT: input.kind = Input::quit; return true;
      case SDL_MOUSEMOTION:
        input.kind = Input::move, input.x = e.motion.x, input.y = e.motion.y;
        return true;
      case SDL_MOUSEBUTTONDOWN:
      case SDL_MOUSEBUTTONUP:
        input.kind = e.type == SDL_MOUSEBUTTONDOWN ? Input::down : Input::up;
        input.x = e.button.x, input.y = e.button.y, input.button = e.button.button;
        return true;
      case SDL_MOUSEWHEEL:
        input.kind = Input::scroll;
        input.wheel = e.wheel.y * (e.wheel.direction == SDL_MOUSEWHEEL_FLIPPED ? -1 : 1);
        if (input.wheel == 0) break;
        return true;
      case SDL_KEYDOWN:
        input.kind = Input::key, input.keycode = e.key.keysym.sym;
        input.shift = (e.key.keysym.mod & KMOD_SHIFT) != 0;
        return true;
      case SDL_WINDOWEVENT:
        if (e.window.event == SDL_WINDOWEVENT_EXPOSED) {
          input.kind = Input::wait;  // nothing changed: just draw again
          return true;
        }
        break;
      default: break;
    }
  }
  return false;
}

void Window::set(Color c) { SDL_SetRenderDrawColor(renderer_, c.r, c.g, c.b, c.a); }

void Window::clear(Color c) {
  SDL_SetRenderDrawBlendMode(renderer_, SDL_BLENDMODE_NONE);
  set(c);
  SDL_RenderClear(renderer_);
  SDL_SetRenderDrawBlendMode(renderer_, SDL_BLENDMODE_BLEND);
}

void Window::line(double x0, double y0, double x1, double y1, Color c) {
  if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(x1) || !std::isfinite(y1)) return;
  // Clip far-away ends (SDL's integer rasteriser misbehaves on huge coordinates).
  const double lim = 1e5;
  if (std::abs(x0) > lim || std::abs(y0) > lim || std::abs(x1) > lim || std::abs(y1) > lim) return;
  set(c);
  SDL_RenderDrawLineF(renderer_, static_cast<float>(x0), static_cast<float>(y0),
                      static_cast<float>(x1), static_cast<float>(y1));
}

void Window::polyline(const std::vector<Vec2d>& p, bool closed, Color c) {
  for (std::size_t i = 0; i + 1 < p.size(); ++i) line(p[i][0], p[i][1], p[i + 1][0], p[i + 1][1], c);
  if (closed && p.size() > 2) line(p.back()[0], p.back()[1], p[0][0], p[0][1], c);
}

void Window::dot(double x, double y, double r, Color c) {
  if (!std::isfinite(x) || !std::isfinite(y)) return;
  set(c);
  const int cx = static_cast<int>(std::lround(x)), cy = static_cast<int>(std::lround(y));
  const int ri = static_cast<int>(std::ceil(r));
  for (int dy = -ri; dy <= ri; ++dy) {
    const double half = std::sqrt(std::max(0.0, r * r - dy * dy));
    const int hw = static_cast<int>(std::floor(half + 0.5));
    SDL_RenderDrawLine(renderer_, cx - hw, cy + dy, cx + hw, cy + dy);
  }
}

void Window::circle(double x, double y, double r, Color c) {
  const int n = std::clamp(static_cast<int>(r * 0.8), 24, 256);
  std::vector<Vec2d> p;
  for (int i = 0; i < n; ++i) {
    const double a = 2 * 3.14159265358979323846 * i / n;
    p.push_back(Vec2d{x + r * std::cos(a), y + r * std::sin(a)});
  }
  polyline(p, true, c);
}

void Window::rect(double x, double y, double w, double h, Color c, bool filled) {
  set(c);
  SDL_FRect r{static_cast<float>(x), static_cast<float>(y), static_cast<float>(w), static_cast<float>(h)};
  if (filled) SDL_RenderFillRectF(renderer_, &r);
  else SDL_RenderDrawRectF(renderer_, &r);
}

void Window::triangle(const Vec2d& a, const Vec2d& b, const Vec2d& c, Color fill) {
  SDL_Vertex v[3];
  const Vec2d* p[3] = {&a, &b, &c};
  for (int i = 0; i < 3; ++i) {
    v[i].position = SDL_FPoint{static_cast<float>((*p[i])[0]), static_cast<float>((*p[i])[1])};
    v[i].color = SDL_Color{fill.r, fill.g, fill.b, fill.a};
    v[i].tex_coord = SDL_FPoint{0, 0};
  }
  SDL_RenderGeometry(renderer_, nullptr, v, 3, nullptr, 0);
}

std::pair<int, int> Window::text_size(const std::string& s) const {
  int w = 0, h = 0;
  if (font_ && !s.empty()) TTF_SizeUTF8(font_, s.c_str(), &w, &h);
  return {w, h};
}

int Window::text(const std::string& s, double x, double y, Color c) {
  if (!font_ || s.empty()) return 0;
  SDL_Surface* surface = TTF_RenderUTF8_Blended(font_, s.c_str(), SDL_Color{c.r, c.g, c.b, c.a});
  if (!surface) return 0;
  SDL_Texture* texture = SDL_CreateTextureFromSurface(renderer_, surface);
  const int w = surface->w, h = surface->h;
  SDL_FreeSurface(surface);
  if (!texture) return 0;
  SDL_Rect dst{static_cast<int>(std::lround(x)), static_cast<int>(std::lround(y)), w, h};
  SDL_RenderCopy(renderer_, texture, nullptr, &dst);
  SDL_DestroyTexture(texture);
  return w;
}

void Window::picture(const Image& image) {
  if (image.width <= 0 || image.height <= 0) return;
  if (!picture_ || picture_w_ != image.width || picture_h_ != image.height) {
    if (picture_) SDL_DestroyTexture(picture_);
    picture_ = SDL_CreateTexture(renderer_, SDL_PIXELFORMAT_RGB24, SDL_TEXTUREACCESS_STREAMING,
                                 image.width, image.height);
    if (!picture_) sdl_fail("cannot create a texture");
    SDL_SetTextureBlendMode(picture_, SDL_BLENDMODE_NONE);
    picture_w_ = image.width, picture_h_ = image.height;
  }
  SDL_UpdateTexture(picture_, nullptr, image.pixels.data(), image.width * 3);
  SDL_RenderCopy(renderer_, picture_, nullptr, nullptr);
}

void Window::present() { SDL_RenderPresent(renderer_); }

Image Window::read_pixels() const {
  Image img = make_image(width_, height_);
  if (SDL_RenderReadPixels(renderer_, nullptr, SDL_PIXELFORMAT_RGB24, img.pixels.data(), width_ * 3) != 0) {
    sdl_fail("cannot read the window's pixels");
  }
  return img;
}

void Window::save_png(const std::filesystem::path& path) const {
  write_png(path, read_pixels());
  std::cerr << "prox: wrote " << path.string() << " (" << width_ << "x" << height_ << ")\n";
}

std::string screenshot_name(const std::string& name) {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  return "prox-" + name + "-" + stamp + ".png";
}

void run_loop(Window& window, const std::vector<Input>& script, bool exit_after_script,
              const std::string& final_screenshot, const LoopHooks& hooks) {
  hooks.frame(true);
  window.present();
  for (const Input& step : script) {
    if (step.kind == Input::wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(step.ms));
      hooks.frame(true);
    } else if (step.kind == Input::screenshot) {
      hooks.frame(true);
      window.save_png(step.path);
    } else {
      if (!hooks.handle(step)) return;
      hooks.frame(false);
    }
    window.present();
    // Drain what the window system sent meanwhile (exposure), so it never piles up.
    SDL_PumpEvents();
  }
  if (!script.empty() || !final_screenshot.empty()) {
    hooks.frame(true);
    if (!final_screenshot.empty()) window.save_png(final_screenshot);
    window.present();
    if (exit_after_script) return;
  }
  for (;;) {
    Input input;
    bool any = false;
    const int timeout = hooks.busy && hooks.busy() ? 60 : 250;
    while (window.next_event(input, any ? 0 : timeout)) {
      any = true;
      if (!hooks.handle(input)) return;
    }
    if (any) {
      hooks.frame(false);
      window.present();
    } else if (hooks.busy && hooks.busy()) {
      hooks.frame(true);
      window.present();
    }
  }
}

void add_gui_options(CLI::App& app, GuiOptions& o, const std::string& readout_help) {
  app.add_option("--script", o.script,
                 "play mouse moves, clicks, drags, wheel turns and keys from FILE (docs/gui.md), then exit");
  app.add_option("--screenshot", o.screenshot, "write the last frame to OUT.png, then exit");
  app.add_flag("--stay", o.stay, "keep the window open after --script / --screenshot");
  app.add_flag("--readout", o.readout, readout_help);
  app.add_flag("--hidden", o.hidden, "no visible window (SDL's offscreen driver; with --script)");
}

std::vector<Input> check_gui_options(const GuiOptions& o, const std::string& other,
                                     bool other_given) {
  if (!o.screenshot.empty() && lower_extension(o.screenshot) != ".png")
    throw UsageError("--screenshot must name a .png file, not '" + o.screenshot + "'");
  if (o.hidden && o.script.empty() && o.screenshot.empty() && !other_given) {
    throw UsageError("--hidden needs --script" +
                     (other.empty() ? std::string(" or --screenshot") : ", --screenshot or " + other) +
                     " (nobody could see the window)");
  }
  return o.script.empty() ? std::vector<Input>{} : load_script(o.script);
}

void draw_help(Window& window, std::span<const std::pair<const char*, const char*>> rows,
               double width, Color fill, Color border, Color text) {
  const double h = 26 + 20.0 * static_cast<double>(rows.size());
  const double x = (window.width() - width) / 2, y = (window.height() - h) / 2;
  window.rect(x, y, width, h, fill, true);
  window.rect(x, y, width, h, border, false);
  double key_column = 0;
  for (const auto& entry : rows)
    key_column = std::max(key_column, static_cast<double>(window.text_size(entry.first).first) + 16);
  double ty = y + 12;
  for (const auto& [keys, what] : rows) {
    window.text(keys, x + 16, ty, text);
    window.text(what, x + 16 + key_column, ty, text);
    ty += 20;
  }
}

void print_if_changed(const std::string& text, std::string& last) {
  if (text == last) return;
  last = text;
  std::cout << last << std::flush;
}

}  // namespace prox::cli::gui
