// tests/support/tsan_tbb.cpp — TSan build only (scripts/build.sh tsan): tells
// ThreadSanitizer about the happens-before edges inside Debian's libtbb.
//
// libtbb.so is not compiled with -fsanitize=thread, so TSan cannot see the
// atomics by which it hands a spawned task to the thread that runs it, hands
// the end of a task back to the waiting thread, or recycles task memory
// between threads. Without this file every parallel_for reports races on the
// task objects, and on prox's own data written before the loop and read inside
// it (tests/support/tsan-suppressions.txt explains what is left). This file
// interposes the few libtbb entry points that TBB's headers call and
// annotates them with TSan's __tsan_acquire / __tsan_release:
//   - spawn(task): release, and the task runs through a forwarding task that
//     acquires before calling the real one (spawn -> execute edge);
//   - wait / execute_and_wait: acquire the wait_context's reference count,
//     which every finished task decremented with an instrumented atomic in
//     TBB's headers (task end -> join edge);
//   - task_arena::execute: the delegate may run on a worker; release before,
//     acquire inside, release after it, acquire on return;
//   - deallocate / allocate of TBB's small-object pool: release the block when
//     it is freed, acquire it when it is handed out again.
// It models the synchronization TBB documents (a task sees everything before
// its spawn; a wait sees everything its tasks did) and adds no other edge, so a
// race between two tasks, or between a task and code not ordered by a spawn or
// a wait, is still reported. It is linked into the threaded test executables of
// the TSan build only (tests/CMakeLists.txt, PROX_TSAN).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include <oneapi/tbb/detail/_task.h>
#include <oneapi/tbb/detail/_small_object_pool.h>
#include <oneapi/tbb/detail/_utils.h>
#include <oneapi/tbb/task_arena.h>

extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);

namespace {

namespace d1 = tbb::detail::d1;

template <class F>
F real(const char* mangled) {
  void* f = dlsym(RTLD_NEXT, mangled);
  if (!f) {
    std::fprintf(stderr, "tsan_tbb: %s not found in libtbb\n", mangled);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

// The reference count of a wait_context (its second 8 bytes, an atomic that
// TBB's headers decrement when a task ends; layout checked below).
void* ref_count_of(d1::wait_context& w) { return reinterpret_cast<char*>(&w) + 8; }
static_assert(sizeof(d1::wait_context) == 16, "tbb::detail::d1::wait_context layout changed");

// Runs `inner` after acquiring what its spawner released.
class Forward final : public d1::task {
 public:
  explicit Forward(d1::task& inner) : inner_(inner) {}
  d1::task* execute(d1::execution_data& ed) override {
    __tsan_acquire(this);
    d1::task& inner = inner_;
    delete this;
    return inner.execute(ed);
  }
  d1::task* cancel(d1::execution_data& ed) override {
    __tsan_acquire(this);
    d1::task& inner = inner_;
    delete this;
    return inner.cancel(ed);
  }

 private:
  d1::task& inner_;
};

class ForwardDelegate final : public d1::delegate_base {
 public:
  explicit ForwardDelegate(d1::delegate_base& inner) : inner_(inner) {}
  bool operator()() const override {
    __tsan_acquire(const_cast<ForwardDelegate*>(this));
    const bool r = inner_();
    __tsan_release(const_cast<ForwardDelegate*>(this));
    return r;
  }

 private:
  d1::delegate_base& inner_;
};

}  // namespace

namespace tbb::detail::r1 {

void spawn(d1::task& t, d1::task_group_context& ctx) {
  static const auto f = real<void (*)(d1::task&, d1::task_group_context&)>(
      "_ZN3tbb6detail2r15spawnERNS0_2d14taskERNS2_18task_group_contextE");
  auto* w = new Forward(t);
  __tsan_release(w);
  f(*w, ctx);
}

void spawn(d1::task& t, d1::task_group_context& ctx, d1::slot_id id) {
  static const auto f = real<void (*)(d1::task&, d1::task_group_context&, d1::slot_id)>(
      "_ZN3tbb6detail2r15spawnERNS0_2d14taskERNS2_18task_group_contextEt");
  auto* w = new Forward(t);
  __tsan_release(w);
  f(*w, ctx, id);
}

void execute_and_wait(d1::task& t, d1::task_group_context& t_ctx, d1::wait_context& w,
                      d1::task_group_context& w_ctx) {
  static const auto f = real<void (*)(d1::task&, d1::task_group_context&, d1::wait_context&,
                                      d1::task_group_context&)>(
      "_ZN3tbb6detail2r116execute_and_waitERNS0_2d14taskERNS2_18task_group_contextERNS2_12wait_"
      "contextES6_");
  f(t, t_ctx, w, w_ctx);
  __tsan_acquire(ref_count_of(w));
}

void wait(d1::wait_context& w, d1::task_group_context& ctx) {
  static const auto f = real<void (*)(d1::wait_context&, d1::task_group_context&)>(
      "_ZN3tbb6detail2r14waitERNS0_2d112wait_contextERNS2_18task_group_contextE");
  f(w, ctx);
  __tsan_acquire(ref_count_of(w));
}

void execute(d1::task_arena_base& arena, d1::delegate_base& d) {
  static const auto f = real<void (*)(d1::task_arena_base&, d1::delegate_base&)>(
      "_ZN3tbb6detail2r17executeERNS0_2d115task_arena_baseERNS2_13delegate_baseE");
  ForwardDelegate w(d);
  __tsan_release(&w);
  f(arena, w);
  __tsan_acquire(&w);
}

void* allocate(d1::small_object_pool*& pool, std::size_t n, const d1::execution_data& ed) {
  static const auto f =
      real<void* (*)(d1::small_object_pool*&, std::size_t, const d1::execution_data&)>(
          "_ZN3tbb6detail2r18allocateERPNS0_2d117small_object_poolEmRKNS2_14execution_dataE");
  void* p = f(pool, n, ed);
  __tsan_acquire(p);
  return p;
}

void* allocate(d1::small_object_pool*& pool, std::size_t n) {
  static const auto f = real<void* (*)(d1::small_object_pool*&, std::size_t)>(
      "_ZN3tbb6detail2r18allocateERPNS0_2d117small_object_poolEm");
  void* p = f(pool, n);
  __tsan_acquire(p);
  return p;
}

void deallocate(d1::small_object_pool& pool, void* p, std::size_t n,
                const d1::execution_data& ed) {
  static const auto f =
      real<void (*)(d1::small_object_pool&, void*, std::size_t, const d1::execution_data&)>(
          "_ZN3tbb6detail2r110deallocateERNS0_2d117small_object_poolEPvmRKNS2_14execution_"
          "dataE");
  __tsan_release(p);
  f(pool, p, n, ed);
}

void deallocate(d1::small_object_pool& pool, void* p, std::size_t n) {
  static const auto f = real<void (*)(d1::small_object_pool&, void*, std::size_t)>(
      "_ZN3tbb6detail2r110deallocateERNS0_2d117small_object_poolEPvm");
  __tsan_release(p);
  f(pool, p, n);
}

}  // namespace tbb::detail::r1
