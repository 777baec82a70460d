// Calls into code that was not compiled through duet_instrument: a library's runtime in a shared
// object (oneTBB's libtbb.so, liburcu, a C library with its own atomics). duet sees none of its
// atomics, so the happens-before they create would be lost, and the subject's own instrumented
// code around the calls (a library's inline headers) would be reported as racing where the
// library's runtime orders it. So such a call is a black box that synchronises: its entry and its
// return are each one step of the schedule, an update of one object that every such call shares
// (`library#N` in a trace). Whatever a call released before, the next call acquires: data
// written before a call into the library is ordered before what any fiber does after its own
// later call returns, as it would be through the library's own synchronisation; what the call
// does inside is neither interleaved nor checked for races.
// A library also reads what instrumented code published with atomics outside any call: a
// hazard-pointer collector (libcds's scan in libcds.so) reads the hazard pointers that the
// containers' inline code sets and clears, and frees a node only once no fiber protects it. So
// each mark also acquires every clock a fiber of the run has released so far (an atomic store
// or update, an unlock): what the call does after reading them is ordered after them.
//
// How the calls are seen (x86-64 with glibc): when an instrumented module starts (__tsan_init),
// every procedure-linkage slot of an instrumented module that resolves to a function of another,
// uninstrumented shared object is pointed at a stub of duet's, which marks the entry, calls the
// function with the caller's arguments (registers and up to kStackArgumentBytes of its stack),
// marks the return and returns its result. Outside a run the marks cost one thread-local test.
// What is not seen: calls through function pointers or virtual functions that the library hands
// out, libraries loaded with dlopen after the instrumented modules started, and the C and C++
// runtimes (libc, libstdc++, libgcc_s, libm), whose synchronisation duet interposes itself.
// Each run records which libraries it called, and a check's pass says so (RunResult::libraries).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <string>
#include <string_view>
#include <sys/mman.h>
#include <unordered_map>
#include <unistd.h>
#include <vector>

#include "execute/instrumented/instrumented.hpp"

extern "C" void __tsan_init();

