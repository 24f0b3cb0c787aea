// tests/io/test_load_index.cpp — io::load_index: a file read and indexed in one
// call answers exactly as read_mesh + TriangleMesh + MeshIndex by hand, in float
// and double; every failure is one ReadError naming the file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "prox/io/load_index.hpp"
#include "prox/io/read_mesh.hpp"
#include "prox/io/shapes.hpp"
#include "prox/io/write_mesh.hpp"

using namespace prox;

namespace {

// A file in a fresh folder under the temp dir, removed with the folder.
class TempFile {
 public:
  explicit TempFile(const std::string& name, const std::string& bytes) {
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() / ("prox-load-index-" + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
    std::ofstream(path(name), std::ios::binary) << bytes;
    name_ = name;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::filesystem::path path(const std::string& name) const { return dir_ / name; }
  std::filesystem::path path() const { return dir_ / name_; }

 private:
  std::filesystem::path dir_;
  std::string name_;
};

std::string off_text(const io::MeshData& m) {
  std::ostringstream s;
  io::write_off(s, m);
  return s.str();
}

template <class T>
void same_answers_as_by_hand() {
  const io::MeshData torus = io::make_torus(1.0, 0.3, 48, 16);
  const TempFile file("torus.off", off_text(torus));
  io::LoadOptions options;
  options.build.threads = 2;
  const io::LoadedIndex<T> loaded = io::load_index<T>(file.path(), options);
  ASSERT_NE(loaded.index, nullptr);
  EXPECT_EQ(loaded.vertices, torus.vertices.size());
  EXPECT_EQ(loaded.triangles, torus.triangles.size());
  EXPECT_TRUE(loaded.data.vertices.empty()) << "data is kept only when asked";
  EXPECT_GE(loaded.read_ms, 0.0);
  EXPECT_GE(loaded.build_ms, 0.0);

  const io::MeshData read = io::read_mesh(file.path());
  std::vector<Vec3<T>> vertices;
  for (const Vec3d& v : read.vertices) vertices.push_back(v.template cast<T>());
  const MeshIndex<T> by_hand(TriangleMesh<T>(vertices, read.triangles));
  ASSERT_EQ(loaded.index->mesh().num_triangles(), by_hand.mesh().num_triangles());
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  for (int i = 0; i < 500; ++i) {
    const Vec3<T> p{T(u(rng)), T(u(rng)), T(u(rng))};
    const MeshClosestPoint<T> a = loaded.index->closest_point(p), b = by_hand.closest_point(p);
    EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << i;
    const Ray<T> ray{p, Vec3<T>{T(u(rng)), T(u(rng)), T(u(rng))}};
    const MeshRayHit<T> h = loaded.index->first_hit(ray), g = by_hand.first_hit(ray);
    EXPECT_EQ(std::memcmp(&h, &g, sizeof h), 0) << i;
  }
}

TEST(LoadIndex, AnswersAsReadAndBuiltByHandDouble) { same_answers_as_by_hand<double>(); }
TEST(LoadIndex, AnswersAsReadAndBuiltByHandFloat) { same_answers_as_by_hand<float>(); }

TEST(LoadIndex, KeepsTheDataWhenAsked) {
  const io::MeshData sphere = io::make_sphere(1.0, 8, 12);
  const TempFile file("sphere.off", off_text(sphere));
  io::LoadOptions options;
  options.keep_data = true;
  const auto loaded = io::load_index<double>(file.path(), options);
  EXPECT_EQ(loaded.data.vertices, sphere.vertices);
  EXPECT_EQ(loaded.data.triangles, sphere.triangles);
}

TEST(LoadIndex, ErrorsNameTheFile) {
  // A triangle that uses a vertex that does not exist: the mesh's error, prefixed by the file.
  const TempFile bad_index("bad-index.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 9\n");
  try {
    io::load_index<double>(bad_index.path());
    FAIL() << "an out-of-range index must be refused";
  } catch (const io::ReadError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(bad_index.path().string() + ": ", 0), 0u) << e.what();
  }
  const std::filesystem::path missing = bad_index.path("missing.off");
  try {
    io::load_index<float>(missing);
    FAIL() << "a missing file must be refused";
  } catch (const io::ReadError& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
}

TEST(LoadIndex, FloatOverflowIsANonFiniteVertex) {
  // 1e300 is finite in double and +inf in float: refused for float; for double it
  // is outside prox's range (|x| <= 2^120, docs/reliability.md), refused with the
  // limit named; with drop_triangles the float mesh keeps only the triangle that
  // avoids it.
  const TempFile file("big.off",
                      "OFF\n5 2 0\n0 0 0\n1 0 0\n0 1 0\n1e300 0 0\n0 0 1\n3 0 1 2\n3 0 3 4\n");
  try {
    (void)io::load_index<double>(file.path());
    ADD_FAILURE() << "a vertex at 1e300 was accepted";
  } catch (const io::ReadError& e) {
    EXPECT_NE(std::string(e.what()).find("outside prox's double range"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(io::load_index<float>(file.path()), io::ReadError);
  io::LoadOptions drop;
  drop.non_finite = NonFinitePolicy::drop_triangles;
  EXPECT_EQ(io::load_index<float>(file.path(), drop).index->mesh().num_triangles(), 1u);
}

}  // namespace
