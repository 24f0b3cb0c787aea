// tests/io/test_read_mesh.cpp — the mesh readers on generated files in every
// format and encoding (compared exactly with the mesh that was written), on
// hand-written files exercising each format's corners (polygons, extra
// properties, comments, CRLF, relative OBJ indices), and on the real meshes of
// the CGAL data archive.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <iostream>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "prox/io/mesh_topology.hpp"
#include "prox/io/read_mesh.hpp"
#include "prox/io/shapes.hpp"
#include "prox/io/write_mesh.hpp"
#include "support/scale.hpp"

using namespace prox;
using namespace prox::io;

namespace {

std::string to_bytes(const std::function<void(std::ostream&)>& write) {
  std::ostringstream s(std::ios::binary);
  write(s);
  return s.str();
}

void expect_same(const MeshData& a, const MeshData& b) {
  ASSERT_EQ(a.vertices.size(), b.vertices.size());
  ASSERT_EQ(a.triangles.size(), b.triangles.size());
  for (std::size_t i = 0; i < a.vertices.size(); ++i) {
    ASSERT_EQ(a.vertices[i], b.vertices[i]) << "vertex " << i;
  }
  for (std::size_t i = 0; i < a.triangles.size(); ++i) {
    ASSERT_EQ(a.triangles[i], b.triangles[i]) << "triangle " << i;
  }
}

// STL keeps corners per triangle in float32: compare geometry, not indices.
void expect_same_geometry_f32(const MeshData& original, const MeshData& read) {
  ASSERT_EQ(original.triangles.size(), read.triangles.size());
  for (std::size_t i = 0; i < read.triangles.size(); ++i) {
    for (int k = 0; k < 3; ++k) {
      const Vec3d a = original.vertices[original.triangles[i][static_cast<std::size_t>(k)]];
      const Vec3d b = read.vertices[read.triangles[i][static_cast<std::size_t>(k)]];
      for (int c = 0; c < 3; ++c) ASSERT_EQ(static_cast<double>(static_cast<float>(a[c])), b[c]);
    }
  }
}

MeshData knot() { return make_knot(0.45, 64, 12); }

}  // namespace

TEST(ReadMesh, RoundTripEveryTextAndDoubleFormat) {
  const MeshData m = knot();
  expect_same(m, parse_obj(to_bytes([&](std::ostream& o) { write_obj(o, m); }), "k.obj"));
  expect_same(m, parse_off(to_bytes([&](std::ostream& o) { write_off(o, m); }), "k.off"));
  for (PlyEncoding e : {PlyEncoding::ascii, PlyEncoding::binary_little_endian,
                        PlyEncoding::binary_big_endian}) {
    expect_same(m, parse_ply(to_bytes([&](std::ostream& o) { write_ply(o, m, e); }), "k.ply"));
  }
}

TEST(ReadMesh, StlRoundTripWeldsCorners) {
  const MeshData m = knot();
  for (StlEncoding e : {StlEncoding::ascii, StlEncoding::binary}) {
    const MeshData r = parse_stl(to_bytes([&](std::ostream& o) { write_stl(o, m, e); }), "k.stl");
    if (e == StlEncoding::ascii) {
      // ascii STL keeps the exact double text: same geometry in double.
      ASSERT_EQ(r.triangles.size(), m.triangles.size());
      for (std::size_t i = 0; i < r.triangles.size(); ++i)
        for (int k = 0; k < 3; ++k)
          ASSERT_EQ(r.vertices[r.triangles[i][static_cast<std::size_t>(k)]],
                    m.vertices[m.triangles[i][static_cast<std::size_t>(k)]]);
    } else {
      expect_same_geometry_f32(m, r);
    }
    // Corners are merged again: same vertex count, still closed.
    EXPECT_EQ(r.vertices.size(), m.vertices.size());
    EXPECT_TRUE(analyze_topology(r).closed());
  }
}

TEST(ReadMesh, BothPlyEndiannessesGiveTheSameBytesInMemory) {
  const MeshData m = make_torus(1.0, 0.25, 16, 8);
  const std::string le =
      to_bytes([&](std::ostream& o) { write_ply(o, m, PlyEncoding::binary_little_endian); });
  const std::string be =
      to_bytes([&](std::ostream& o) { write_ply(o, m, PlyEncoding::binary_big_endian); });
  EXPECT_NE(le, be);
  expect_same(parse_ply(le, "le"), parse_ply(be, "be"));
}