namespace duet::detail::instrumented {

std::string_view file_name(const char* path) {
  const std::string_view p = path != nullptr ? path : "";
  const std::size_t slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

// The C and C++ runtimes and duet's own dependencies: what they do, duet interposes or owns.
bool runtime_library(std::string_view name) {
  constexpr std::string_view kRuntimes[] = {"libc.so",    "libm.so",      "libstdc++.so",     "libgcc_s.so",
                                            "ld-linux",   "libdl.so",     "libpthread.so",    "librt.so",
                                            "linux-vdso", "libatomic.so", "libboost_context", "libgtest",
                                            "libgmock",   "libbenchmark", "libresolv.so",     "libutil.so"};
  for (std::string_view r : kRuntimes)
    if (name.starts_with(r)) return true;
  return false;
}

#if defined(__x86_64__) && defined(__GLIBC__)

namespace {

// Above the fiber's first frame each fiber stack keeps this much room (runtime.hpp's
// kStackTopSlack), and a thread's stack has its control block there: the stub reads this much of
// its caller's stack arguments.
constexpr std::size_t kStackArgumentBytes = 512;
static_assert(kStackArgumentBytes == 512, "the stub below copies 64 words");

// One wrapped slot: the function it calls and the library that defines it.
struct Slot {
  void* target = nullptr;
  std::uint32_t library = 0;
};

struct Library {
  std::string name;  // the file name, without its directory
};

// Slots are added (under the lock, when a module starts) and never moved or removed: a stub
// reads its own without the lock.
constexpr std::size_t kMaxSlots = std::size_t{1} << 16;
struct State {
  SpinLock lock;
  Slot* slots = new Slot[kMaxSlots];
  std::size_t used = 0;
  std::vector<Library> libraries;
  std::vector<std::uintptr_t> patched;  // GOT entries already pointing at a stub
};
State& state() {
  static auto* s = new State;  // never destroyed: a late call may still come through a stub
  return *s;
}

// The object every call into uninstrumented code updates (see the file's comment).
char g_library_object;

}  // namespace

}  // namespace duet::detail::instrumented

// The stub every wrapped slot jumps to, with the slot's index in %r11 (a scratch register of the
// calling convention, free at a call through the procedure linkage table): a frame with call
// frame information (an exception from the library unwinds through it), the argument registers
// and kStackArgumentBytes of stack arguments passed on, the result registers kept across the
// return mark.
asm(R"(
  .text
  .p2align 4
  .globl duet_library_stub
  .hidden duet_library_stub
  .type duet_library_stub,@function
duet_library_stub:
  .cfi_startproc
  pushq %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  movq %rsp, %rbp
  .cfi_def_cfa_register %rbp
  subq $704, %rsp
  movq %rdi, 512(%rsp)
  movq %rsi, 520(%rsp)
  movq %rdx, 528(%rsp)
  movq %rcx, 536(%rsp)
  movq %r8, 544(%rsp)
  movq %r9, 552(%rsp)
  movq %rax, 560(%rsp)
  movq %r11, 568(%rsp)
  movdqu %xmm0, 576(%rsp)
  movdqu %xmm1, 592(%rsp)
  movdqu %xmm2, 608(%rsp)
  movdqu %xmm3, 624(%rsp)
  movdqu %xmm4, 640(%rsp)
  movdqu %xmm5, 656(%rsp)
  movdqu %xmm6, 672(%rsp)
  movdqu %xmm7, 688(%rsp)
  movq %r11, %rdi
  movq 8(%rbp), %rsi
  call duet_library_call_enters
  movq %rax, %r11
  leaq 16(%rbp), %rsi
  movq %rsp, %rdi
  movl $64, %ecx
  cld
  rep movsq
  movq 512(%rsp), %rdi
  movq 520(%rsp), %rsi
  movq 528(%rsp), %rdx
  movq 536(%rsp), %rcx
  movq 544(%rsp), %r8
  movq 552(%rsp), %r9
  movq 560(%rsp), %rax
  movdqu 576(%rsp), %xmm0
  movdqu 592(%rsp), %xmm1
  movdqu 608(%rsp), %xmm2
  movdqu 624(%rsp), %xmm3
  movdqu 640(%rsp), %xmm4
  movdqu 656(%rsp), %xmm5
  movdqu 672(%rsp), %xmm6
  movdqu 688(%rsp), %xmm7
  call *%r11
  movq %rax, 512(%rsp)
  movq %rdx, 520(%rsp)
  movdqu %xmm0, 576(%rsp)
  movdqu %xmm1, 592(%rsp)
  movq 568(%rsp), %rdi
  movq 8(%rbp), %rsi
  call duet_library_call_returns
  movq 512(%rsp), %rax
  movq 520(%rsp), %rdx
  movdqu 576(%rsp), %xmm0
  movdqu 592(%rsp), %xmm1
  leave
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
  .size duet_library_stub, .-duet_library_stub
)");

extern "C" void duet_library_stub();

namespace duet::detail::instrumented {
namespace {

// One mark: an update of the shared object, as the subject's step at the caller's line.
// `frame`: the stub's callee's frame, the same at a call's entry and at its return.
void mark(std::uint64_t slot, const void* return_address, const void* frame, bool enters) noexcept {
  if (const InRun rt = in_run()) {
    const Slot& s = state().slots[slot];
    fiber::called_library(*rt, state().libraries[s.library].name.c_str());
    fiber::enter(*rt, fiber::Op::rmw, fiber::ObjectKind::library, &g_library_object, std::memory_order_seq_cst,
                 location_of(return_address));
    fiber::leave(*rt, fiber::Op::rmw);
    fiber::acquire_everything_released(*rt);
    const void*& outer = fiber::library_frame(*rt);
    if (enters) enter_library(*rt, frame);
    else if (outer == frame) outer = nullptr;
  }
}

}  // namespace

// A call made from below the outermost call's frame is nested in it (the library called back
// instrumented code, which calls the library again). From at or above it, the outermost call
// must have ended without its return mark (an exception unwound through the stub): replaced.
void enter_library(fiber::Runtime& rt, const void* frame) noexcept {
  const void*& outer = fiber::library_frame(rt);
  if (outer == nullptr || frame >= outer) outer = frame;
}

}  // namespace duet::detail::instrumented

extern "C" {
void* duet_library_call_enters(std::uint64_t slot, const void* return_address) noexcept {
  using namespace duet::detail::instrumented;
  if (duet::detail::fiber::t_runtime != nullptr) [[unlikely]]
    mark(slot, return_address, __builtin_frame_address(0), true);
  return state().slots[slot].target;
}
void duet_library_call_returns(std::uint64_t slot, const void* return_address) noexcept {
  using namespace duet::detail::instrumented;
  if (duet::detail::fiber::t_runtime != nullptr) [[unlikely]]
    mark(slot, return_address, __builtin_frame_address(0), false);
}

// An exception that unwinds through a stub skips its return mark: caught at or above the
// stub's frame (by the library's caller: oneTBB's task_group::wait rethrows a task's
// exception), the call has ended, and the fiber's steps are its own again. Weak: a program
// that links the C++ runtime statically keeps its own (and only this bookkeeping is lost).
__attribute__((weak)) void* __cxa_begin_catch(void* exception) noexcept {
  using namespace duet::detail;
  static auto* const real = reinterpret_cast<void* (*)(void*)>(dlsym(RTLD_NEXT, "__cxa_begin_catch"));
  if (fiber::t_runtime != nullptr) [[unlikely]]
    if (const instrumented::InRun rt = instrumented::in_run()) {
      const void*& outer = fiber::library_frame(*rt);
      if (outer != nullptr && __builtin_frame_address(0) >= outer) outer = nullptr;
    }
  return real(exception);
}
}

namespace duet::detail::instrumented {
namespace {

// What the loader knows of one module, read from its dynamic section.
struct Module {
  std::uintptr_t base = 0;
  const dl_phdr_info* info = nullptr;
  const ElfW(Sym) * symbols = nullptr;
  const char* strings = nullptr;
  const ElfW(Rela) * plt = nullptr;  // the procedure linkage table's relocations
  std::size_t plt_count = 0;
  const ElfW(Rela) * data = nullptr;  // the other relocations (-fno-plt calls go through GOT data)
  std::size_t data_count = 0;
  std::uintptr_t relro_begin = 0, relro_end = 0;
};

std::uintptr_t absolute(std::uintptr_t base, ElfW(Addr) p) { return p < base ? base + p : p; }

Module read_module(const dl_phdr_info* info) {
  Module m;
  m.base = info->dlpi_addr;
  m.info = info;
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_DYNAMIC) dyn = reinterpret_cast<const ElfW(Dyn)*>(m.base + ph.p_vaddr);
    if (ph.p_type == PT_GNU_RELRO) {
      m.relro_begin = m.base + ph.p_vaddr;
      m.relro_end = m.relro_begin + ph.p_memsz;
    }
  }
  for (; dyn != nullptr && dyn->d_tag != DT_NULL; ++dyn) {
    const std::uintptr_t p = absolute(m.base, dyn->d_un.d_ptr);
    switch (dyn->d_tag) {
      case DT_SYMTAB: m.symbols = reinterpret_cast<const ElfW(Sym)*>(p); break;
      case DT_STRTAB: m.strings = reinterpret_cast<const char*>(p); break;
      case DT_JMPREL: m.plt = reinterpret_cast<const ElfW(Rela)*>(p); break;
      case DT_PLTRELSZ: m.plt_count = dyn->d_un.d_val / sizeof(ElfW(Rela)); break;
      case DT_RELA: m.data = reinterpret_cast<const ElfW(Rela)*>(p); break;
      case DT_RELASZ: m.data_count = dyn->d_un.d_val / sizeof(ElfW(Rela)); break;
      default: break;
    }
  }
  if (m.symbols == nullptr || m.strings == nullptr) m.plt_count = m.data_count = 0;
  return m;
}

const char* symbol_name(const Module& m, const ElfW(Rela) & r) {
  return m.strings + m.symbols[ELF64_R_SYM(r.r_info)].st_name;
}

bool contains(const dl_phdr_info* info, const void* address) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && a >= info->dlpi_addr + ph.p_vaddr && a < info->dlpi_addr + ph.p_vaddr + ph.p_memsz)
      return true;
  }
  return false;
}

