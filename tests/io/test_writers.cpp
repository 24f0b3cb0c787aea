// tests/io/test_writers.cpp — CSV numbers read back bit-exact, .npy written and
// read (both byte orders, every dtype prox reads), the points/rays table reader
// (separators, comments, header row, errors with line numbers), VTI layout,
// and AtomicFile (whole or nothing).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "prox/io/atomic_file.hpp"
#include "prox/io/csv.hpp"
#include "prox/io/mesh_data.hpp"
#include "prox/io/npy.hpp"
#include "prox/io/read_table.hpp"
#include "prox/io/vti.hpp"
#include "support/scale.hpp"

using namespace prox;
using namespace prox::io;

TEST(Writers, NumbersRoundTripBitExact) {
  std::mt19937_64 rng(9);
  const std::int64_t n = prox::test::scaled_count(200000, 2000);
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint64_t bits = rng();
    double x;
    std::memcpy(&x, &bits, 8);
    if (std::isnan(x)) continue;
    const std::string s = format_number(x);
    ASSERT_EQ(std::strtod(s.c_str(), nullptr), x) << s;
    const float f = static_cast<float>(rng() % 1000000) / 7.0f;
    ASSERT_EQ(std::strtof(format_number(f).c_str(), nullptr), f);
  }
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(format_number(std::nan("")), "nan");
  EXPECT_EQ(format_number(-3), "-3");
}

TEST(Writers, CsvHeaderAndRows) {
  std::ostringstream out;
  {
    CsvWriter csv(out, {"a", "b", "c"});
    csv.field(1.5).field(-2).text("face");
    csv.end_row();
    csv.field(1e-300).field(std::uint32_t{7}).text("v0");
    csv.end_row();
  }
  EXPECT_EQ(out.str(), "a,b,c\n1.5,-2,face\n1e-300,7,v0\n");
}

TEST(Writers, NpyRoundTripAndHeaderLayout) {
  const std::vector<double> d{1.0, -2.5, 3.25, std::nan(""), 1e300, -0.0};
  std::ostringstream out(std::ios::binary);
  write_npy(out, d.data(), {2, 3});
  const std::string bytes = out.str();
  ASSERT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header_len = static_cast<unsigned char>(bytes[8]) |
                                 static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
  EXPECT_EQ((10 + header_len) % 64, 0u);  // data aligned as numpy writes it
  EXPECT_EQ(bytes[10 + header_len - 1], '\n');
  EXPECT_EQ(bytes.size(), 10 + header_len + 6 * 8);
  const NpyArray a = parse_npy(bytes, "a.npy");
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(a.descr, "<f8");
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (std::isnan(d[i])) EXPECT_TRUE(std::isnan(a.data[i]));
    else EXPECT_EQ(std::memcmp(&a.data[i], &d[i], 8), 0);
  }
  // One-dimensional shapes print as (N,), like numpy.
  std::ostringstream one(std::ios::binary);
  const std::int32_t ints[3] = {1, -2, 3};
  write_npy(one, ints, {3});
  EXPECT_NE(one.str().find("'shape': (3,)"), std::string::npos);
  EXPECT_EQ(parse_npy(one.str(), "i.npy").data, (std::vector<double>{1, -2, 3}));
}

TEST(Writers, NpyBigEndianFloat32AndErrors) {
  // Hand-made big-endian float32 (2, 3) array.
  std::string header = "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string b = std::string("\x93NUMPY\x01\x00", 8);
  b += static_cast<char>(header.size() & 0xff);
  b += static_cast<char>(header.size() >> 8);
  b += header;
  for (float f : {1.0f, 2.5f, -3.0f, 0.125f, 1e-3f, 7.0f}) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    for (int s = 24; s >= 0; s -= 8) b += static_cast<char>((u >> s) & 0xff);
  }
  const NpyArray a = parse_npy(b, "be.npy");
  EXPECT_EQ(a.data, (std::vector<double>{1.0, 2.5, -3.0, 0.125, static_cast<double>(1e-3f), 7.0}));
  const auto error = [](const std::string& bytes) {
    try {
      parse_npy(bytes, "x.npy");
    } catch (const ReadError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error(b.substr(0, b.size() - 1)).find("needs 24 data bytes"), std::string::npos);
  std::string fortran = b;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_NE(error(fortran).find("Fortran order"), std::string::npos);
  std::string complex = b;
  complex.replace(complex.find(">f4"), 3, "<c8");
  EXPECT_NE(error(complex).find("unsupported .npy dtype"), std::string::npos);
  std::string huge = b;
  huge.replace(huge.find("(2, 3)"), 6, "(9999999999999, 99999)");
  EXPECT_FALSE(error(huge).empty());
  EXPECT_NE(error("\x93NUMPY").find("truncated"), std::string::npos);
}

