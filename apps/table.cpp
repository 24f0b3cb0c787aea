// apps/table.cpp — result tables as CSV, .npy or .npz (see table.hpp).
#include "table.hpp"

#include <filesystem>
#include <stdexcept>

#include "command.hpp"
#include "prox/io/csv.hpp"
#include "prox/io/npy.hpp"

namespace prox::cli {

Column& Table::add(std::string name, ColumnType type, std::string help) {
  Column& c = columns_.emplace_back();
  c.name = std::move(name);
  c.type = type;
  c.help = std::move(help);
  return c;
}

Column& Table::operator[](std::string_view name) {
  for (Column& c : columns_)
    if (c.name == name) return c;
  throw std::logic_error("no column '" + std::string(name) + "'");
}

std::size_t Table::rows() const {
  if (columns_.empty()) return 0;
  const std::size_t n = columns_.front().size();
  for (const Column& c : columns_)
    if (c.size() != n) throw std::logic_error("table column '" + c.name + "' has a wrong length");
  return n;
}

void Table::select(const std::string& spec) {
  if (spec.empty()) return;
  std::deque<Column> chosen;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = spec.find(',', start);
    const std::string name =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    bool found = false;
    for (const Column& c : columns_) {
      if (c.name != name) continue;
      for (const Column& d : chosen)
        if (d.name == name) throw UsageError("--columns names '" + name + "' twice");
      chosen.push_back(c);
      found = true;
      break;
    }
    if (!found) {
      std::string known;
      for (const Column& c : columns_) known += (known.empty() ? "" : ",") + c.name;
      throw UsageError("--columns: no column '" + name + "' here (this command has: " + known + ")");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  columns_ = std::move(chosen);
}

void Table::to_float32() {
  for (Column& c : columns_)
    if (c.type == ColumnType::f64) c.type = ColumnType::f32;
}

namespace {

void write_csv(std::ostream& os, const std::deque<Column>& columns, std::size_t rows) {
  std::vector<std::string> names;
  for (const Column& c : columns) names.push_back(c.name);
  io::CsvWriter csv(os, names);
  for (std::size_t i = 0; i < rows; ++i) {
    for (const Column& c : columns) {
      switch (c.type) {
        case ColumnType::f64: csv.field(c.real[i]); break;
        case ColumnType::f32: csv.field(static_cast<float>(c.real[i])); break;
        case ColumnType::text: csv.text(c.text[i]); break;
        default: {
          const std::int64_t v = c.integer[i];
          if (c.labels.empty()) csv.field(v);
          else if (v >= 0 && static_cast<std::size_t>(v) < c.labels.size())
            csv.text(c.labels[static_cast<std::size_t>(v)]);
          else csv.text("none");
        }
      }
    }
    csv.end_row();
  }
  csv.flush();
}

template <class Out, class In>
std::vector<Out> cast_all(const std::vector<In>& v) {
  return std::vector<Out>(v.begin(), v.end());
}

// Calls sink(pointer, shape) with the column's values in its dtype.
template <class Sink>
void with_typed(const Column& c, std::size_t rows, Sink&& sink) {
  const std::vector<std::size_t> shape{rows};
  switch (c.type) {
    case ColumnType::f64: sink(c.real.data(), shape); break;
    case ColumnType::f32: {
      const std::vector<float> f = cast_all<float>(c.real);
      sink(f.data(), shape);
      break;
    }
    case ColumnType::i64: sink(c.integer.data(), shape); break;
    case ColumnType::i8: {
      const std::vector<std::int8_t> b = cast_all<std::int8_t>(c.integer);
      sink(b.data(), shape);
      break;
    }
    case ColumnType::u8: {
      const std::vector<std::uint8_t> b = cast_all<std::uint8_t>(c.integer);
      sink(b.data(), shape);
      break;
    }
    case ColumnType::text: break;
  }
}

}  // namespace

void Table::write(Output& out, const std::string& path,
                  const std::function<void(io::NpzWriter&)>& npz_extra) const {
  const std::size_t n = rows();
  const std::string ext = lower_extension(path);
  std::ostream& os = out.stream();
  std::vector<const Column*> numeric;
  for (const Column& c : columns_)
    if (c.type != ColumnType::text) numeric.push_back(&c);
  if (ext == ".npz") {
    io::NpzWriter npz(os);
    for (const Column* c : numeric)
      with_typed(*c, n, [&](const auto* p, const std::vector<std::size_t>& shape) {
        npz.add(c->name, p, shape);
      });
    if (npz_extra) npz_extra(npz);
    npz.finish();
  } else if (ext == ".npy" && numeric.size() == 1) {
    with_typed(*numeric.front(), n, [&](const auto* p, const std::vector<std::size_t>& shape) {
      io::write_npy(os, p, shape);
    });
  } else if (ext == ".npy") {
    const std::size_t k = numeric.size();
    std::vector<double> a(n * k);
    for (std::size_t j = 0; j < k; ++j) {
      const Column& c = *numeric[j];
      for (std::size_t i = 0; i < n; ++i)
        a[i * k + j] = c.is_real() ? c.real[i] : static_cast<double>(c.integer[i]);
    }
    io::write_npy(os, a.data(), {n, k});
  } else {
    write_csv(os, columns_, n);
  }
}

void check_table_output(const std::string& path) {
  if (path.empty() || path == "-") return;
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  // /dev/null, a FIFO: written as CSV, directly (see Output).
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) &&
      !std::filesystem::is_directory(st))
    return;
  const std::string ext = lower_extension(path);
  if (ext != ".csv" && ext != ".npy" && ext != ".npz") {
    throw UsageError("-o must name a .csv, .npy or .npz file (or - for standard output), not '" +
                     path + "'");
  }
}

