// Counts heap allocations while a test asks (scheduler_test: no allocation per run after
// warm-up). Replaces the global operator new/delete for this test binary; they forward to
// malloc/free, so the sanitizers still see every allocation. The nothrow forms are replaced too
// (std::stable_sort's temporary buffer uses them): left to ASan's, they would allocate as
// `new` and free through the replaced delete, an alloc-dealloc mismatch.
#include <atomic>
#include <cstdlib>
#include <new>

namespace duet::fibertest {
std::atomic<bool> g_count_allocations{false};
std::atomic<long> g_allocations{0};
}  // namespace duet::fibertest

void* operator new(std::size_t n) {
  if (duet::fibertest::g_count_allocations.load(std::memory_order_relaxed))
    duet::fibertest::g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return operator new(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
