// bench/engine/peer_embree.cpp — Embree 3 (Debian's libembree-dev) as a peer.
//
// Closest point: rtcPointQuery with the per-primitive callback of Embree's
// closest_point tutorial: the callback computes the closest point on its
// triangle (Ericson) and shrinks query->radius when it improves. Rays:
// rtcIntersect1, one ray at a time (mask -1: Debian builds Embree with ray masks);
// the "embree16" peer traces the same rays with rtcIntersect16, 16 consecutive
// rays to a packet (the coherent-ray target of issue 8).
// Default scene and build settings (medium quality BVH, no robust flag), as a
// user gets them. Memory: bytes Embree reports to its device memory monitor.
#include <embree3/rtcore.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>

#include "peer.hpp"

namespace prox::bench {
namespace {

struct V3 {
  float x, y, z;
};
inline V3 sub(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline float dot3(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline V3 madd(V3 a, V3 d, float s) { return {a.x + d.x * s, a.y + d.y * s, a.z + d.z * s}; }

// Ericson's closest point on a triangle, in float, without degeneracy or NaN
// guards: the lean kernel the Embree tutorial uses, so the peer is measured as
// people run it (prox's own kernel carries the guards DESIGN.md asks for).
inline V3 closest_on_triangle(V3 p, V3 a, V3 b, V3 c) {
  const V3 ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
  const float d1 = dot3(ab, ap), d2 = dot3(ac, ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const V3 bp = sub(p, b);
  const float d3 = dot3(ab, bp), d4 = dot3(ac, bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const V3 cp = sub(p, c);
  const float d5 = dot3(ab, cp), d6 = dot3(ac, cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const float vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return madd(a, ab, d1 / (d1 - d3));
  const float vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return madd(a, ac, d2 / (d2 - d6));
  const float va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    return madd(b, sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
  }
  const float denom = 1 / (va + vb + vc);
  return madd(madd(a, ab, vb * denom), ac, vc * denom);
}

struct FloatRay {
  V3 origin, direction;
  float t_min;
};

struct ClosestResult {
  const float* vertices;           // xyz + pad per vertex (Embree's buffer)
  const std::uint32_t* triangles;  // 3 per triangle
  float sq_distance;
  std::int32_t triangle;
};

bool closest_point_callback(RTCPointQueryFunctionArguments* args) {
  auto* result = static_cast<ClosestResult*>(args->userPtr);
  const std::uint32_t* t = result->triangles + 3 * std::size_t{args->primID};
  auto corner = [&](std::uint32_t v) {
    const float* q = result->vertices + 4 * std::size_t{v};
    return V3{q[0], q[1], q[2]};
  };
  const V3 p{args->query->x, args->query->y, args->query->z};
  const V3 c = closest_on_triangle(p, corner(t[0]), corner(t[1]), corner(t[2]));
  const V3 d = sub(p, c);
  const float sq = dot3(d, d);
  const float dist = std::sqrt(sq);
  if (dist < args->query->radius) {
    args->query->radius = dist;
    result->sq_distance = sq;
    result->triangle = static_cast<std::int32_t>(args->primID);
    return true;
  }
  return false;
}

bool memory_monitor(void* user, ssize_t bytes, bool /*post*/) {
  static_cast<std::atomic<long long>*>(user)->fetch_add(bytes);
  return true;
}

class EmbreePeer final : public Peer {
 public:
  explicit EmbreePeer(bool packets = false) : packets_(packets) {
    device_ = rtcNewDevice(nullptr);
    if (!device_) throw std::runtime_error("embree: rtcNewDevice failed");
    rtcSetDeviceMemoryMonitorFunction(device_, memory_monitor, &bytes_);
  }
  ~EmbreePeer() override {
    if (scene_) rtcReleaseScene(scene_);
    rtcReleaseDevice(device_);
  }
  EmbreePeer(const EmbreePeer&) = delete;
  EmbreePeer& operator=(const EmbreePeer&) = delete;

  std::string name() const override { return packets_ ? "embree16" : "embree"; }
  std::string description() const override {
    return "Embree " + std::to_string(RTC_VERSION_MAJOR) + "." +
           std::to_string(RTC_VERSION_MINOR) + "." + std::to_string(RTC_VERSION_PATCH) +
           (packets_ ? " float: rtcIntersect16 on 16 consecutive rays (ray workloads only)"
                     : " float: rtcPointQuery + tutorial callback; rtcIntersect1") +
           "; default build quality";
  }
  bool runs(const std::string& workload) const override {
    return !packets_ || is_ray_workload(workload);
  }
  bool single_precision() const override { return true; }

  void build(const BenchMesh& mesh) override {
    if (scene_) rtcReleaseScene(scene_);
    scene_ = nullptr;
    bytes_ = 0;
    scene_ = rtcNewScene(device_);
    RTCGeometry geom = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
    auto* v = static_cast<float*>(rtcSetNewGeometryBuffer(
        geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 4 * sizeof(float),
        mesh.vertices.size()));
    for (std::size_t i = 0; i < mesh.vertices.size(); ++i) {
      for (int k = 0; k < 3; ++k) v[4 * i + k] = static_cast<float>(mesh.vertices[i][k]);
      v[4 * i + 3] = 0;
    }
    auto* t = static_cast<std::uint32_t*>(rtcSetNewGeometryBuffer(
        geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(std::uint32_t),
        mesh.triangles.size()));
    for (std::size_t i = 0; i < mesh.triangles.size(); ++i) {
      for (int k = 0; k < 3; ++k) t[3 * i + k] = mesh.triangles[i][k];
    }
    vertices_ = v;
    triangles_ = t;
    rtcSetGeometryPointQueryFunction(geom, closest_point_callback);
    rtcCommitGeometry(geom);
    rtcAttachGeometry(scene_, geom);
    rtcReleaseGeometry(geom);
    rtcCommitScene(scene_);
    if (rtcGetDeviceError(device_) != RTC_ERROR_NONE) {
      throw std::runtime_error("embree: scene build failed");
    }
  }
  std::size_t memory_bytes() const override {
    return bytes_ > 0 ? static_cast<std::size_t>(bytes_.load()) : 0;
  }
  std::string memory_method() const override { return "device memory monitor"; }

  void set_points(const std::vector<Vec3d>& points) override {
    points_.resize(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
      points_[i] = V3{static_cast<float>(points[i][0]), static_cast<float>(points[i][1]),
                      static_cast<float>(points[i][2])};
    }
    cp_.assign(points.size(), CpAnswer{});
  }
  void closest_points(int threads) override {
    parallel_blocks(points_.size(), threads, [&](std::size_t begin, std::size_t end) {
      RTCPointQueryContext context;
      for (std::size_t i = begin; i < end; ++i) {
        RTCPointQuery query;
        query.x = points_[i].x;
        query.y = points_[i].y;
        query.z = points_[i].z;
        query.time = 0;
        query.radius = std::numeric_limits<float>::infinity();
        ClosestResult result{vertices_, triangles_, std::numeric_limits<float>::infinity(), -1};
        rtcInitPointQueryContext(&context);
        rtcPointQuery(scene_, &query, &context, nullptr, &result);
        cp_[i].distance = std::sqrt(static_cast<double>(result.sq_distance));
        cp_[i].triangle = result.triangle;
      }
    });
  }
  std::vector<CpAnswer> cp_answers() const override { return cp_; }

  void set_rays(const std::vector<Ray<double>>& rays) override {
    rays_.resize(rays.size());
    for (std::size_t i = 0; i < rays.size(); ++i) {
      const Ray<double>& r = rays[i];
      rays_[i] = FloatRay{{static_cast<float>(r.origin[0]), static_cast<float>(r.origin[1]),
                           static_cast<float>(r.origin[2])},
                          {static_cast<float>(r.direction[0]), static_cast<float>(r.direction[1]),
                           static_cast<float>(r.direction[2])},
                          static_cast<float>(r.t_min)};
    }
    hits_.assign(rays.size(), RayAnswer{});
  }
  void first_hits(int threads) override {
    if (packets_) return first_hits16(threads);
    parallel_blocks(rays_.size(), threads, [&](std::size_t begin, std::size_t end) {
      RTCIntersectContext context;
      rtcInitIntersectContext(&context);
      for (std::size_t i = begin; i < end; ++i) {
        const FloatRay& r = rays_[i];
        RTCRayHit rh;
        rh.ray.org_x = r.origin.x;
        rh.ray.org_y = r.origin.y;
        rh.ray.org_z = r.origin.z;
        rh.ray.dir_x = r.direction.x;
        rh.ray.dir_y = r.direction.y;
        rh.ray.dir_z = r.direction.z;
        rh.ray.tnear = r.t_min;
        rh.ray.tfar = std::numeric_limits<float>::infinity();
        rh.ray.time = 0;
        rh.ray.mask = static_cast<unsigned>(-1);
        rh.ray.id = 0;
        rh.ray.flags = 0;
        rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
        rh.hit.primID = RTC_INVALID_GEOMETRY_ID;
        rtcIntersect1(scene_, &context, &rh);
        if (rh.hit.geomID != RTC_INVALID_GEOMETRY_ID) {
          hits_[i].t = rh.ray.tfar;
          hits_[i].triangle = static_cast<std::int32_t>(rh.hit.primID);
        } else {
          hits_[i] = RayAnswer{};
        }
      }
    });
  }
  std::vector<RayAnswer> ray_answers() const override { return hits_; }

 private:
  void first_hits16(int threads) {
    parallel_blocks(rays_.size(), threads, [&](std::size_t begin, std::size_t end) {
      RTCIntersectContext context;
      rtcInitIntersectContext(&context);
      for (std::size_t b = begin; b < end; b += 16) {
        alignas(64) RTCRayHit16 rh;
        alignas(64) int valid[16];
        const std::size_t m = std::min<std::size_t>(16, end - b);
        for (std::size_t k = 0; k < 16; ++k) {
          const FloatRay& r = rays_[b + (k < m ? k : 0)];
          valid[k] = k < m ? -1 : 0;
          rh.ray.org_x[k] = r.origin.x;
          rh.ray.org_y[k] = r.origin.y;
          rh.ray.org_z[k] = r.origin.z;
          rh.ray.dir_x[k] = r.direction.x;
          rh.ray.dir_y[k] = r.direction.y;
          rh.ray.dir_z[k] = r.direction.z;
          rh.ray.tnear[k] = r.t_min;
          rh.ray.tfar[k] = std::numeric_limits<float>::infinity();
          rh.ray.time[k] = 0;
          rh.ray.mask[k] = static_cast<unsigned>(-1);
          rh.ray.id[k] = 0;
          rh.ray.flags[k] = 0;
          rh.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
          rh.hit.primID[k] = RTC_INVALID_GEOMETRY_ID;
        }
        rtcIntersect16(valid, scene_, &context, &rh);
        for (std::size_t k = 0; k < m; ++k) {
          if (rh.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID) {
            hits_[b + k].t = rh.ray.tfar[k];
            hits_[b + k].triangle = static_cast<std::int32_t>(rh.hit.primID[k]);
          } else {
            hits_[b + k] = RayAnswer{};
          }
        }
      }
    });
  }

  bool packets_ = false;
  RTCDevice device_ = nullptr;
  RTCScene scene_ = nullptr;
  std::atomic<long long> bytes_{0};
  const float* vertices_ = nullptr;
  const std::uint32_t* triangles_ = nullptr;
  std::vector<V3> points_;
  std::vector<CpAnswer> cp_;
  std::vector<FloatRay> rays_;
  std::vector<RayAnswer> hits_;
};

}  // namespace

std::unique_ptr<Peer> make_embree_peer() { return std::make_unique<EmbreePeer>(); }
std::unique_ptr<Peer> make_embree16_peer() { return std::make_unique<EmbreePeer>(true); }

}  // namespace prox::bench
