// A corpus of the standard library's concurrency and container headers, compiled with
// -fsanitize=thread by tests/instrumented/symbols_check.cmake: every __tsan_* entry point the
// compiler emits for it must be defined by duet::instrument. Compiled only, never run.
#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <condition_variable>
#include <thread>
#include <semaphore>
#include <latch>
#include <barrier>
#include <vector>
#include <map>
#include <unordered_map>
#include <deque>
#include <memory>
#include <string>
#include <future>
struct Big {
  long a, b;
};
std::atomic<Big> big;
std::atomic<__int128> i128;
int use() {
  std::atomic<int> a{0};
  std::atomic<char> c;
  std::atomic<short> s;
  std::atomic<long> l;
  std::atomic<bool> b;
  std::atomic<int*> p;
  std::atomic<double> d;
  a.fetch_add(1, std::memory_order_relaxed);
  a.fetch_sub(1);
  a.fetch_and(1);
  a.fetch_or(2);
  a.fetch_xor(3);
  int e = 0;
  a.compare_exchange_strong(e, 1);
  a.compare_exchange_weak(e, 2, std::memory_order_acq_rel, std::memory_order_acquire);
  c.exchange('a');
  s.store(3, std::memory_order_release);
  l.load(std::memory_order_acquire);
  b.store(true);
  p.store(nullptr);
  d.fetch_add(1.0);
  d.store(2.0);
  Big bb = big.load();
  big.store(bb);
  i128.store(1);
  i128.load();
  __int128 x = 0;
  i128.compare_exchange_strong(x, 2);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  a.wait(0);
  a.notify_one();
  a.notify_all();
  std::atomic_flag f;
  f.test_and_set();
  f.clear();
  f.test();
  f.wait(false);
  std::mutex m;
  { std::lock_guard g(m); }
  m.try_lock();
  std::timed_mutex tm;
  tm.try_lock_for(std::chrono::milliseconds(1));
  std::recursive_mutex rm;
  rm.lock();
  rm.unlock();
  std::recursive_timed_mutex rtm;
  rtm.try_lock_until(std::chrono::steady_clock::now());
  std::shared_mutex sm;
  sm.lock_shared();
  sm.unlock_shared();
  sm.lock();
  sm.unlock();
  sm.try_lock_shared();
  std::shared_timed_mutex stm;
  stm.try_lock_shared_for(std::chrono::milliseconds(1));
  std::condition_variable cv;
  std::unique_lock ul(m);
  cv.wait_for(ul, std::chrono::milliseconds(1));
  cv.notify_all();
  std::condition_variable_any cva;
  cva.wait_for(ul, std::chrono::milliseconds(1));
  std::counting_semaphore<4> sem(1);
  sem.acquire();
  sem.release();
  sem.try_acquire_for(std::chrono::milliseconds(1));
  std::binary_semaphore bs(0);
  bs.try_acquire();
  std::latch lt(1);
  lt.count_down();
  lt.wait();
  std::barrier br(1);
  br.arrive_and_wait();
  std::once_flag of;
  std::call_once(of, [] {});
  std::thread t([] {});
  t.join();
  std::jthread jt([] {});
  std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::vector<int> v(10);
  v.push_back(1);
  std::map<int, int> mp;
  mp[1] = 2;
  std::unordered_map<int, int> um;
  um[3] = 4;
  std::deque<int> dq;
  dq.push_back(1);
  auto sp = std::make_shared<int>(3);
  std::weak_ptr<int> wp = sp;
  std::string str = "hello world, long enough to allocate";
  str += str;
  auto fut = std::async(std::launch::async, [] { return 1; });
  struct V {
    virtual ~V() {}
    virtual int f() { return 1; }
  };
  V* vp = new V;
  int r = vp->f();
  delete vp;
  thread_local int tl = 0;
  ++tl;
  static int st = use();
  return r + tl + st + (int)v.size() + (int)str.size() + fut.get();
}
