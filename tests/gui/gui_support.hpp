// tests/gui/gui_support.hpp — run `prox magnet` / `prox view` as a person would:
// a real X server (Xvfb), the window driven by xdotool, its pixels read back
// with Xlib, its --readout lines read from its stdout.
#pragma once

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "prox/core/vec.hpp"
#include "prox/image/image.hpp"

namespace prox::test::gui {

inline bool have_program(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

/// What the live tests need but a machine may lack: "" when all is there.
inline std::string missing_tools() {
  std::string missing;
  for (const char* p : {"Xvfb", "xdotool"})
    if (!have_program(p)) missing += std::string(missing.empty() ? "" : ", ") + p;
  return missing;
}

/// ASAN_OPTIONS for the prox windows under the sanitizer build: leak checking off.
/// SDL dlopens its video and input libraries and unloads them at SDL_Quit, so
/// LeakSanitizer reports what they kept from "<unknown module>" frames that no
/// suppression can name (measured with a 20-line SDL2 program: 7,171 bytes in 259
/// allocations, none of them prox's). Everything else stays checked.
inline std::string child_asan_options() {
  const char* now = std::getenv("ASAN_OPTIONS");
  std::string o = now && *now ? std::string(now) + ":" : std::string();
  return "ASAN_OPTIONS=" + o + "detect_leaks=0";
}

inline void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

/// A child process (argv, extra environment, stdout to a file); killed on destruction.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
        const std::string& stdout_path) {
    pid_ = fork();
    if (pid_ == 0) {
      for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
      if (!stdout_path.empty()) {
        const int fd = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) dup2(fd, 1);
      }
      const int devnull = open("/dev/null", O_WRONLY);
      if (stdout_path.empty() && devnull >= 0) dup2(devnull, 1);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
  }
  ~Child() { stop(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  bool running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      pid_ = -1;
      return false;
    }
    return true;
  }
  /// Waits up to ms for the process to end; its exit code, or nullopt if still running.
  std::optional<int> wait_exit(int ms) {
    for (int waited = 0; running() && waited < ms; waited += 20) sleep_ms(20);
    if (running()) return std::nullopt;
    return code_;
  }
  void stop() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      if (!wait_exit(2000)) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
      }
      pid_ = -1;
    }
  }

 private:
  pid_t pid_ = -1;
  int code_ = -1;
};

/// Xvfb on a free display number, and an Xlib connection to it.
class XServer {
 public:
  XServer() {
    std::random_device rd;
    for (int attempt = 0; attempt < 8 && !display_; ++attempt) {
      const int n = 200 + static_cast<int>(rd() % 3000);
      if (std::filesystem::exists("/tmp/.X11-unix/X" + std::to_string(n)) ||
          std::filesystem::exists("/tmp/.X" + std::to_string(n) + "-lock"))
        continue;
      name_ = ":" + std::to_string(n);
      server_ = std::make_unique<Child>(
          std::vector<std::string>{"Xvfb", name_, "-screen", "0", "1280x1024x24", "-nolisten", "tcp"},
          std::vector<std::string>{}, "");
      for (int waited = 0; waited < 10000 && !display_; waited += 50) {
        sleep_ms(50);
        display_ = XOpenDisplay(name_.c_str());
        if (!server_->running()) break;
      }
      if (!display_) server_.reset();
    }
  }
  ~XServer() {
    if (display_) XCloseDisplay(display_);
  }
  bool ok() const { return display_ != nullptr; }
  const std::string& name() const { return name_; }
  std::string env() const { return "DISPLAY=" + name_; }

  /// Runs a shell command with DISPLAY set; its stdout.
  std::string sh(const std::string& cmd) const {
    const std::string full = "DISPLAY=" + name_ + " " + cmd;
    std::string out;
    if (FILE* p = popen(full.c_str(), "r")) {
      char buf[256];
      while (fgets(buf, sizeof buf, p)) out += buf;
      pclose(p);
    }
    return out;
  }
  /// xdotool with these arguments.
  void xdotool(const std::string& args) const { sh("xdotool " + args + " >/dev/null 2>&1"); }

  /// The window whose title is exactly `title` (waits up to 10 s); 0 if none.
  unsigned long find_window(const std::string& title) const {
    const std::string out = sh("timeout 10 xdotool search --sync --onlyvisible --name '^" + title + "$' 2>/dev/null");
    std::istringstream s(out);
    unsigned long id = 0;
    s >> id;
    return id;
  }

  /// The window's pixels (its own contents, as the X server holds them).
  Image grab(unsigned long window) const {
    XWindowAttributes attr;
    if (!XGetWindowAttributes(display_, window, &attr)) return {};
    XImage* img = XGetImage(display_, window, 0, 0, static_cast<unsigned>(attr.width),
                            static_cast<unsigned>(attr.height), AllPlanes, ZPixmap);
    if (!img) return {};
    Image out = make_image(attr.width, attr.height);
    for (int y = 0; y < attr.height; ++y)
      for (int x = 0; x < attr.width; ++x) {
        const unsigned long p = XGetPixel(img, x, y);
        out.set(x, y, Rgb8{static_cast<std::uint8_t>((p & img->red_mask) >> 16),
                           static_cast<std::uint8_t>((p & img->green_mask) >> 8),
                           static_cast<std::uint8_t>(p & img->blue_mask)});
      }
    XDestroyImage(img);
    return out;
  }

 private:
  std::string name_;
  std::unique_ptr<Child> server_;
  Display* display_ = nullptr;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The last line of the file that starts with `prefix` and contains `needle` (waits up to ms).
inline std::string wait_line(const std::filesystem::path& file, const std::string& prefix,
                             const std::string& needle, int ms = 8000) {
  for (int waited = 0; waited <= ms; waited += 25) {
    std::istringstream s(slurp(file));
    std::string found;
    for (std::string line; std::getline(s, line);)
      if (line.rfind(prefix, 0) == 0 && line.find(needle) != std::string::npos) found = line;
    if (!found.empty()) return found;
    sleep_ms(25);
  }
  return "";
}

/// The value of "key=value" in a readout line ("" if absent).
inline std::string field(const std::string& line, const std::string& key) {
  const std::string k = " " + key + "=";
  const auto at = line.find(k);
  if (at == std::string::npos) return "";
  const auto b = at + k.size();
  return line.substr(b, line.find(' ', b) - b);
}

inline std::vector<double> numbers(const std::string& csv) {
  std::vector<double> v;
  std::istringstream s(csv);
  for (std::string part; std::getline(s, part, ',');) v.push_back(std::stod(part));
  return v;
}

inline bool near_colour(Rgb8 a, Rgb8 b, int tol) {
  return std::abs(a.r - b.r) <= tol && std::abs(a.g - b.g) <= tol && std::abs(a.b - b.b) <= tol;
}

/// Polls grab() until pred holds (up to ms); the last picture.
inline Image grab_until(const XServer& x, unsigned long win, const std::function<bool(const Image&)>& pred,
                        int ms = 4000) {
  Image img;
  for (int waited = 0; waited <= ms; waited += 50) {
    img = x.grab(win);
    if (img.width > 0 && pred(img)) return img;
    sleep_ms(50);
  }
  return img;
}

}  // namespace prox::test::gui