// Instrumented: it holds duet's runtime (the executable), or calls the sanitizer's entry points.
bool instrumented(const Module& m) {
  if (contains(m.info, reinterpret_cast<const void*>(&__tsan_init))) return true;
  for (std::size_t i = 0; i < m.plt_count; ++i)
    if (std::strncmp(symbol_name(m, m.plt[i]), "__tsan_", 7) == 0) return true;
  for (std::size_t i = 0; i < m.data_count; ++i)
    if (ELF64_R_SYM(m.data[i].r_info) != 0 && std::strncmp(symbol_name(m, m.data[i]), "__tsan_", 7) == 0) return true;
  return false;
}

// The stubs of one scan: `movabs $slot, %r11; jmp *0(%rip); .quad duet_library_stub`.
constexpr std::size_t kStubBytes = 32;
struct StubPage {
  unsigned char* code = nullptr;
  std::size_t used = 0, capacity = 0;
};

void* add_stub(StubPage& page, std::uint64_t slot) {
  if (page.code == nullptr || page.used == page.capacity) return nullptr;
  unsigned char* s = page.code + page.used++ * kStubBytes;
  const auto stub = reinterpret_cast<std::uint64_t>(&duet_library_stub);
  s[0] = 0x49;
  s[1] = 0xbb;
  std::memcpy(s + 2, &slot, 8);
  const unsigned char jump[] = {0xff, 0x25, 0, 0, 0, 0};
  std::memcpy(s + 10, jump, sizeof jump);
  std::memcpy(s + 16, &stub, 8);
  return s;
}

