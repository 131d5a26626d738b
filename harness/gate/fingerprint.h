/*
 * fingerprint.h - the environment a run's figures were measured in, read from a results.json's
 * "meta" block: what must be the same for two runs' figures to be comparable bit for bit, and
 * which rows each part affects (harness/gate/fingerprint.c).  Also the device key that names a
 * per-device baseline: "cpu-x86_64", "h100-sm90", "h200-sm90".
 *
 * Error against an exact oracle has no noise for a deterministic kernel: the same inputs, the
 * same code and the same hardware give the same bits.  A changed fingerprint names what changed
 * and which figures may legitimately move (cuBLAS promises identical bits only on the same
 * toolkit, architecture and SM count); it never turns a regression into a pass.
 */
#ifndef UG_FINGERPRINT_H
#define UG_FINGERPRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/json.h"

/* The rows a part of the fingerprint affects (a bit mask). */
enum {
    UG_SCOPE_CPU = 1u << 0,    /* rows of CPU kernels */
    UG_SCOPE_CUDA = 1u << 1,   /* rows of CUDA kernels (ours and the vendors') */
    UG_SCOPE_VENDOR = 1u << 2, /* rows of library kernels (cublas_*, cub_*) */
    UG_SCOPE_ALL = 1u << 3,    /* every row (the inputs themselves) */
    UG_SCOPE_CPU_MODEL = 1u << 4, /* rows whose bits depend on the CPU model (row.machine) */
};

/* The parts, in the order of ug_fp_fields[]. */
enum {
    UG_FP_SEED, UG_FP_ORACLE, UG_FP_ARCH, UG_FP_COMPILER, UG_FP_CFLAGS, UG_FP_NVCC,
    UG_FP_NVCC_FLAGS, UG_FP_GPU, UG_FP_CC, UG_FP_SM_COUNT, UG_FP_DRIVER, UG_FP_RUNTIME,
    UG_FP_CUBLAS, UG_FP_CCCL, UG_FP_BUILD, UG_FP_CPU, UG_FP_NFIELDS
};

typedef struct ug_fp_field {
    const char *key;   /* the name in baselines and messages: "gpu.sm_count" */
    unsigned scope;    /* UG_SCOPE_*; 0: no figure should change (the oracles are bit-identical) */
    const char *why;   /* why those figures may change */
} ug_fp_field;
extern const ug_fp_field ug_fp_fields[UG_FP_NFIELDS];

typedef struct ug_fingerprint {
    char v[UG_FP_NFIELDS][192]; /* each part as text; "" when the run did not record it */
    char hash[17];              /* 16 hex digits of FNV-1a over the parts: its name in baselines */
} ug_fingerprint;

/* The fingerprint of a run from its "meta" object (missing parts stay ""); then the hash. */
void ug_fingerprint_from_meta(ug_fingerprint *fp, const ug_json *meta);
/* The same from a baseline's fingerprint object (keys as ug_fp_fields[].key). */
void ug_fingerprint_from_json(ug_fingerprint *fp, const ug_json *obj);
/* Whether obj, a fingerprint of a baseline, is one this ulpgate can compare: an object of
 * known parts only, with "seed".  0, or -1 with what is wrong in why. */
int ug_fingerprint_check_json(const ug_json *obj, char *why, size_t len);
/* Recompute fp->hash from its parts. */
void ug_fingerprint_hash(ug_fingerprint *fp);
/* Append fp as a JSON object {"seed":"0x5eed",...} (parts that are "" left out). */
void ug_fingerprint_json(ug_buf *b, const ug_fingerprint *fp);
/* The parts that differ, as a mask of 1u << UG_FP_*.  "build" (meta.build: the hash of what
 * really compiled the CPU kernels, and the compiler's macros) and "cpu" (the CPU model,
 * ug_cpu_model) differ only where both sides recorded them: runs and baselines from before them
 * have none, and stay comparable. */
unsigned ug_fingerprint_diff(const ug_fingerprint *a, const ug_fingerprint *b);

/* The rows of a kernel of this backend ("cpu", "cuda") and name: a mask of UG_SCOPE_*
 * (UG_SCOPE_ALL always set).  A check row (no kernel) gives UG_SCOPE_ALL only.  (A row whose
 * bits depend on the CPU model adds UG_SCOPE_CPU_MODEL: its row says so, not its name.) */
unsigned ug_row_scope(const char *backend, const char *kernel_name);
/* Whether a and b were measured on the same CPU model (the "cpu" part, ug_cpu_model): false
 * when either did not record one, so that a row whose bits depend on the CPU is compared bit for
 * bit only where both sides are known to be the same. */
bool ug_fingerprint_same_cpu(const ug_fingerprint *a, const ug_fingerprint *b);
/* What "rows of this scope" means, for messages: "CUDA rows", "library rows (cuBLAS, CUB)". */
const char *ug_scope_name(unsigned scope);

/* The device key of a run: "<gpu model>-sm<cc>" ("h100-sm90") when its meta names a GPU, else
 * "cpu-<arch>" ("cpu-x86_64").  Lower case, [a-z0-9_-] only.  Into key (len >= 64). */
void ug_device_key(const ug_json *meta, char *key, size_t len);
/* The same from its parts: gpu_name NULL for a CPU-only run (cc "9.0", arch "x86_64"). */
void ug_device_key_of(const char *gpu_name, const char *cc, const char *arch, char *key,
                      size_t len);

#endif
