/*
 * fence.c - fenced buffers (fence.h): mmap with one PROT_NONE page against the data.
 *
 * A run calls a CPU kernel once a trial, each call in fresh fenced buffers: mapped anew, 200,000
 * trials of a small sum would be 800,000 mmap, mprotect and munmap calls, 24 s of system time
 * (an munmap in a process of several threads interrupts them all to flush their TLBs) for 0.3 s
 * of kernels.  So a freed small mapping is kept (at most UG_FENCE_KEEP of them, each at most UG_FENCE_KEEP_BYTES)
 * and handed to the next buffer of the same length and side, zeroed again: what the caller
 * sees is what a fresh mapping gives (every byte zero, the same inaccessible page).
 */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/fence.h"

enum { UG_FENCE_KEEP = 16 };
#define UG_FENCE_KEEP_BYTES ((size_t)1 << 20)

typedef struct {
    void *map;
    size_t map_len;
    ug_fence_side side;
} ug_fence_kept;

static pthread_mutex_t ug_fence_lock = PTHREAD_MUTEX_INITIALIZER;
static ug_fence_kept ug_fence_keep[UG_FENCE_KEEP];

/* A kept mapping of map_len bytes fenced on side (its accessible bytes zeroed), or NULL. */
static void *ug_fence_take(size_t map_len, ug_fence_side side, size_t page)
{
    void *m = NULL;
    pthread_mutex_lock(&ug_fence_lock);
    for (int i = 0; i < UG_FENCE_KEEP && !m; i++)
        if (ug_fence_keep[i].map && ug_fence_keep[i].map_len == map_len &&
            ug_fence_keep[i].side == side) {
            m = ug_fence_keep[i].map;
            ug_fence_keep[i].map = NULL;
        }
    pthread_mutex_unlock(&ug_fence_lock);
    /* a kernel may have written anywhere in the accessible pages, not only in its buffer */
    if (m) memset(side == UG_FENCE_END ? m : (char *)m + page, 0, map_len - page);
    return m;
}

/* Keep m for the next buffer of its length and side; false when it is not kept. */
static bool ug_fence_put(void *m, size_t map_len, ug_fence_side side)
{
    bool kept = false;
    if (map_len > UG_FENCE_KEEP_BYTES) return false;
    pthread_mutex_lock(&ug_fence_lock);
    for (int i = 0; i < UG_FENCE_KEEP && !kept; i++)
        if (!ug_fence_keep[i].map) {
            ug_fence_keep[i] = (ug_fence_kept){m, map_len, side};
            kept = true;
        }
    pthread_mutex_unlock(&ug_fence_lock);
    return kept;
}

void *ug_fence_alloc(ug_fence *f, size_t bytes, ug_fence_side side)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data_pages = (bytes + page - 1) / page;
    *f = (ug_fence){0};
    f->map_len = (data_pages + 1) * page;
    void *m = ug_fence_take(f->map_len, side, page);
    unsigned char *base = m, *fence = NULL;
    if (!m) {
        m = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return NULL;
        base = m;
        fence = side == UG_FENCE_END ? base + data_pages * page : base;
        if (mprotect(fence, page, PROT_NONE) != 0) {
            munmap(m, f->map_len);
            return NULL;
        }
    }
    fence = side == UG_FENCE_END ? base + data_pages * page : base;
    f->map = m;
    f->side = side;
    f->bytes = bytes;
    /* the data ends where the fence starts, or starts where it ends */
    f->data = side == UG_FENCE_END ? fence - bytes : base + page;
    return f->data;
}

void ug_fence_free(ug_fence *f)
{
    if (f->map && !ug_fence_put(f->map, f->map_len, f->side)) munmap(f->map, f->map_len);
    *f = (ug_fence){0};
}
