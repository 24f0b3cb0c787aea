// apps/gui/window.hpp — the SDL2 window shared by `prox magnet` and `prox view`
// (built only when SDL2 is found; see apps/CMakeLists.txt).
//
// A Window owns the SDL window, its renderer and a font (SDL_ttf, DejaVu Sans
// by default); it draws lines, dots, outlines, filled triangles, text and
// whole prox::Image pictures, reads its own pixels back (screenshots) and
// turns SDL events and script steps into one kind of Input, so a scripted run
// goes through exactly the code a person's mouse and keys do.
//
// Script files (`--script FILE`), one step per line, '#' comments:
//   move X Y            mouse to window pixel (X, Y)
//   down X Y [BUTTON]   press a button there (left | right | middle; default left)
//   up X Y [BUTTON]     release it
//   click X Y [BUTTON]  down + up at one place
//   drag X0 Y0 X1 Y1 [BUTTON] [STEPS]  press, move in STEPS moves (default 8), release
//   wheel N [shift]     N wheel notches (negative: toward the user)
//   key NAME [shift]    a key by its SDL name (S, F, Escape, F12, Space, ...)
//   wait MS             let MS milliseconds pass (progressive rendering settles)
//   screenshot OUT.png  write the current frame
//   quit
// Errors name the file and line.
#pragma once

#include <SDL.h>
#include <SDL_ttf.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "prox/core/vec.hpp"
#include "prox/image/image.hpp"

namespace prox::cli::gui {

struct Color {
  std::uint8_t r = 0, g = 0, b = 0, a = 255;
};

/// One thing the user (or the script) did.
struct Input {
  enum Kind { quit, move, down, up, scroll, key, wait, screenshot } kind = move;
  int x = 0, y = 0;      ///< mouse position (move, down, up)
  int button = 1;        ///< SDL_BUTTON_LEFT / MIDDLE / RIGHT
  int wheel = 0;         ///< notches (wheel)
  SDL_Keycode keycode = 0;
  bool shift = false;
  int ms = 0;            ///< wait
  std::string path;      ///< screenshot
  bool scripted = false;
};

/// Reads a script file (format above); throws std::runtime_error "FILE:LINE: what".
std::vector<Input> load_script(const std::filesystem::path& path);

struct WindowOptions {
  std::string title;
  int width = 800, height = 600;
  std::string font;        ///< .ttf path; "" = the default DejaVu Sans
  int font_size = 14;
  bool hidden = false;     ///< no visible window (scripted runs without a display)
};

class Window {
 public:
  explicit Window(const WindowOptions& options);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  int width() const { return width_; }
  int height() const { return height_; }
  bool has_font() const { return font_ != nullptr; }
  std::uint32_t id() const;

  /// Waits up to timeout_ms for the next SDL event; false when none came.
  bool next_event(Input& input, int timeout_ms);

  void clear(Color c);
  void line(double x0, double y0, double x1, double y1, Color c);
  void polyline(const std::vector<Vec2d>& points, bool closed, Color c);
  void dot(double x, double y, double radius, Color c);
  void circle(double x, double y, double radius, Color c);
  void rect(double x, double y, double w, double h, Color c, bool filled);
  void triangle(const Vec2d& a, const Vec2d& b, const Vec2d& c, Color fill);
  /// Draws text with its top-left corner at (x, y); returns its width in pixels.
  int text(const std::string& s, double x, double y, Color c);
  /// Width and height of the text in pixels (0, 0 without a font).
  std::pair<int, int> text_size(const std::string& s) const;
  /// Stretches the picture over the window (nearest pixel).
  void picture(const Image& image);
  void present();
  /// The frame drawn so far (call before present()).
  Image read_pixels() const;
  /// Writes the frame drawn so far as a PNG (atomically), says so on stderr.
  void save_png(const std::filesystem::path& path) const;

 private:
  SDL_Window* window_ = nullptr;
  SDL_Renderer* renderer_ = nullptr;
  TTF_Font* font_ = nullptr;
  SDL_Texture* picture_ = nullptr;
  int picture_w_ = 0, picture_h_ = 0;
  int width_ = 0, height_ = 0;
  void set(Color c);
};

/// "prox-NAME-YYYYMMDD-HHMMSS.png" in the current folder.
std::string screenshot_name(const std::string& name);

/// Runs the input loop: script steps first (one per frame), then live events
/// unless `exit_after_script`. `handle` applies one input and returns false to
/// stop; `frame` draws one frame (full says: no interaction is pending, draw
/// the finished picture) and is called after every input and on idle ticks.
struct LoopHooks {
  std::function<bool(const Input&)> handle;
  std::function<void(bool full)> frame;
  /// Whether the picture still needs work (a coarse frame waits for a full one).
  std::function<bool()> busy;
};
void run_loop(Window& window, const std::vector<Input>& script, bool exit_after_script,
              const std::string& final_screenshot, const LoopHooks& hooks);

/// The options every window command has: --script, --screenshot, --stay,
/// --readout, --hidden, --font.
struct GuiOptions {
  std::string script, screenshot, font;
  bool readout = false, stay = false, hidden = false;
};
void add_gui_options(CLI::App& app, GuiOptions& o, const std::string& readout_help);
/// Checks --screenshot (a .png) and --hidden (needs --script, --screenshot or
/// `other`, when `other_given`; `other` "" when there is none), then loads
/// --script (no steps without one). UsageError otherwise.
std::vector<Input> check_gui_options(const GuiOptions& o, const std::string& other = "",
                                     bool other_given = false);

/// Runs run_loop with `app`'s handle(Input), frame(bool) and busy().
template <class App>
void run_app(Window& window, App& app, const std::vector<Input>& script, const GuiOptions& o) {
  LoopHooks hooks;
  hooks.handle = [&](const Input& in) { return app.handle(in); };
  hooks.frame = [&](bool full) { app.frame(full); };
  hooks.busy = [&] { return app.busy(); };
  run_loop(window, script, !o.stay, o.screenshot, hooks);
}

/// The help panel: `rows` of (keys, what) in two columns, `width` pixels wide,
/// centred in the window, on `fill` with a `border`.
void draw_help(Window& window, std::span<const std::pair<const char*, const char*>> rows,
               double width, Color fill, Color border, Color text);

/// Writes `text` to standard output when it differs from `last` (which becomes it).
void print_if_changed(const std::string& text, std::string& last);

}  // namespace prox::cli::gui
