// std::lock_guard, std::scoped_lock, std::unique_lock and std::shared_lock for duet's mutexes
// (duet/sync.hpp includes this after them): the bodies, and the specialisations of std's lock
// types, so that code written with std's lock types records its own lines in fiber runs.
#pragma once

#include <mutex>
#include <shared_mutex>
#include <system_error>
#include <utility>

#include "duet/detail/source_location.hpp"

namespace duet {
class mutex;
class recursive_mutex;
class shared_mutex;
}  // namespace duet

namespace duet::detail {

// The bodies of std::lock_guard / std::scoped_lock / std::unique_lock / std::shared_lock for
// duet's mutexes (specialised below): the same interface, plus the constructing line, which
// the lock and the destructor's unlock record.
template <class M>
class lock_guard_impl {
 public:
  using mutex_type = M;
  explicit lock_guard_impl(M& m, duet::source_location loc = duet::source_location::current()) : m_(m), loc_(loc) {
    m_.lock(loc_);
  }
  lock_guard_impl(M& m, std::adopt_lock_t, duet::source_location loc = duet::source_location::current()) noexcept
      : m_(m), loc_(loc) {}
  ~lock_guard_impl() { m_.unlock(loc_); }
  lock_guard_impl(const lock_guard_impl&) = delete;
  lock_guard_impl& operator=(const lock_guard_impl&) = delete;

 private:
  M& m_;
  duet::source_location loc_;
};

template <class M>
class scoped_lock_impl {
 public:
  using mutex_type = M;
  explicit scoped_lock_impl(M& m, duet::source_location loc = duet::source_location::current()) : m_(m), loc_(loc) {
    m_.lock(loc_);
  }
  scoped_lock_impl(std::adopt_lock_t, M& m, duet::source_location loc = duet::source_location::current()) noexcept
      : m_(m), loc_(loc) {}
  ~scoped_lock_impl() { m_.unlock(loc_); }
  scoped_lock_impl(const scoped_lock_impl&) = delete;
  scoped_lock_impl& operator=(const scoped_lock_impl&) = delete;

 private:
  M& m_;
  duet::source_location loc_;
};

// Shared = true: lock_shared / unlock_shared (std::shared_lock).
template <class M, bool Shared>
class unique_lock_impl {
  using loc_t = duet::source_location;

 public:
  using mutex_type = M;
  unique_lock_impl() noexcept = default;
  explicit unique_lock_impl(M& m, loc_t loc = loc_t::current()) : m_(&m), loc_(loc) {
    acquire(loc);
    owns_ = true;
  }
  unique_lock_impl(M& m, std::defer_lock_t, loc_t loc = loc_t::current()) noexcept : m_(&m), loc_(loc) {}
  unique_lock_impl(M& m, std::try_to_lock_t, loc_t loc = loc_t::current()) : m_(&m), loc_(loc) { owns_ = try_acquire(loc); }
  unique_lock_impl(M& m, std::adopt_lock_t, loc_t loc = loc_t::current()) noexcept : m_(&m), owns_(true), loc_(loc) {}
  ~unique_lock_impl() {
    if (owns_) release_lock(loc_);
  }
  unique_lock_impl(unique_lock_impl&& o) noexcept
      : m_(std::exchange(o.m_, nullptr)), owns_(std::exchange(o.owns_, false)), loc_(o.loc_) {}
  unique_lock_impl& operator=(unique_lock_impl&& o) noexcept {
    if (owns_) release_lock(loc_);
    m_ = std::exchange(o.m_, nullptr);
    owns_ = std::exchange(o.owns_, false);
    loc_ = o.loc_;
    return *this;
  }
  unique_lock_impl(const unique_lock_impl&) = delete;
  unique_lock_impl& operator=(const unique_lock_impl&) = delete;