void add_table_options(CLI::App& app, TableOptions& o, const std::string& names) {
  app.add_option("-o,--output", o.out,
                 "output .csv (default: standard output, also -), .npz (one array per column) "
                 "or .npy (one column: its array; several: float64 rows)");
  app.add_option("--columns", o.columns, "comma-separated columns to write, in order, from: " + names);
  app.add_flag("--float32", o.float32, "store floating-point columns as float32");
}

void write_table(Table& table, const TableOptions& o,
                 const std::function<void(io::NpzWriter&)>& npz_extra) {
  table.select(o.columns);
  // A text column has no array form: asked for by name in an .npy or .npz,
  // it would be left out (an (N, 0) array for it alone), so it is refused.
  const std::string ext = lower_extension(o.out);
  if (!o.columns.empty() && (ext == ".npy" || ext == ".npz"))
    for (const Column& c : table.columns())
      if (c.type == ColumnType::text)
        throw UsageError("--columns " + c.name + " is text, written to .csv only (not " + ext +
                         ")");
  if (o.float32) table.to_float32();
  Output out(o.out);
  table.write(out, o.out, npz_extra);
  out.commit();
}

Table samples_table(const SurfaceSamples<double>& samples, const std::vector<double>* distances) {
  Table t;
  const char* axes[3] = {"x", "y", "z"};
  Column* p[3];
  for (int a = 0; a < 3; ++a)
    p[a] = &t.add(axes[a], ColumnType::f64, std::string("sample's ") + axes[a]);
  Column& tri = t.add("triangle", ColumnType::i64, "triangle holding the sample");
  const char* weights[3] = {"w0", "w1", "w2"};
  Column* w[3];
  for (int k = 0; k < 3; ++k)
    w[k] = &t.add(weights[k], ColumnType::f64,
                  std::string("weight of the triangle's corner ") + char('0' + k));
  for (std::size_t i = 0; i < samples.size(); ++i) {
    for (int a = 0; a < 3; ++a) {
      p[a]->real.push_back(samples.points[i][a]);
      w[a]->real.push_back(samples.bary[i][a]);
    }
    tri.integer.push_back(static_cast<std::int64_t>(samples.triangles[i]));
  }
  if (distances) t.add("distance", ColumnType::f64, "distance to the other mesh").real = *distances;
  return t;
}

SampleMethod parse_sample_method(const std::string& text, const std::string& option) {
  if (text == "uniform") return SampleMethod::uniform;
  if (text == "stratified") return SampleMethod::stratified;
  if (text == "poisson") return SampleMethod::poisson;
  throw UsageError(option + " must be uniform, stratified or poisson, not '" + text + "'");
}

}  // namespace prox::cli