bool write_slot(const Module& m, std::uintptr_t at, void* value) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  void* const start = reinterpret_cast<void*>(at & ~(page - 1));
  const bool relro = at >= m.relro_begin && at < m.relro_end;
  if (relro && mprotect(start, page, PROT_READ | PROT_WRITE) != 0) return false;
  __atomic_store_n(reinterpret_cast<void**>(at), value, __ATOMIC_RELEASE);
  if (relro) mprotect(start, page, PROT_READ);
  return true;
}

// The library, by file name, that defines `target`; or none when it is instrumented or a runtime.
bool wrapped_library(void* target, const std::vector<Module>& modules, std::string& name) {
  for (const Module& m : modules) {
    if (!contains(m.info, target)) continue;
    name = std::string(file_name(m.info->dlpi_name));
    return !name.empty() && !runtime_library(name) && !instrumented(m);
  }
  return false;
}

std::uint32_t library_index(State& s, const std::string& name) {
  for (std::uint32_t i = 0; i < s.libraries.size(); ++i)
    if (s.libraries[i].name == name) return i;
  s.libraries.push_back({name});
  return static_cast<std::uint32_t>(s.libraries.size() - 1);
}

bool already_patched(const State& s, std::uintptr_t at) {
  for (const std::uintptr_t p : s.patched)
    if (p == at) return true;
  return false;
}

// A procedure-linkage slot to point at its stub.
struct Pending {
  const Module* module;
  std::uintptr_t at;
  void* stub;
};

