/*
 * fence.c - fenced buffers (fence.h): mmap with one PROT_NONE page against the data.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "base/fence.h"

void *ug_fence_alloc(ug_fence *f, size_t bytes, ug_fence_side side)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data_pages = (bytes + page - 1) / page;
    *f = (ug_fence){0};
    f->map_len = (data_pages + 1) * page;
    void *m = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    unsigned char *base = m;
    unsigned char *fence = side == UG_FENCE_END ? base + data_pages * page : base;
    if (mprotect(fence, page, PROT_NONE) != 0) {
        munmap(m, f->map_len);
        return NULL;
    }
    f->map = m;
    f->bytes = bytes;
    /* the data ends where the fence starts, or starts where it ends */
    f->data = side == UG_FENCE_END ? fence - bytes : base + page;
    return f->data;
}

void ug_fence_free(ug_fence *f)
{
    if (f->map) munmap(f->map, f->map_len);
    *f = (ug_fence){0};
}