  void lock(loc_t loc = loc_t::current()) {
    check(true);
    acquire(loc);
    owns_ = true;
  }
  bool try_lock(loc_t loc = loc_t::current()) {
    check(true);
    return owns_ = try_acquire(loc);
  }
  void unlock(loc_t loc = loc_t::current()) {
    check(false);
    release_lock(loc);
    owns_ = false;
  }
  void swap(unique_lock_impl& o) noexcept {
    std::swap(m_, o.m_);
    std::swap(owns_, o.owns_);
    std::swap(loc_, o.loc_);
  }
  M* release() noexcept {
    owns_ = false;
    return std::exchange(m_, nullptr);
  }
  bool owns_lock() const noexcept { return owns_; }
  explicit operator bool() const noexcept { return owns_; }
  M* mutex() const noexcept { return m_; }

 private:
  void acquire(loc_t loc) {
    if constexpr (Shared) m_->lock_shared(loc);
    else m_->lock(loc);
  }
  bool try_acquire(loc_t loc) {
    if constexpr (Shared) return m_->try_lock_shared(loc);
    else return m_->try_lock(loc);
  }
  void release_lock(loc_t loc) {
    if constexpr (Shared) m_->unlock_shared(loc);
    else m_->unlock(loc);
  }
  // std's errors for locking without a mutex, relocking, or unlocking what is not owned.
  void check(bool locking) const {
    if (m_ == nullptr) throw std::system_error(std::make_error_code(std::errc::operation_not_permitted));
    if (locking && owns_) throw std::system_error(std::make_error_code(std::errc::resource_deadlock_would_occur));
    if (!locking && !owns_) throw std::system_error(std::make_error_code(std::errc::operation_not_permitted));
  }

  M* m_ = nullptr;
  bool owns_ = false;
  loc_t loc_{};
};

}  // namespace duet::detail

// Specialisations for duet's mutexes (allowed: they depend on user-defined types), so that code
// written with std's lock types records its own lines in fiber runs.
namespace std {
template <>
class lock_guard<duet::mutex> : public duet::detail::lock_guard_impl<duet::mutex> {
 public:
  using lock_guard_impl::lock_guard_impl;
};
template <>
class lock_guard<duet::recursive_mutex> : public duet::detail::lock_guard_impl<duet::recursive_mutex> {
 public:
  using lock_guard_impl::lock_guard_impl;
};
template <>
class lock_guard<duet::shared_mutex> : public duet::detail::lock_guard_impl<duet::shared_mutex> {
 public:
  using lock_guard_impl::lock_guard_impl;
};
template <>
class scoped_lock<duet::mutex> : public duet::detail::scoped_lock_impl<duet::mutex> {
 public:
  using scoped_lock_impl::scoped_lock_impl;
};
template <>
class scoped_lock<duet::recursive_mutex> : public duet::detail::scoped_lock_impl<duet::recursive_mutex> {
 public:
  using scoped_lock_impl::scoped_lock_impl;
};
template <>
class scoped_lock<duet::shared_mutex> : public duet::detail::scoped_lock_impl<duet::shared_mutex> {
 public:
  using scoped_lock_impl::scoped_lock_impl;
};
template <>
class unique_lock<duet::mutex> : public duet::detail::unique_lock_impl<duet::mutex, false> {
 public:
  using unique_lock_impl::unique_lock_impl;
};
template <>
class unique_lock<duet::recursive_mutex> : public duet::detail::unique_lock_impl<duet::recursive_mutex, false> {
 public:
  using unique_lock_impl::unique_lock_impl;
};
template <>
class unique_lock<duet::shared_mutex> : public duet::detail::unique_lock_impl<duet::shared_mutex, false> {
 public:
  using unique_lock_impl::unique_lock_impl;
};
template <>
class shared_lock<duet::shared_mutex> : public duet::detail::unique_lock_impl<duet::shared_mutex, true> {
 public:
  using unique_lock_impl::unique_lock_impl;
};
}  // namespace std