TEST(ReadMesh, PlyExtraPropertiesTypesAndElementOrder) {
  // Faces before vertices, an unknown element, list of uchar after the indices,
  // a short-typed coordinate, an int8 property, comments, CRLF line ends.
  const std::string ply =
      "ply\r\nformat ascii 1.0\r\ncomment hello\r\n"
      "element face 2\r\nproperty list uchar int vertex_indices\r\n"
      "property list uchar float texcoord\r\nproperty int8 flag\r\n"
      "element junk 1\r\nproperty double a\r\n"
      "element vertex 5\r\nproperty float x\r\nproperty double y\r\nproperty short z\r\n"
      "property uchar red\r\nend_header\r\n"
      "3 0 1 2 2 0.5 0.25 -1\r\n"
      "4 1 2 3 4 0 7\r\n"
      "1e300\r\n"
      "0 0 0 255\r\n1 0 0 1\r\n1 1 0 2\r\n0.5 2.5 -7 3\r\n-1 0.25 12 4\r\n";
  const MeshData m = parse_ply(ply, "x.ply");
  ASSERT_EQ(m.vertices.size(), 5u);
  EXPECT_EQ(m.vertices[3], (Vec3d{0.5, 2.5, -7}));
  ASSERT_EQ(m.triangles.size(), 3u);  // triangle + quad fanned into 2
  EXPECT_EQ(m.triangles[0], (std::array<std::uint32_t, 3>{0, 1, 2}));
  EXPECT_EQ(m.triangles[1], (std::array<std::uint32_t, 3>{1, 2, 3}));
  EXPECT_EQ(m.triangles[2], (std::array<std::uint32_t, 3>{1, 3, 4}));
  EXPECT_EQ(m.polygons, 1u);
}

TEST(ReadMesh, PlyBinaryMixedTypes) {
  // Hand-assembled big-endian file: vertex (uchar r, float x, float y, float z),
  // face (int flags, list ushort int32 vertex_indices).
  std::string b = "ply\nformat binary_big_endian 1.0\nelement vertex 3\nproperty uchar r\n"
                  "property float x\nproperty float y\nproperty float z\nelement face 1\n"
                  "property int flags\nproperty list ushort int vertex_indices\nend_header\n";
  const auto be32 = [&](std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b += static_cast<char>((v >> s) & 0xff);
  };
  const auto bef = [&](float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    be32(u);
  };
  const float xyz[3][3] = {{0, 0, 0}, {1.5f, 0, 0}, {0, -2.25f, 1e-30f}};
  for (const auto& p : xyz) {
    b += '\x07';
    for (float f : p) bef(f);
  }
  be32(0xdeadbeef);
  b += '\0';
  b += '\3';
  be32(2);
  be32(1);
  be32(0);
  const MeshData m = parse_ply(b, "be.ply");
  ASSERT_EQ(m.vertices.size(), 3u);
  EXPECT_EQ(m.vertices[2], (Vec3d{0, -2.25, static_cast<double>(1e-30f)}));
  ASSERT_EQ(m.triangles.size(), 1u);
  EXPECT_EQ(m.triangles[0], (std::array<std::uint32_t, 3>{2, 1, 0}));
}

TEST(ReadMesh, OffVariantsPolygonsAndComments) {
  const std::string off =
      "# a comment before the keyword\nCOFF\n# counts next\n6 3 0\n"
      "0 0 0 255 0 0 255\n1 0 0 1 1 1 1\n1 1 0 0 0 0 1\n0 1 0 0 0 0 1\n"
      "0.5 0.5 1 0 0 0 1\n2 2 2 0 0 0 1\n"
      "4 0 1 2 3 255 0 0\n3 0 1 4\n2 4 5\n";
  const MeshData m = parse_off(off, "c.off");
  ASSERT_EQ(m.vertices.size(), 6u);
  ASSERT_EQ(m.triangles.size(), 3u);
  EXPECT_EQ(m.triangles[1], (std::array<std::uint32_t, 3>{0, 2, 3}));
  EXPECT_EQ(m.skipped_faces, 1u);
  EXPECT_EQ(m.polygons, 1u);
}

TEST(ReadMesh, ObjIndicesGroupsAndPolygons) {
  const std::string obj =
      "# cube corner\nmtllib missing.mtl\no thing\nv 0 0 0\nv 1 0 0\nv 1 1 0 1.0\n"
      "v 0 1 0 0.5 0.5 0.5\nvt 0 0\nvn 0 0 1\ng top\nusemtl red\n"
      "f 1/1/1 2/1/1 3/1/1 4/1/1\nv 0.5 0.5 1\nf -1 -4 -5\nf 2//1 3//1 5//1\nl 1 2\n";
  const MeshData m = parse_obj(obj, "q.obj");
  ASSERT_EQ(m.vertices.size(), 5u);
  EXPECT_EQ(m.vertices[2], (Vec3d{1, 1, 0}));
  ASSERT_EQ(m.triangles.size(), 4u);
  EXPECT_EQ(m.triangles[0], (std::array<std::uint32_t, 3>{0, 1, 2}));
  EXPECT_EQ(m.triangles[1], (std::array<std::uint32_t, 3>{0, 2, 3}));
  EXPECT_EQ(m.triangles[2], (std::array<std::uint32_t, 3>{4, 1, 0}));
  EXPECT_EQ(m.triangles[3], (std::array<std::uint32_t, 3>{1, 2, 4}));
}