TEST(Tables, TextPointsAndRays) {
  const Table t = parse_table("x,y,z\n# comment\n1 2 3\n\n4,5,6 # trailing\n7;8;9\n", "p.txt", {3});
  EXPECT_EQ(t.rows, 3u);
  EXPECT_EQ(t.values, (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  const double inf = std::numeric_limits<double>::infinity();
  const Table r = parse_table("0 0 0 1 0 0\n0 0 0 1 0 0 0.5 2\n", "r.txt", {6, 8}, {0, 0, 0, 0, 0, 0, 0, inf});
  EXPECT_EQ(r.columns, 8u);
  EXPECT_EQ(r.values[7], inf);
  EXPECT_EQ(r.values[14], 0.5);
  EXPECT_EQ(r.values[15], 2.0);
  const Table n = parse_table("nan 1 2\n", "n.txt", {3});  // passed through: the query misses
  EXPECT_TRUE(std::isnan(n.values[0]));
  const auto error = [](const std::string& text, std::vector<std::size_t> cols) {
    try {
      parse_table(text, "t.txt", cols, {0, 0, 0, 0, 0, 0, 0, 0});
    } catch (const ReadError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("1 2 3\n4 5\n", {3}), "t.txt: line 2: expected 3 numbers, found 2");
  EXPECT_EQ(error("1 2 3\n4 5 six\n", {3}), "t.txt: line 2: bad number 'six'");
  EXPECT_EQ(error("1 2 3 4 5 6 7\n", {6, 8}), "t.txt: line 1: expected 6 or 8 numbers, found 7");
  EXPECT_EQ(error("1 2 3\nx y z\n", {3}), "t.txt: line 2: bad number 'x'");  // header only first
}

TEST(Tables, NpyPointsMustHaveTheRightShape) {
  std::ostringstream out(std::ios::binary);
  const double d[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  write_npy(out, d, {2, 4});
  try {
    parse_table(out.str(), "p.npy", {3});
    FAIL();
  } catch (const ReadError& e) {
    EXPECT_EQ(std::string(e.what()), "p.npy: .npy array has shape (2, 4); expected (N, 3)");
  }
  const Table t = parse_table(out.str(), "p.npy", {4});
  EXPECT_EQ(t.rows, 2u);
}

TEST(Writers, VtiLayout) {
  VtiGrid g;
  g.dims = {3, 2, 1};
  g.origin = {0.5, -1, 2};
  g.spacing = {0.25, 0.5, 1};
  const double v[6] = {0, 0.1, 0.2, 1, 1.1, 1.2};
  std::ostringstream out;
  write_vti(out, g, v);
  const std::string s = out.str();
  EXPECT_NE(s.find("WholeExtent=\"0 2 0 1 0 0\""), std::string::npos) << s;
  EXPECT_NE(s.find("Origin=\"0.5 -1 2\""), std::string::npos);
  EXPECT_NE(s.find("Spacing=\"0.25 0.5 1\""), std::string::npos);
  EXPECT_NE(s.find("type=\"Float64\" Name=\"distance\""), std::string::npos);
  EXPECT_NE(s.find("0 0.1 0.2 1 1.1 1.2\n"), std::string::npos);
  EXPECT_NE(s.find("</VTKFile>"), std::string::npos);
}

TEST(Writers, AtomicFileWholeOrNothing) {
  const auto dir = std::filesystem::temp_directory_path() / "prox-atomic-test";
  std::filesystem::create_directories(dir);
  const auto target = dir / "out.csv";
  std::filesystem::remove(target);
  {
    AtomicFile f(target);
    f.stream() << "partial";
    // destroyed without commit: as if an error happened mid-write
  }
  EXPECT_FALSE(std::filesystem::exists(target));
  {
    AtomicFile f(target);
    f.stream() << "whole\n";
    EXPECT_FALSE(std::filesystem::exists(target));  // not before commit
    f.commit();
  }
  std::ifstream in(target);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "whole");
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  EXPECT_EQ(n, 1u);  // no temporaries left
  std::filesystem::remove_all(dir);
}
