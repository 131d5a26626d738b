/*
 * fuzz_plugin.c - libFuzzer target: the plugin loader's table checks (ug_plugin_check,
 * kernels/plugin.h), what a forged or corrupt plugin hands ulpgate before anything reads its
 * rows as kernels.
 *
 * The input is the memory of a plugin: a ug_plugin record at offset 0, then anything.  Its
 * first byte steers: bit 0 writes this ulpgate's API version, bit 1 the right kernel_size (so
 * that the fuzzer reaches the rows).  Pointer fields (the table, the corpus folder, each row's
 * name, doc, run and depth) whose value is below the input's size become that offset into the
 * input; others stay as they are (wild, NULL).  The memory map holds the input alone: its first
 * half readable, its second half readable and "executable".  What must hold: no crash, no read
 * outside the input (ASan), no undefined behaviour (UBSan: a bool that is not 0 or 1 is never
 * read as one); the status is 0 or -1 with a reason; on 0 every row's name is a valid kernel
 * name inside the input and the table fits in it.
 * Run (meson -Dfuzz=true, clang): build/tests/fuzz/fuzz_plugin tests/fuzz/corpus/plugin
 *   -close_fd_mask=2
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/plugin.h"
#include "tests/fuzz/fuzz_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An offset below size becomes a pointer into b; any other value stays. */
static void ug_fuzz_translate(void *field, unsigned char *b, size_t size)
{
    uintptr_t v;
    memcpy(&v, field, sizeof v);
    if (v < size) v = (uintptr_t)(b + v);
    memcpy(field, &v, sizeof v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < sizeof(ug_plugin) || size > (1u << 20)) return 0;
    size_t cap = (size + 63) & ~(size_t)63;
    unsigned char *b = aligned_alloc(64, cap);
    if (!b) return 0;
    memcpy(b, data, size);
    ug_plugin *p = (ug_plugin *)b;
    if (data[0] & 1) p->api_version = ULPGATE_API_VERSION;
    if (data[0] & 2) p->kernel_size = sizeof(ug_kernel);
    ug_fuzz_translate(&p->kernels, b, size);
    ug_fuzz_translate(&p->corpus, b, size);
    /* the rows that lie inside the input, at most as many as declared */
    uintptr_t t = (uintptr_t)p->kernels, lo = (uintptr_t)b, hi = lo + size;
    if (t >= lo && t < hi && (t - lo) % _Alignof(ug_kernel) == 0) {
        size_t fit = (hi - t) / sizeof(ug_kernel);
        for (size_t i = 0; i < fit && i < p->count; i++) {
            ug_kernel *k = (ug_kernel *)t + i;
            ug_fuzz_translate(&k->name, b, size);
            ug_fuzz_translate(&k->doc, b, size);
            ug_fuzz_translate(&k->run, b, size);
            ug_fuzz_translate(&k->depth, b, size);
        }
    }
    ug_mem_range r[2] = {{lo, lo + size / 2, UG_MEM_READ}, {lo + size / 2, hi, UG_MEM_READ | UG_MEM_EXEC}};
    ug_mem_map map = {r, 2};
    char why[600] = "";
    int rc = ug_plugin_check(p, &map, why, sizeof why);
    if (rc != 0 && rc != -1) ug_fuzz_fail("status %d", rc);
    if (rc == -1 && !why[0]) ug_fuzz_fail("refused without a reason");
    if (rc == 0) {
        if ((uintptr_t)p->kernels < lo || p->count > (hi - (uintptr_t)p->kernels) / sizeof(ug_kernel))
            ug_fuzz_fail("accepted %zu rows that do not fit", p->count);
        for (size_t i = 0; i < p->count; i++) {
            const char *nm = p->kernels[i].name;
            char w[300];
            if ((uintptr_t)nm < lo || (uintptr_t)nm >= hi || !memchr(nm, 0, hi - (uintptr_t)nm))
                ug_fuzz_fail("row %zu: a name outside the input accepted", i);
            if (!ug_kernel_name_ok(nm, w, sizeof w)) ug_fuzz_fail("row %zu: name refused later: %s", i, w);
        }
    }
    free(b);
    return 0;
}
