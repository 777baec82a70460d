/* Concurrency Kit's Treiber stack (ck_stack, upmc) and bounded ring (ck_ring, mpmc) behind a
 * small C interface for rcu_ck_test.cpp: CK's headers are C, not C++. Compiled through
 * duet_instrument, so <ck_pr.h> is duet's port over the compiler's atomics (cmake/ports/ck_pr.h);
 * ck_subjects_assembly.c compiles this file again with CK's own inline-assembly atomics. */
#include <ck_ring.h>
#include <ck_stack.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef DUET_CK_NAME
#define DUET_CK_NAME(name) duet_ck_##name
#endif

enum { kNodes = 256, kRingSize = 64, kSmallRingSize = 4 };

struct duet_ck_node {
  ck_stack_entry_t entry; /* first: a popped entry is its node */
  int value;
};

struct duet_ck_stack {
  ck_stack_t stack;
  struct duet_ck_node nodes[kNodes]; /* never reused within a run: no ABA for ck_stack_pop_upmc */
  unsigned used;
};

void* DUET_CK_NAME(stack_new)(void) { return calloc(1, sizeof(struct duet_ck_stack)); }
void DUET_CK_NAME(stack_delete)(void* s) { free(s); }

static struct duet_ck_node* take_node(struct duet_ck_stack* s) {
  const unsigned i = __atomic_fetch_add(&s->used, 1, __ATOMIC_RELAXED);
  if (i >= kNodes) abort(); /* more pushes than a test's program makes */
  return &s->nodes[i];
}

void DUET_CK_NAME(stack_push)(void* p, int v) {
  struct duet_ck_stack* s = p;
  struct duet_ck_node* n = take_node(s);
  n->value = v;
  ck_stack_push_upmc(&s->stack, &n->entry);
}

/* The planted bug: the node is published before its value is written. */
void DUET_CK_NAME(stack_push_then_write)(void* p, int v) {
  struct duet_ck_stack* s = p;
  struct duet_ck_node* n = take_node(s);
  ck_stack_push_upmc(&s->stack, &n->entry);
  n->value = v;
}

int DUET_CK_NAME(stack_pop)(void* p, int* out) {
  struct duet_ck_stack* s = p;
  ck_stack_entry_t* e = ck_stack_pop_upmc(&s->stack);
  if (e == NULL) return 0;
  *out = ((struct duet_ck_node*)e)->value;
  return 1;
}

struct duet_ck_ring {
  ck_ring_t ring;
  ck_ring_buffer_t buffer[kRingSize];
};

static void* ring_of(unsigned size) {
  struct duet_ck_ring* r = calloc(1, sizeof(struct duet_ck_ring));
  if (r != NULL) ck_ring_init(&r->ring, size);
  return r;
}
/* 63 usable slots: more than a program enqueues, so the ring is never full. */
void* DUET_CK_NAME(ring_new)(void) { return ring_of(kRingSize); }
/* 3 usable slots: a program fills it. */
void* DUET_CK_NAME(ring_new_small)(void) { return ring_of(kSmallRingSize); }
void DUET_CK_NAME(ring_delete)(void* r) { free(r); }

int DUET_CK_NAME(ring_enqueue)(void* p, int v) {
  struct duet_ck_ring* r = p;
  return ck_ring_enqueue_mpmc(&r->ring, r->buffer, (void*)(intptr_t)v);
}

int DUET_CK_NAME(ring_dequeue)(void* p, int* out) {
  struct duet_ck_ring* r = p;
  void* v = NULL;
  if (!ck_ring_dequeue_mpmc(&r->ring, r->buffer, &v)) return 0;
  *out = (int)(intptr_t)v;
  return 1;
}
