// Random numbers and calendar time, defined in the executable so that they reach duet before the
// C library (as interpose.cpp's calls do): within a fiber trial (its run, and on the scheduling
// thread the subject's construction, prefix and suffix) they are a function of the trial alone,
// so that a replay computes what the run it replays computed. Outside a trial each is the C
// library's own, and the process's state (what rand() returns next) is left as it was.
//   rand, random, srand, srandom     the trial's own generator, seeded 1 as a fresh process's
//   drand48, lrand48, mrand48,       the trial's own 48-bit state, zero as a fresh process's
//     srand48, seed48                (erand48, nrand48, jrand48, rand_r take the caller's state)
//   getrandom, getentropy,           a fixed stream of the trial's (libstdc++'s random_device
//     std::random_device             reads the CPU's rdrand or getentropy: both are covered)
//   time, gettimeofday, timespec_get virtual time, as clock_gettime (virtual_time.cpp)
//   getpid                           the test process's, in every process forked from it (the
//                                    shrinking's fresh processes, engine/clean_child.hpp): RocksDB
//                                    mixes it into the session ids it hashes into lock stripes;
//                                    kill of that id signals the process the trial runs in
//   get_nprocs, get_nprocs_conf,     a machine of 4 CPUs (0 to 3), whatever the machine, so
//     sysconf's CPU counts,          that a pool sized by it is as large wherever a token is
//     std::thread::hardware_concurrency, replayed; setting an affinity does nothing
//     sched_/pthread_ get/setaffinity
//   sched_getcpu                     the fiber's number modulo 4 (or the machine's count where
//                                    smaller; 0 off a fiber)
//   open, openat, fopen of           a file in memory holding the trial's stream (RocksDB reads
//     /dev/urandom, /dev/random,     a UUID from the kernel for every database it opens, and
//     /proc/sys/kernel/random/uuid   hashes it into which lock stripe a cache entry takes)
// What is not covered: entropy read through a descriptor opened before the trial, the CPU's
// rdrand called by the subject's own code, and more than kEntropyFileBytes of one such file.
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string_view>
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "execute/fibers/determinism.hpp"
#include "execute/fibers/thread_locals.hpp"
#include "execute/instrumented/instrumented.hpp"

