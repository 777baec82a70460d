/* ck_subjects.c with Concurrency Kit's own atomics, inline assembly on x86-64: what a check of
 * CK's structures sees without duet's port (rcu_ck_test.cpp measures it). */
#define DUET_CK_ASSEMBLY 1
#define DUET_CK_NAME(name) duet_ck_asm_##name
#include "ck_subjects.c"
