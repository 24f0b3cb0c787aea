// src/mesh/engine_dispatch.cpp — picks the ISA path of the mesh engine
// (prox/mesh/isa.hpp): the best one that is built and that the CPU runs
// (cpuid through __builtin_cpu_supports, which also checks that the OS saves
// the wide registers), or the one PROX_ISA names. Chosen once; set_isa()
// switches (an atomic pointer, read once per query).
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine.hpp"
#include "prox/core/platform.hpp"

namespace prox::detail {
#if defined(PROX_ENGINE_NATIVE)
namespace PROX_ISA_NAMESPACE { const EngineTable& engine_table(); }
#else
namespace sse2 { const EngineTable& engine_table(); }
#if defined(PROX_ENGINE_AVX2)
namespace avx2 { const EngineTable& engine_table(); }
#endif
#if defined(PROX_ENGINE_AVX512)
namespace avx512 { const EngineTable& engine_table(); }
#endif
#endif
}  // namespace prox::detail

namespace prox {
namespace {

bool cpu_runs(Isa isa) {
#if defined(PROX_X86_64) && (defined(__GNUC__) || defined(__clang__))
  switch (isa) {
    case Isa::scalar:
    case Isa::sse2:
      return true;
    case Isa::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("bmi2");
    case Isa::avx512:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512bw");
  }
  return false;
#else
  return isa == Isa::scalar;
#endif
}

/// The tables built into this binary, slowest first.
std::vector<const detail::EngineTable*> built_tables() {
  std::vector<const detail::EngineTable*> t;
#if defined(PROX_ENGINE_NATIVE)
  t.push_back(&detail::PROX_ISA_NAMESPACE::engine_table());
#else
  t.push_back(&detail::sse2::engine_table());
#if defined(PROX_ENGINE_AVX2)
  t.push_back(&detail::avx2::engine_table());
#endif
#if defined(PROX_ENGINE_AVX512)
  t.push_back(&detail::avx512::engine_table());
#endif
#endif
  return t;
}

const detail::EngineTable* find_table(Isa isa) {
  for (const detail::EngineTable* t : built_tables())
    if (t->isa == isa && cpu_runs(isa)) return t;
  return nullptr;
}

struct State {
  std::atomic<const detail::EngineTable*> table{nullptr};
  std::string note;  // what PROX_ISA asked for, when it could not be honoured
  State() {
    const detail::EngineTable* best = nullptr;
    for (const detail::EngineTable* t : built_tables())
      if (cpu_runs(t->isa)) best = t;
    const char* env = std::getenv("PROX_ISA");
    if (env != nullptr && *env != '\0') {
      const detail::EngineTable* asked = nullptr;
      for (Isa isa : {Isa::scalar, Isa::sse2, Isa::avx2, Isa::avx512})
        if (std::strcmp(env, isa_name(isa)) == 0) asked = find_table(isa);
      if (asked != nullptr) {
        best = asked;
        note = "; PROX_ISA=" + std::string(env);
      } else {
        note = "; PROX_ISA=" + std::string(env) + " is not available here, ignored";
      }
    }
    table.store(best, std::memory_order_relaxed);
  }
};

State& state() {
  static State s;
  return s;
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::scalar: return "scalar";
    case Isa::sse2: return "sse2";
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
  }
  return "?";
}

std::vector<Isa> available_isas() {
  std::vector<Isa> out;
  for (const detail::EngineTable* t : built_tables())
    if (cpu_runs(t->isa)) out.push_back(t->isa);
  return out;
}

Isa active_isa() { return detail::engine().isa; }

void set_isa(Isa isa) {
  const detail::EngineTable* t = find_table(isa);
  if (t == nullptr)
    throw std::invalid_argument(std::string("prox: ISA path ") + isa_name(isa) +
                                " is not available (not built, or this CPU lacks it)");
  state().table.store(t, std::memory_order_relaxed);
}

std::string isa_description() {
  std::string s = isa_name(active_isa());
  s += " (CPU runs:";
  for (Isa isa : {Isa::sse2, Isa::avx2, Isa::avx512})
    if (cpu_runs(isa)) s += std::string(" ") + isa_name(isa);
  s += "; built:";
  for (const detail::EngineTable* t : built_tables()) s += std::string(" ") + isa_name(t->isa);
#if defined(PROX_ENGINE_NATIVE)
  s += " (-march=native)";
#endif
  return s + state().note + ")";
}

namespace detail {
const EngineTable& engine() { return *state().table.load(std::memory_order_relaxed); }
}  // namespace detail

}  // namespace prox
