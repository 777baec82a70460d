/*
 * Concurrency Kit's atomics (ck_pr) over the compiler's __atomic builtins, for code compiled
 * through duet_instrument, which puts this directory before the system's headers.
 *
 * CK's own ck_pr is inline assembly on x86-64 (and arm64, ...): the compiler's instrumentation
 * cannot see it, so on fibers its atomics would be no steps and the order they give would be
 * lost (a false data race on what they publish, a spin that never yields). Its builtins port
 * (CK_USE_CC_BUILTINS) is not enough either: its loads and stores are volatile accesses, plain
 * to the instrumentation. Here every ck_pr load and store is a relaxed atomic, every
 * read-modify-write a seq_cst one, and every fence is emitted as the C++ fence that gives at
 * least the ordering CK names (CK_MD_RMO: x86's TSO makes most of CK's fences no-ops, and a
 * fence that is no C++ fence orders nothing under the C++ memory model). So CK's data
 * structures run on fibers as CK meant them on its weakest memory model, checked.
 *
 * Define DUET_CK_ASSEMBLY to keep CK's own atomics (duet then says it saw inline assembly).
 */
#ifndef DUET_CK_PR_PORT_H
#define DUET_CK_PR_PORT_H

#if defined(DUET_CK_ASSEMBLY)
#include_next <ck_pr.h>
#if defined(__x86_64__) || defined(__aarch64__)
/* The atomics just included are inline assembly: duet's reports say so. */
#ifdef __cplusplus
extern "C"
#endif
    void
    duet_note_inline_assembly_atomics(const char* what);
__attribute__((constructor)) static void duet_ck_pr_assembly_note(void) {
  duet_note_inline_assembly_atomics("Concurrency Kit's ck_pr (DUET_CK_ASSEMBLY)");
}
#endif
#else

#define CK_USE_CC_BUILTINS 1
#define CK_MD_RMO 1
#define CK_PR_GCC_H 1 /* CK's builtins port: replaced by the definitions below */

#include <ck_cc.h>
#include <ck_md.h>
#undef CK_MD_TSO /* ck_md.h names the machine's model; CK_MD_RMO above is what ck_pr emulates */
#include <ck_stdbool.h>
#include <ck_stdint.h>

#define CK_F_PR
#include <gcc/ck_f_pr.h>

CK_CC_INLINE static void ck_pr_barrier(void) { __asm__ __volatile__("" ::: "memory"); }
CK_CC_INLINE static void ck_pr_stall(void) { ck_pr_barrier(); }

#define DUET_CK_LOAD_STORE(S, M, T)                                                          \
  CK_CC_INLINE static T ck_pr_md_load_##S(const M* target) {                                 \
    return __atomic_load_n((const T*)target, __ATOMIC_RELAXED);                              \
  }                                                                                          \
  CK_CC_INLINE static void ck_pr_md_store_##S(M* target, T v) {                              \
    __atomic_store_n((T*)target, v, __ATOMIC_RELAXED);                                       \
  }
DUET_CK_LOAD_STORE(ptr, void, void*)
DUET_CK_LOAD_STORE(char, char, char)
DUET_CK_LOAD_STORE(uint, unsigned int, unsigned int)
DUET_CK_LOAD_STORE(int, int, int)
DUET_CK_LOAD_STORE(64, uint64_t, uint64_t)
DUET_CK_LOAD_STORE(32, uint32_t, uint32_t)
DUET_CK_LOAD_STORE(16, uint16_t, uint16_t)
DUET_CK_LOAD_STORE(8, uint8_t, uint8_t)
#undef DUET_CK_LOAD_STORE
#ifndef CK_PR_DISABLE_DOUBLE
CK_CC_INLINE static double ck_pr_md_load_double(const double* target) {
  double r;
  __atomic_load(target, &r, __ATOMIC_RELAXED);
  return r;
}
CK_CC_INLINE static void ck_pr_md_store_double(double* target, double v) { __atomic_store(target, &v, __ATOMIC_RELAXED); }
#endif

/* Each CK fence as the C++ fence that orders at least what it names. */
#define DUET_CK_FENCE(T, ORDER) \
  CK_CC_INLINE static void ck_pr_fence_strict_##T(void) { __atomic_thread_fence(ORDER); }
DUET_CK_FENCE(atomic, __ATOMIC_SEQ_CST)
DUET_CK_FENCE(atomic_atomic, __ATOMIC_SEQ_CST)
DUET_CK_FENCE(atomic_load, __ATOMIC_SEQ_CST)
DUET_CK_FENCE(atomic_store, __ATOMIC_SEQ_CST)
DUET_CK_FENCE(store_atomic, __ATOMIC_SEQ_CST)
DUET_CK_FENCE(load_atomic, __ATOMIC_SEQ_CST)
DUET_CK_FENCE(load, __ATOMIC_ACQUIRE)
DUET_CK_FENCE(load_load, __ATOMIC_ACQUIRE)
DUET_CK_FENCE(load_store, __ATOMIC_ACQ_REL)
DUET_CK_FENCE(store, __ATOMIC_RELEASE)
DUET_CK_FENCE(store_store, __ATOMIC_RELEASE)
DUET_CK_FENCE(store_load, __ATOMIC_SEQ_CST)
DUET_CK_FENCE(memory, __ATOMIC_SEQ_CST)
DUET_CK_FENCE(acquire, __ATOMIC_ACQUIRE)
DUET_CK_FENCE(release, __ATOMIC_RELEASE)
DUET_CK_FENCE(acqrel, __ATOMIC_ACQ_REL)
DUET_CK_FENCE(lock, __ATOMIC_ACQ_REL)
DUET_CK_FENCE(unlock, __ATOMIC_ACQ_REL)
#undef DUET_CK_FENCE