// Makes a stub for each of `m`'s procedure-linkage slots that calls a function of an
// uninstrumented library.
void plan_calls_of(const Module& m, const std::vector<Module>& modules, StubPage& page, std::vector<Pending>& plan) {
  State& s = state();
  for (std::size_t i = 0; i < m.plt_count && s.used < kMaxSlots; ++i) {
    const ElfW(Rela)& r = m.plt[i];
    if (ELF64_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT) continue;
    const ElfW(Sym)& sym = m.symbols[ELF64_R_SYM(r.r_info)];
    if (sym.st_shndx != SHN_UNDEF || ELF64_ST_TYPE(sym.st_info) == STT_GNU_IFUNC) continue;
    const std::uintptr_t at = m.base + r.r_offset;
    if (already_patched(s, at)) continue;
    void* const target = dlsym(RTLD_DEFAULT, m.strings + sym.st_name);
    std::string library;
    if (target == nullptr || !wrapped_library(target, modules, library)) continue;
    void* const stub = add_stub(page, s.used);
    if (stub == nullptr) return;
    s.slots[s.used++] = {target, library_index(s, library)};
    plan.push_back({&m, at, stub});
  }
}

const Module* module_of(const void* address, const std::vector<Module>& modules) {
  for (const Module& m : modules)
    if (contains(m.info, address)) return &m;
  return nullptr;
}

// An uninstrumented library's calls of an inline function or template instance that an
// instrumented module also compiled (std::string::append, shared_ptr's release, a library's own
// inline virtuals) resolve, as the dynamic linker preempts, to the instrumented module's weak
// copy, which the executable exports: the library's internals then ran instrumented code, whose
// accesses were checked as the subject's although the library orders them with atomics duet does
// not see (a false data race inside RocksDB's DB::Put, two writers' std::string internals). Each
// such slot of the library's is pointed at the library's own copy (its own, or its
// dependencies': the copy it would call were the executable not instrumented). duet's
// interposed functions are strong symbols and stay.
class OwnCopies {
 public:
  OwnCopies(const Module& m, const std::vector<Module>& modules)
      : m_(m), modules_(modules), handle_(dlopen(m.info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD)) {}
  ~OwnCopies() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  OwnCopies(const OwnCopies&) = delete;
  OwnCopies& operator=(const OwnCopies&) = delete;

  // The library's own copy of symbol `index` where the process's is an instrumented weak one;
  // null: leave the slot. `global`: the process's.
  void* own(std::uint32_t index, void*& global) {
    const auto [it, fresh] = seen_.try_emplace(index);
    if (fresh) it->second = find(m_.strings + m_.symbols[index].st_name);
    global = it->second.global;
    return it->second.own;
  }

 private:
  struct Copies {
    void* global = nullptr;
    void* own = nullptr;
  };
  Copies find(const char* name) const {
    Copies c;
    if (handle_ == nullptr || name[0] != '_' || name[1] != 'Z') return c;  // C++ inline code only
    c.global = dlsym(RTLD_DEFAULT, name);
    const Module* holder = c.global != nullptr ? module_of(c.global, modules_) : nullptr;
    if (holder == nullptr || !instrumented(*holder)) return c;
    Dl_info info{};
    void* entry = nullptr;  // the symbol's ElfW(Sym)
    if (dladdr1(c.global, &info, &entry, RTLD_DL_SYMENT) == 0 || entry == nullptr) return c;
    const auto* sym = static_cast<const ElfW(Sym)*>(entry);
    if (info.dli_saddr != c.global || ELF64_ST_BIND(sym->st_info) != STB_WEAK || ELF64_ST_TYPE(sym->st_info) != STT_FUNC)
      return c;
    void* const own = dlsym(handle_, name);  // the library's scope: itself, then its dependencies
    const Module* own_holder = own != nullptr ? module_of(own, modules_) : nullptr;
    if (own_holder != nullptr && !instrumented(*own_holder)) c.own = own;
    return c;
  }

