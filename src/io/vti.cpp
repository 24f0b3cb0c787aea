// src/io/vti.cpp — VTK XML ImageData writer (ASCII inline point data).
#include "prox/io/vti.hpp"

#include "prox/io/number_format.hpp"

namespace prox::io {
namespace {

template <class T>
void write_any(std::ostream& out, const VtiGrid& g, const T* values, const char* type) {
  std::string s;
  const auto extent = [&] {
    std::string e;
    for (int a = 0; a < 3; ++a) e += "0 " + std::to_string(g.dims[a] - 1) + (a < 2 ? " " : "");
    return e;
  }();
  const auto triple = [](const std::array<double, 3>& v) {
    std::string t;
    for (int a = 0; a < 3; ++a) {
      append_number(t, v[a]);
      if (a < 2) t += ' ';
    }
    return t;
  };
  s += "<?xml version=\"1.0\"?>\n";
  s += "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\">\n";
  s += "  <ImageData WholeExtent=\"" + extent + "\" Origin=\"" + triple(g.origin) +
       "\" Spacing=\"" + triple(g.spacing) + "\">\n";
  s += "    <Piece Extent=\"" + extent + "\">\n";
  s += "      <PointData Scalars=\"" + g.name + "\">\n";
  s += "        <DataArray type=\"" + std::string(type) + "\" Name=\"" + g.name +
       "\" format=\"ascii\">\n";
  const std::size_t n = static_cast<std::size_t>(g.dims[0]) * static_cast<std::size_t>(g.dims[1]) *
                        static_cast<std::size_t>(g.dims[2]);
  for (std::size_t i = 0; i < n; ++i) {
    append_number(s, values[i]);
    s += (i % 8 == 7 || i + 1 == n) ? '\n' : ' ';
    if (s.size() > (1u << 20)) {
      out.write(s.data(), static_cast<std::streamsize>(s.size()));
      s.clear();
    }
  }
  s += "        </DataArray>\n      </PointData>\n    </Piece>\n  </ImageData>\n</VTKFile>\n";
  out.write(s.data(), static_cast<std::streamsize>(s.size()));
}

}  // namespace

void write_vti(std::ostream& out, const VtiGrid& grid, const double* values) {
  write_any(out, grid, values, "Float64");
}
void write_vti(std::ostream& out, const VtiGrid& grid, const float* values) {
  write_any(out, grid, values, "Float32");
}

}  // namespace prox::io