/* Read-modify-writes: seq_cst, as CK's are full barriers on every machine it supports. */
#define DUET_CK_RMW(S, M, T)                                                                 \
  CK_CC_INLINE static bool ck_pr_cas_##S(M* target, T compare, T set) {                      \
    return __atomic_compare_exchange_n((T*)target, &compare, set, false, __ATOMIC_SEQ_CST,   \
                                       __ATOMIC_SEQ_CST);                                    \
  }                                                                                          \
  CK_CC_INLINE static bool ck_pr_cas_##S##_value(M* target, T compare, T set, M* v) {        \
    const bool done = __atomic_compare_exchange_n((T*)target, &compare, set, false,          \
                                                  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);       \
    *(T*)v = compare;                                                                        \
    return done;                                                                             \
  }
DUET_CK_RMW(char, char, char)
DUET_CK_RMW(int, int, int)
DUET_CK_RMW(uint, unsigned int, unsigned int)
DUET_CK_RMW(64, uint64_t, uint64_t)
DUET_CK_RMW(32, uint32_t, uint32_t)
DUET_CK_RMW(16, uint16_t, uint16_t)
DUET_CK_RMW(8, uint8_t, uint8_t)
#undef DUET_CK_RMW
CK_CC_INLINE static bool ck_pr_cas_ptr(void* target, void* compare, void* set) {
  return __atomic_compare_exchange_n((void**)target, &compare, set, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
CK_CC_INLINE static bool ck_pr_cas_ptr_value(void* target, void* compare, void* set, void* v) {
  const bool done =
      __atomic_compare_exchange_n((void**)target, &compare, set, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  *(void**)v = compare;
  return done;
}

#define DUET_CK_ARITH(S, M, T)                                                                          \
  CK_CC_INLINE static T ck_pr_faa_##S(M* target, T d) { return __atomic_fetch_add((T*)target, d, __ATOMIC_SEQ_CST); } \
  CK_CC_INLINE static void ck_pr_add_##S(M* target, T d) { (void)__atomic_fetch_add((T*)target, d, __ATOMIC_SEQ_CST); } \
  CK_CC_INLINE static void ck_pr_sub_##S(M* target, T d) { (void)__atomic_fetch_sub((T*)target, d, __ATOMIC_SEQ_CST); } \
  CK_CC_INLINE static void ck_pr_and_##S(M* target, T d) { (void)__atomic_fetch_and((T*)target, d, __ATOMIC_SEQ_CST); } \
  CK_CC_INLINE static void ck_pr_or_##S(M* target, T d) { (void)__atomic_fetch_or((T*)target, d, __ATOMIC_SEQ_CST); }   \
  CK_CC_INLINE static void ck_pr_xor_##S(M* target, T d) { (void)__atomic_fetch_xor((T*)target, d, __ATOMIC_SEQ_CST); } \
  CK_CC_INLINE static void ck_pr_inc_##S(M* target) { ck_pr_add_##S(target, (T)1); }                  \
  CK_CC_INLINE static void ck_pr_dec_##S(M* target) { ck_pr_sub_##S(target, (T)1); }
DUET_CK_ARITH(char, char, char)
DUET_CK_ARITH(int, int, int)
DUET_CK_ARITH(uint, unsigned int, unsigned int)
DUET_CK_ARITH(64, uint64_t, uint64_t)
DUET_CK_ARITH(32, uint32_t, uint32_t)
DUET_CK_ARITH(16, uint16_t, uint16_t)
DUET_CK_ARITH(8, uint8_t, uint8_t)
#undef DUET_CK_ARITH
#define DUET_CK_PTR_OP(K)                                                                    \
  CK_CC_INLINE static void ck_pr_##K##_ptr(void* target, void* d) {                          \
    (void)__atomic_fetch_##K((uintptr_t*)target, (uintptr_t)d, __ATOMIC_SEQ_CST);            \
  }
DUET_CK_PTR_OP(add)
DUET_CK_PTR_OP(sub)
DUET_CK_PTR_OP(and)
DUET_CK_PTR_OP(or)
DUET_CK_PTR_OP(xor)
#undef DUET_CK_PTR_OP
CK_CC_INLINE static void* ck_pr_faa_ptr(void* target, void* d) {
  return (void*)__atomic_fetch_add((uintptr_t*)target, (uintptr_t)d, __ATOMIC_SEQ_CST);
}
CK_CC_INLINE static void ck_pr_inc_ptr(void* target) { ck_pr_add_ptr(target, (void*)1); }
CK_CC_INLINE static void ck_pr_dec_ptr(void* target) { ck_pr_sub_ptr(target, (void*)1); }

#include_next <ck_pr.h>

#endif /* DUET_CK_ASSEMBLY */
#endif /* DUET_CK_PR_PORT_H */
