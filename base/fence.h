/*
 * fence.h - fenced buffers for CPU kernels: the bytes a kernel may touch, with an
 * inaccessible page right after them (UG_FENCE_END) or right before them (UG_FENCE_START), so
 * that a read or write one element outside the buffer faults at once, on every size, instead
 * of reading a neighbour's bytes by luck.  The fault is a crash of the kernel: `ulpgate run`'s
 * handler (guard.c) fails the running point naming the kernel and the signal.
 */
#ifndef UG_FENCE_H
#define UG_FENCE_H

#include <stddef.h>

typedef enum { UG_FENCE_END, UG_FENCE_START } ug_fence_side;

typedef struct ug_fence {
    void *map;       /* the mapping (NULL: nothing mapped) */
    size_t map_len;
    void *data;      /* the buffer's bytes, against the fence */
    size_t bytes;
    ug_fence_side side;
} ug_fence;

/* Map bytes behind (or after) an inaccessible page into f and return f->data (zeroed); NULL
 * when the mapping fails (errno says why).  bytes 0 maps a buffer of none, against the fence.
 * O(bytes): one mmap and one mprotect, or a mapping freed before, of the same length and
 * side, zeroed again (thread-safe). */
void *ug_fence_alloc(ug_fence *f, size_t bytes, ug_fence_side side);
/* Unmap f, or keep it (up to a budget, fence.c) for the next ug_fence_alloc (a zeroed f is fine). */
void ug_fence_free(ug_fence *f);

#endif