TEST(ReadMesh, OldMacLineEndings) {
  const MeshData obj = parse_mesh("v 0 0 0\rv 1 0 0\rv 0 1 0\rf 1 2 3\r", MeshFormat::obj, "m.obj");
  EXPECT_EQ(obj.triangles.size(), 1u);
  const MeshData off = parse_mesh("OFF\r3 1 0\r0 0 0\r1 0 0\r0 1 0\r3 0 1 2\r", MeshFormat::off, "m.off");
  EXPECT_EQ(off.triangles.size(), 1u);
  EXPECT_EQ(off.vertices[1], (Vec3d{1, 0, 0}));
}

TEST(ReadMesh, FormatDetection) {
  EXPECT_EQ(format_from_extension("a/b.PLY"), MeshFormat::ply);
  EXPECT_EQ(format_from_extension("x.Obj"), MeshFormat::obj);
  EXPECT_FALSE(format_from_extension("x.txt").has_value());
  EXPECT_EQ(format_from_content("ply\nformat"), MeshFormat::ply);
  EXPECT_EQ(format_from_content("  solid x\n"), MeshFormat::stl);
  EXPECT_EQ(format_from_content("OFF\n1 0 0"), MeshFormat::off);
  EXPECT_EQ(format_from_content("v 1 2 3\n"), MeshFormat::obj);
  EXPECT_FALSE(format_from_content("hello").has_value());
}

TEST(ReadMesh, RealMeshesFromTheCgalArchive) {
  const std::string dir = PROX_CGAL_DATA_DIR "/meshes/";
  const MeshData bunny = read_mesh(dir + "bunny00.off");
  EXPECT_EQ(bunny.vertices.size(), 37706u);
  EXPECT_EQ(bunny.triangles.size(), 75408u);
  const MeshData sphere_ply = read_mesh(dir + "sphere.ply");
  EXPECT_EQ(sphere_ply.vertices.size(), 162u);
  EXPECT_EQ(sphere_ply.triangles.size(), 320u);
  EXPECT_TRUE(analyze_topology(sphere_ply).closed());
  const MeshData sphere_stl = read_mesh(dir + "sphere.stl");
  EXPECT_EQ(sphere_stl.triangles.size(), 320u);
  EXPECT_EQ(sphere_stl.vertices.size(), 162u);  // welded back to the shared vertices
  EXPECT_TRUE(analyze_topology(sphere_stl).closed());
  const MeshData pig = read_mesh(dir + "pig.stl");
  EXPECT_EQ(pig.triangles.size(), 16848u);
  const MeshData tetra = read_mesh(dir + "colored_tetra.ply");  // extra props + "edge" element
  EXPECT_EQ(tetra.vertices.size(), 4u);
  EXPECT_EQ(tetra.triangles.size(), 4u);
  EXPECT_TRUE(analyze_topology(tetra).closed());
  const MeshData b9 = read_mesh(dir + "b9.ply");  // a point cloud: no faces
  EXPECT_EQ(b9.vertices.size(), 22300u);
  EXPECT_EQ(b9.triangles.size(), 0u);
}

TEST(ReadMesh, EveryCgalOffFileReadsOrFailsCleanly) {
  // Every file either reads, with every index in range, or fails with a
  // ReadError naming the file. Most are valid.
  std::size_t ok = 0, failed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PROX_CGAL_DATA_DIR "/meshes")) {
    if (entry.path().extension() != ".off") continue;
    try {
      const MeshData m = read_mesh(entry.path());
      for (const auto& t : m.triangles)
        for (const std::uint32_t i : t) ASSERT_LT(i, m.vertices.size()) << entry.path();
      ++ok;
    } catch (const ReadError& e) {
      EXPECT_NE(std::string(e.what()).find(entry.path().string()), std::string::npos);
      ++failed;
      std::cout << "  rejected: " << e.what() << "\n";
    }
  }
  std::cout << "  " << ok << " OFF files read, " << failed << " rejected\n";
  EXPECT_GT(ok, 120u);
}

TEST(ReadMesh, MillionTriangleBinaryPlyIsFast) {
  // ~1M triangles (sphere 500 x 1000): generate, write binary PLY, time the read.
  const int rings = prox::test::test_scale() < 1 ? 50 : 500;
  const MeshData m = make_sphere(1.0, rings, 1000);
  const std::string bytes =
      to_bytes([&](std::ostream& o) { write_ply(o, m, PlyEncoding::binary_little_endian); });
  const auto t0 = std::chrono::steady_clock::now();
  const MeshData r = parse_ply(bytes, "big.ply");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "  binary PLY, " << r.triangles.size() << " triangles, " << bytes.size() / 1e6
            << " MB: parsed in " << s * 1e3 << " ms\n";
  expect_same(m, r);
  if (prox::test::test_scale() >= 1) {
    EXPECT_LT(s, 1.0);
  }
}