namespace duet::detail::instrumented {
namespace {

constexpr std::int64_t kNs = 1'000'000'000;

// The C library's definition of `name`, typed (instrumented.hpp's real).
#define DUET_NEXT(name, ...)                  \
  static std::atomic<void*> duet_next_slot{}; \
  auto* const next = real<__VA_ARGS__>(duet_next_slot, name)

// What a trial's random numbers come from. Every trial starts from the same state: a fresh
// process's for rand and drand48 (a subject's tests may know its first values), a fixed seed for
// the rest.
struct TrialRandom {
  std::uint64_t trial = 0;
  random_data rand{};
  char rand_state[128]{};  // glibc's default size for rand()'s generator
  unsigned short x48[3]{};
  unsigned short old48[3]{};  // what seed48 returns
  std::uint64_t bits = 0;     // splitmix64
};
constinit thread_local TrialRandom* t_random = nullptr;

constexpr std::uint64_t kBitsSeed = 0x5eed'd0e7'0000'0001;

void start_over(TrialRandom& r, std::uint64_t trial) noexcept {
  r.trial = trial;
  r.rand = {};  // initstate_r needs it zeroed
  initstate_r(1, r.rand_state, sizeof r.rand_state, &r.rand);
  r.x48[0] = r.x48[1] = r.x48[2] = 0;
  r.bits = kBitsSeed;
}

// The calling code's trial generator, or null: outside a trial, or duet's own code running.
TrialRandom* trial_random() noexcept {
  if (fiber::t_in_runtime != 0) return nullptr;
  const std::uint64_t trial = fiber::host_local(fiber::t_trial);
  if (trial == 0) return nullptr;
  TrialRandom& r = fiber::host_shared(t_random);
  if (r.trial != trial) start_over(r, trial);
  return &r;
}

std::uint64_t next_bits(TrialRandom& r) noexcept {
  std::uint64_t z = (r.bits += 0x9e37'79b9'7f4a'7c15);
  z = (z ^ (z >> 30)) * 0xbf58'476d'1ce4'e5b9;
  z = (z ^ (z >> 27)) * 0x94d0'49bb'1331'11eb;
  return z ^ (z >> 31);
}

void fill(TrialRandom& r, void* buffer, std::size_t length) noexcept {
  auto* out = static_cast<unsigned char*>(buffer);
  while (length > 0) {
    const std::uint64_t v = next_bits(r);
    const std::size_t n = length < sizeof v ? length : sizeof v;
    std::memcpy(out, &v, n);
    out += n;
    length -= n;
  }
}

// The test process's id, read before main (before any fork of duet's): a trial sees it in every
// process forked from the test's.
const pid_t g_test_pid = static_cast<pid_t>(syscall(SYS_getpid));

bool in_trial() noexcept { return fiber::t_in_runtime == 0 && fiber::host_local(fiber::t_trial) != 0; }

// A trial runs on a machine of four CPUs, whatever the machine: a library sizing its pool by the
// count (Boost.Asio's thread_pool: twice it) or by its affinity mask starts as many threads,
// that is fibers, wherever its token is replayed. The CPU a fiber is on stays below the machine's
// count too, so that an array sized by the count outside a trial holds every index.
constexpr int kTrialCpus = 4;

int cpu_of_fibers() noexcept {
  static const int cpus = [] {
    DUET_NEXT("get_nprocs_conf", int());
    return std::clamp(next(), 1, kTrialCpus);
  }();
  return cpus;
}

// The trial's affinity mask: CPUs 0 to 3, in a set of `size` bytes (EINVAL where they do not fit,
// as the kernel's for a set too small for the machine).
int trial_affinity(std::size_t size, cpu_set_t* set) noexcept {
  if (size * 8 < static_cast<std::size_t>(kTrialCpus)) return EINVAL;
  CPU_ZERO_S(size, set);
  for (int cpu = 0; cpu < kTrialCpus; ++cpu) CPU_SET_S(static_cast<std::size_t>(cpu), size, set);
  return 0;
}

// Calendar time as a trial sees it: virtual, from the trial's start.
bool trial_time(timespec& t) noexcept {
  if (!in_trial()) return false;
  const std::int64_t ns = virtual_now_ns(CLOCK_REALTIME);
  t.tv_sec = static_cast<time_t>(ns / kNs);
  t.tv_nsec = static_cast<long>(ns % kNs);
  return true;
}

// A trial's open of one of the kernel's entropy files: a file in memory holding the trial's
// stream instead (a UUID's text for the kernel's UUID file), read from its start; -1 for any
// other file, or outside a trial. The descriptor is the subject's to close, like the real one.
constexpr std::size_t kEntropyFileBytes = 4096;
int entropy_file(const char* path, int flags) noexcept {
  if (path == nullptr || path[0] != '/' || (flags & O_ACCMODE) != O_RDONLY) return -1;
  const std::string_view p = path;
  const bool uuid = p == "/proc/sys/kernel/random/uuid";
  if (!uuid && p != "/dev/urandom" && p != "/dev/random") return -1;
  TrialRandom* r = trial_random();
  if (r == nullptr) return -1;
  const unsigned cloexec = (flags & O_CLOEXEC) != 0 ? 1U : 0U;  // MFD_CLOEXEC
  const int fd = static_cast<int>(syscall(SYS_memfd_create, "duet-entropy", cloexec));
  if (fd < 0) return -1;  // the real file, then
  char bytes[kEntropyFileBytes];
  std::size_t length = sizeof bytes;
  if (uuid) {  // version 4, variant 1: as the kernel's
    const std::uint64_t a = next_bits(*r), b = next_bits(*r);
    length = static_cast<std::size_t>(std::snprintf(
        bytes, sizeof bytes, "%08x-%04x-4%03x-%04x-%012llx\n", static_cast<unsigned>(a >> 32),
        static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
        static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)), static_cast<unsigned long long>(b & 0xffff'ffff'ffffULL)));
  } else {
    fill(*r, bytes, sizeof bytes);
  }
  if (write(fd, bytes, length) != static_cast<ssize_t>(length) || lseek(fd, 0, SEEK_SET) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// fopen's mode as open's flags, as far as entropy_file looks.
int fopen_flags(const char* mode) noexcept {
  const bool read_only = mode != nullptr && mode[0] == 'r' && std::strchr(mode, '+') == nullptr;
  return (read_only ? O_RDONLY : O_RDWR) | (mode != nullptr && std::strchr(mode, 'e') != nullptr ? O_CLOEXEC : 0);
}

// entropy_file for fopen: a stream over it, or null.
FILE* entropy_stream(const char* path, const char* mode) noexcept {
  const int fd = entropy_file(path, fopen_flags(mode));
  if (fd < 0) return nullptr;
  FILE* f = fdopen(fd, "r");
  if (f == nullptr) close(fd);
  return f;
}

// The mode argument of an open that creates: read only when the flags say it was passed.
#define DUET_OPEN_MODE(flags)                                           \
  mode_t mode = 0;                                                      \
  if (((flags)&O_CREAT) != 0 || ((flags)&__O_TMPFILE) == __O_TMPFILE) { \
    va_list args;                                                       \
    va_start(args, flags);                                              \
    mode = static_cast<mode_t>(va_arg(args, int));                      \
    va_end(args);                                                       \
  }

}  // namespace
}  // namespace duet::detail::instrumented

using namespace duet::detail::instrumented;

extern "C" {

// ---- rand, random ----
int rand() noexcept {
  if (TrialRandom* r = trial_random()) {
    std::int32_t v = 0;
    random_r(&r->rand, &v);
    return v;
  }
  DUET_NEXT("rand", int());
  return next();
}
long random() noexcept {
  if (TrialRandom* r = trial_random()) {
    std::int32_t v = 0;
    random_r(&r->rand, &v);
    return v;
  }
  DUET_NEXT("random", long());
  return next();
}
void srand(unsigned seed) noexcept {
  if (TrialRandom* r = trial_random()) {
    srandom_r(seed, &r->rand);
    return;
  }
  DUET_NEXT("srand", void(unsigned));
  next(seed);
}
void srandom(unsigned seed) noexcept {
  if (TrialRandom* r = trial_random()) {
    srandom_r(seed, &r->rand);
    return;
  }
  DUET_NEXT("srandom", void(unsigned));
  next(seed);
}

// ---- the drand48 family's hidden state ----
double drand48() noexcept {
  if (TrialRandom* r = trial_random()) return erand48(r->x48);
  DUET_NEXT("drand48", double());
  return next();
}
long lrand48() noexcept {
  if (TrialRandom* r = trial_random()) return nrand48(r->x48);
  DUET_NEXT("lrand48", long());
  return next();
}
long mrand48() noexcept {
  if (TrialRandom* r = trial_random()) return jrand48(r->x48);
  DUET_NEXT("mrand48", long());
  return next();
}
void srand48(long seed) noexcept {
  if (TrialRandom* r = trial_random()) {
    const auto s = static_cast<unsigned long>(seed);
    r->x48[0] = 0x330e;
    r->x48[1] = static_cast<unsigned short>(s);
    r->x48[2] = static_cast<unsigned short>(s >> 16);
    return;
  }
  DUET_NEXT("srand48", void(long));
  next(seed);
}
unsigned short* seed48(unsigned short seed[3]) noexcept {
  if (TrialRandom* r = trial_random()) {
    std::memcpy(r->old48, r->x48, sizeof r->x48);
    std::memcpy(r->x48, seed, sizeof r->x48);
    return r->old48;
  }
  DUET_NEXT("seed48", unsigned short*(unsigned short*));
  return next(seed);
}

// ---- entropy ----
ssize_t getrandom(void* buffer, std::size_t length, unsigned flags) {
  if (TrialRandom* r = trial_random()) {
    fill(*r, buffer, length);
    return static_cast<ssize_t>(length);
  }
  DUET_NEXT("getrandom", ssize_t(void*, std::size_t, unsigned));
  return next(buffer, length, flags);
}
int getentropy(void* buffer, std::size_t length) {
  if (TrialRandom* r = trial_random()) {
    if (length > 256) {  // as the C library's
      errno = EIO;
      return -1;
    }
    fill(*r, buffer, length);
    return 0;
  }
  DUET_NEXT("getentropy", int(void*, std::size_t));
  return next(buffer, length);
}

// ---- the kernel's entropy files (entropy_file) ----
int open(const char* path, int flags, ...) {
  DUET_OPEN_MODE(flags);
  if (const int fd = entropy_file(path, flags); fd >= 0) return fd;
  DUET_NEXT("open", int(const char*, int, ...));
  return next(path, flags, mode);
}
int open64(const char* path, int flags, ...) {
  DUET_OPEN_MODE(flags);
  if (const int fd = entropy_file(path, flags); fd >= 0) return fd;
  DUET_NEXT("open64", int(const char*, int, ...));
  return next(path, flags, mode);
}
int openat(int dir, const char* path, int flags, ...) {
  DUET_OPEN_MODE(flags);
  if (const int fd = entropy_file(path, flags); fd >= 0) return fd;
  DUET_NEXT("openat", int(int, const char*, int, ...));
  return next(dir, path, flags, mode);
}
int openat64(int dir, const char* path, int flags, ...) {
  DUET_OPEN_MODE(flags);
  if (const int fd = entropy_file(path, flags); fd >= 0) return fd;
  DUET_NEXT("openat64", int(int, const char*, int, ...));
  return next(dir, path, flags, mode);
}
// What code built with _FORTIFY_SOURCE calls for an open without a mode.
int __open_2(const char* path, int flags) {
  if (const int fd = entropy_file(path, flags); fd >= 0) return fd;
  DUET_NEXT("__open_2", int(const char*, int));
  return next(path, flags);
}
int __open64_2(const char* path, int flags) {
  if (const int fd = entropy_file(path, flags); fd >= 0) return fd;
  DUET_NEXT("__open64_2", int(const char*, int));
  return next(path, flags);
}
int __openat_2(int dir, const char* path, int flags) {
  if (const int fd = entropy_file(path, flags); fd >= 0) return fd;
  DUET_NEXT("__openat_2", int(int, const char*, int));
  return next(dir, path, flags);
}
int __openat64_2(int dir, const char* path, int flags) {
  if (const int fd = entropy_file(path, flags); fd >= 0) return fd;
  DUET_NEXT("__openat64_2", int(int, const char*, int));
  return next(dir, path, flags);
}
// std::ifstream opens through these (libstdc++'s basic_file).
FILE* fopen(const char* path, const char* mode) {
  if (FILE* f = entropy_stream(path, mode)) return f;
  DUET_NEXT("fopen", FILE * (const char*, const char*));
  return next(path, mode);
}
FILE* fopen64(const char* path, const char* mode) {
  if (FILE* f = entropy_stream(path, mode)) return f;
  DUET_NEXT("fopen64", FILE * (const char*, const char*));
  return next(path, mode);
}

// ---- the process and the CPU ----
pid_t getpid() noexcept {
  if (in_trial()) return g_test_pid;
  return static_cast<pid_t>(syscall(SYS_getpid));
}
// A signal the trial sends "itself" reaches the process it runs in, not the test process.
int kill(pid_t pid, int sig) noexcept {
  if (in_trial() && pid == g_test_pid) pid = static_cast<pid_t>(syscall(SYS_getpid));
  DUET_NEXT("kill", int(pid_t, int));
  return next(pid, sig);
}
// Below the trial's count and the machine's: a library indexes an array of that many per-CPU
// slots with it (fibers outnumber the CPUs).
int sched_getcpu() noexcept {
  if (in_trial()) {
    duet::detail::fiber::Runtime* rt = active();
    return rt != nullptr ? static_cast<int>(duet::detail::fiber::fiber_number(*rt) % static_cast<unsigned>(cpu_of_fibers()))
                         : 0;
  }
  DUET_NEXT("sched_getcpu", int());
  return next();
}
// How many CPUs there are (std::thread::hardware_concurrency calls get_nprocs).
int get_nprocs() noexcept {
  if (in_trial()) return kTrialCpus;
  DUET_NEXT("get_nprocs", int());
  return next();
}
int get_nprocs_conf() noexcept {
  if (in_trial()) return kTrialCpus;
  DUET_NEXT("get_nprocs_conf", int());
  return next();
}
long sysconf(int name) noexcept {
  if ((name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF) && in_trial()) return kTrialCpus;
  DUET_NEXT("sysconf", long(int));
  return next(name);
}
// Which CPUs a thread may run on: the trial's. Setting it is accepted and does nothing (a fiber
// runs where its trial runs).
int sched_getaffinity(pid_t pid, std::size_t size, cpu_set_t* set) noexcept {
  if (in_trial()) {
    const int error = trial_affinity(size, set);
    if (error != 0) errno = error;
    return error != 0 ? -1 : 0;
  }
  DUET_NEXT("sched_getaffinity", int(pid_t, std::size_t, cpu_set_t*));
  return next(pid, size, set);
}
int pthread_getaffinity_np(pthread_t thread, std::size_t size, cpu_set_t* set) noexcept {
  if (in_trial()) return trial_affinity(size, set);
  DUET_NEXT("pthread_getaffinity_np", int(pthread_t, std::size_t, cpu_set_t*));
  return next(thread, size, set);
}
int sched_setaffinity(pid_t pid, std::size_t size, const cpu_set_t* set) noexcept {
  if (in_trial()) return 0;
  DUET_NEXT("sched_setaffinity", int(pid_t, std::size_t, const cpu_set_t*));
  return next(pid, size, set);
}
int pthread_setaffinity_np(pthread_t thread, std::size_t size, const cpu_set_t* set) noexcept {
  if (in_trial()) return 0;
  DUET_NEXT("pthread_setaffinity_np", int(pthread_t, std::size_t, const cpu_set_t*));
  return next(thread, size, set);
}

// ---- calendar time ----
time_t time(time_t* out) noexcept {
  timespec t{};
  if (trial_time(t)) {
    if (out != nullptr) *out = t.tv_sec;
    return t.tv_sec;
  }
  DUET_NEXT("time", time_t(time_t*));
  return next(out);
}
int gettimeofday(timeval* tv, void* tz) noexcept {
  timespec t{};
  if (trial_time(t)) {
    *tv = {t.tv_sec, t.tv_nsec / 1000};                      // the C library's takes no null either
    if (tz != nullptr) std::memset(tz, 0, 2 * sizeof(int));  // struct timezone: UTC
    return 0;
  }
  DUET_NEXT("gettimeofday", int(timeval*, void*));
  return next(tv, tz);
}
int timespec_get(timespec* ts, int base) noexcept {
  if (base == TIME_UTC && trial_time(*ts)) return base;
  DUET_NEXT("timespec_get", int(timespec*, int));
  return next(ts, base);
}

}  // extern "C"

// std::random_device's draw (libstdc++ exports it; the inline operator() calls it), whatever
// source the device uses.
std::random_device::result_type std::random_device::_M_getval() {
  if (TrialRandom* r = trial_random()) return static_cast<result_type>(next_bits(*r) >> 32);
  static std::atomic<void*> slot{};
  using Member = result_type(std::random_device*);
  return duet::detail::instrumented::real<Member>(slot, "_ZNSt13random_device9_M_getvalEv", "GLIBCXX_3.4.18")(this);
}

// Referenced by duet::instrument's link options: keeps this object in every instrumented link.
extern "C" {
int duet_instrument_determinism = 1;
}