  const Module& m_;
  const std::vector<Module>& modules_;
  void* handle_;
  std::unordered_map<std::uint32_t, Copies> seen_;
};

void call_own_copies(const Module& m, const std::vector<Module>& modules) {
  OwnCopies copies(m, modules);
  void* global = nullptr;
  for (std::size_t i = 0; i < m.plt_count; ++i) {
    const ElfW(Rela)& r = m.plt[i];
    if (ELF64_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT || ELF64_R_SYM(r.r_info) == 0) continue;
    if (void* const own = copies.own(static_cast<std::uint32_t>(ELF64_R_SYM(r.r_info)), global))
      write_slot(m, m.base + r.r_offset, own);
  }
  for (std::size_t i = 0; i < m.data_count; ++i) {
    const ElfW(Rela)& r = m.data[i];
    const auto type = ELF64_R_TYPE(r.r_info);
    if ((type != R_X86_64_GLOB_DAT && type != R_X86_64_64) || ELF64_R_SYM(r.r_info) == 0) continue;
    void* const own = copies.own(static_cast<std::uint32_t>(ELF64_R_SYM(r.r_info)), global);
    if (own == nullptr) continue;
    const std::uintptr_t at = m.base + r.r_offset;
    const auto addend = static_cast<std::uintptr_t>(type == R_X86_64_64 ? r.r_addend : 0);
    if (*reinterpret_cast<void* const*>(at) == reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(global) + addend))
      write_slot(m, at, reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(own) + addend));  // a vtable's entry, say
  }
}

int collect(dl_phdr_info* info, std::size_t, void* data) {
  static_cast<std::vector<dl_phdr_info>*>(data)->push_back(*info);
  return 0;
}

}  // namespace

void wrap_uninstrumented_calls() noexcept {
  State& s = state();
  const std::lock_guard<SpinLock> hold(s.lock);
  std::vector<dl_phdr_info> infos;
  dl_iterate_phdr(collect, &infos);
  std::vector<Module> modules;
  modules.reserve(infos.size());
  for (const dl_phdr_info& info : infos) modules.push_back(read_module(&info));
  for (const Module& m : modules)
    if (!instrumented(m) && !runtime_library(file_name(m.info->dlpi_name)) && m.info->dlpi_name[0] != '\0')
      call_own_copies(m, modules);
  const auto page_size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::size_t wanted = 0;
  for (const Module& m : modules) wanted += instrumented(m) ? m.plt_count : 0;
  if (wanted == 0) return;
  const std::size_t bytes = (wanted * kStubBytes + page_size - 1) / page_size * page_size;
  void* code = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return;
  StubPage page{static_cast<unsigned char*>(code), 0, bytes / kStubBytes};
  std::vector<Pending> plan;
  for (const Module& m : modules)
    if (instrumented(m)) plan_calls_of(m, modules, page, plan);
  if (plan.empty()) {
    munmap(code, bytes);
    return;
  }
  // The stubs are executable before any slot points at them.
  if (mprotect(code, bytes, PROT_READ | PROT_EXEC) != 0) return;
  for (const Pending& p : plan)
    if (write_slot(*p.module, p.at, p.stub)) {
      s.patched.push_back(p.at);
      fiber::note_library_calls_seen();
    }
}

#else  // other platforms: calls into uninstrumented code are not seen

void wrap_uninstrumented_calls() noexcept {}
void enter_library(fiber::Runtime&, const void*) noexcept {}

#endif

}  // namespace duet::detail::instrumented

// Called by a constructor of a module compiled with inline-assembly atomics that a header of
// duet's can tell (cmake/ports/ck_pr.h with DUET_CK_ASSEMBLY): reports then say so. Any platform.
extern "C" void duet_note_inline_assembly_atomics(const char* what) noexcept {
  duet::detail::fiber::note_inline_assembly(what);
}
