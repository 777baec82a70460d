#include "execute/fibers/shared_storage.hpp"

#include "execute/fibers/instrumented.hpp"
#include "execute/fibers/runtime.hpp"

namespace duet::detail::fiber {

void SharedStorageWatch::used(std::uintptr_t address, std::uint32_t fiber, const void* pc) {
  if (!on_ || shared_) return;  // the first is the one the report names
  const auto [it, first] = users_.try_emplace(address & ~std::uintptr_t{7}, User{fiber, pc});
  if (first || it->second.fiber == fiber) return;
  shared_ = true;
  first_ = it->second;
  second_ = User{fiber, pc};
}

std::string SharedStorageWatch::shared_use() const {
  if (!shared_) return {};
  return "fiber " + std::to_string(first_.fiber) + " (at " + location(symbolize(first_.pc)) + ") and fiber " +
         std::to_string(second_.fiber) + " (at " + location(symbolize(second_.pc)) +
         ") used one thread_local variable, which on real threads would be each thread's own: on this platform "
         "fibers share their thread's storage (per-fiber thread-local storage is x86-64's only), so state a thread "
         "keeps for itself (a pool's per-thread data, reached through a thread_local) is two fibers' here, and a "
         "race that follows may be duet's, not the code's. No verdict: check this code on x86-64, or on threads";
}

}  // namespace duet::detail::fiber
