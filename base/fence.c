/*
 * fence.c - fenced buffers (fence.h): mmap with one PROT_NONE page against the data.
 *
 * A run calls a CPU kernel once a trial, each call in fresh fenced buffers: mapped anew, 200,000
 * trials of a small sum would be 800,000 mmap, mprotect and munmap calls, 24 s of system time
 * (an munmap in a process of several threads interrupts them all to flush their TLBs) for 0.3 s
 * of kernels.  A large buffer costs in page faults instead: a fresh mapping faults once a page
 * when the input is copied in (4 KiB pages: 2^24 floats, 16,384 faults a call, ~0.2 s of system
 * time on a virtual machine, against 10 ms to zero a kept one; the default CPU run spent 22 s
 * of its 60 there).  So a freed mapping is kept (at most UG_FENCE_KEEP of them, together at most
 * UG_FENCE_KEEP_BYTES) and handed to the next buffer of the same length and side, zeroed
 * again: what the caller sees is what a fresh mapping gives (every byte zero, the same
 * inaccessible page).
 */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/fence.h"
#include "base/sys.h"

enum { UG_FENCE_KEEP = 16 };
#define UG_FENCE_KEEP_BYTES ((size_t)256 << 20)

typedef struct {
    void *map;
    size_t map_len;
    ug_fence_side side;
    unsigned long stamp; /* when it was kept: the oldest goes first */
} ug_fence_kept;

static pthread_mutex_t ug_fence_lock = PTHREAD_MUTEX_INITIALIZER;
static ug_fence_kept ug_fence_keep[UG_FENCE_KEEP];
static size_t ug_fence_kept_bytes; /* the kept mappings' lengths together */

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
            ug_fence_kept_bytes -= map_len;
        }
    pthread_mutex_unlock(&ug_fence_lock);
    /* a kernel may have written anywhere in the accessible pages, not only in its buffer */
    if (m) memset(side == UG_FENCE_END ? m : (char *)m + page, 0, map_len - page);
    return m;
}

/* Keep m for the next buffer of its length and side, the oldest kept mappings unmapped to make
 * room (a run moves from size to size: the newest is the likeliest asked for next); false when
 * it is not kept (longer than the whole budget). */
static bool ug_fence_put(void *m, size_t map_len, ug_fence_side side)
{
    static unsigned long stamp;
    if (map_len > UG_FENCE_KEEP_BYTES) return false;
    pthread_mutex_lock(&ug_fence_lock);
    for (;;) {
        int free_slot = -1, oldest = -1;
        for (int i = 0; i < UG_FENCE_KEEP; i++) {
            if (!ug_fence_keep[i].map) free_slot = free_slot < 0 ? i : free_slot;
            else if (oldest < 0 || ug_fence_keep[i].stamp < ug_fence_keep[oldest].stamp) oldest = i;
        }
        if (free_slot >= 0 && map_len <= UG_FENCE_KEEP_BYTES - ug_fence_kept_bytes) {
            ug_fence_keep[free_slot] = (ug_fence_kept){m, map_len, side, ++stamp};
            ug_fence_kept_bytes += map_len;
            break;
        }
        munmap(ug_fence_keep[oldest].map, ug_fence_keep[oldest].map_len); /* room for m */
        ug_fence_kept_bytes -= ug_fence_keep[oldest].map_len;
        ug_fence_keep[oldest].map = NULL;
    }
    pthread_mutex_unlock(&ug_fence_lock);
    return true;
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
        /* a large buffer in 2 MiB pages: fewer faults when the input is copied in; the fence
         * page splits only the huge page it falls in */
        ug_advise_huge(m, f->map_len);
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
