/* fingerprint.c - see fingerprint.h. */
#include "harness/gate/fingerprint.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const ug_fp_field ug_fp_fields[UG_FP_NFIELDS] = {
    [UG_FP_SEED] = {"seed", UG_SCOPE_ALL, "every input differs: no figure is comparable"},
    [UG_FP_ORACLE] = {"oracle", 0,
                      "the two oracles are bit-identical: no figure should change (one that does "
                      "is an oracle bug)"},
    [UG_FP_ARCH] = {"arch", UG_SCOPE_CPU, "another instruction set runs the CPU kernels"},
    [UG_FP_COMPILER] = {"compiler", UG_SCOPE_CPU, "another compiler built the CPU kernels"},
    [UG_FP_CFLAGS] = {"cflags", UG_SCOPE_CPU, "other host flags built the CPU kernels"},
    [UG_FP_NVCC] = {"nvcc", UG_SCOPE_CUDA, "another nvcc built the CUDA kernels"},
    [UG_FP_NVCC_FLAGS] = {"nvcc_flags", UG_SCOPE_CUDA, "other nvcc flags built the CUDA kernels"},
    [UG_FP_GPU] = {"gpu.name", UG_SCOPE_CUDA,
                   "another GPU: launch shapes and library kernel choices differ (cuBLAS promises "
                   "identical bits only on the same architecture and SM count)"},
    [UG_FP_CC] = {"gpu.cc", UG_SCOPE_CUDA, "another architecture runs the CUDA kernels"},
    [UG_FP_SM_COUNT] = {"gpu.sm_count", UG_SCOPE_CUDA,
                        "grid-wide kernels split the work by SM count, and cuBLAS promises "
                        "identical bits only on the same SM count"},
    [UG_FP_DRIVER] = {"gpu.driver", UG_SCOPE_CUDA,
                      "the driver JIT-compiles PTX where the binary has no code for this GPU"},
    [UG_FP_RUNTIME] = {"gpu.runtime", UG_SCOPE_VENDOR,
                       "another CUDA runtime: the libraries may choose other kernels"},
    [UG_FP_CUBLAS] = {"gpu.cublas", UG_SCOPE_VENDOR,
                      "another cuBLAS: identical bits are promised only on the same toolkit"},
    [UG_FP_CCCL] = {"gpu.cccl", UG_SCOPE_VENDOR,
                    "another CUB/CCCL: its reduction order may differ"},
    [UG_FP_BUILD] = {"build", UG_SCOPE_CPU,
                     "the CPU kernels were compiled differently (options, CFLAGS or predefined "
                     "macros that the recorded cflags do not show)"},
    [UG_FP_CPU] = {"cpu", UG_SCOPE_CPU_MODEL,
                   "another CPU model: approximate instructions and run-time dispatched libraries "
                   "give other bits (their rows are judged on status and bound only)"},
};

/* A meta member as text: strings as they are, numbers as integers when they are ones. */
static void ug_fp_text(char *dst, size_t len, const ug_json *v)
{
    dst[0] = 0;
    if (!v) return;
    if (v->type == UG_JSON_STR)
        snprintf(dst, len, "%s", v->str);
    else if (v->type == UG_JSON_NUM && v->num == floor(v->num) && fabs(v->num) < 1e15)
        snprintf(dst, len, "%.0f", v->num);
    else if (v->type == UG_JSON_NUM)
        snprintf(dst, len, "%.17g", v->num);
    else if (v->type == UG_JSON_BOOL)
        snprintf(dst, len, "%s", v->b ? "true" : "false");
}

/* The machine from meta: "arch", else the last word of "host" (older reports). */
static void ug_meta_arch(const ug_json *meta, char *dst, size_t len)
{
    ug_fp_text(dst, len, ug_json_get(meta, "arch"));
    if (dst[0]) return;
    const char *host = ug_json_str_of(ug_json_get(meta, "host"), "");
    const char *sp = strrchr(host, ' ');
    snprintf(dst, len, "%s", sp ? sp + 1 : host);
}

/* The "build" part from meta.build: "HASH MACROS" ("0x1f... __OPTIMIZE__ __SSE2__ ..."), the
 * macros cut to fit; "" when the run did not record one. */
static void ug_meta_build(const ug_json *meta, char *dst, size_t len)
{
    const ug_json *b = ug_json_get(meta, "build");
    const char *hash = ug_json_str_of(ug_json_get(b, "hash"), "");
    dst[0] = 0;
    if (hash[0])
        snprintf(dst, len, "%s %s", hash, ug_json_str_of(ug_json_get(b, "defines"), ""));
}

void ug_fingerprint_hash(ug_fingerprint *fp)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int f = 0; f < UG_FP_NFIELDS; f++) {
        if ((f == UG_FP_BUILD || f == UG_FP_CPU) && !fp->v[f][0])
            continue; /* the hashes of older fingerprints */
        for (const char *p = ug_fp_fields[f].key; *p; p++)
            h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
        h = (h ^ '=') * 0x100000001b3ull;
        for (const char *p = fp->v[f]; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
        h = (h ^ '\n') * 0x100000001b3ull;
    }
    snprintf(fp->hash, sizeof fp->hash, "%016llx", (unsigned long long)h);
}

void ug_fingerprint_from_meta(ug_fingerprint *fp, const ug_json *meta)
{
    memset(fp, 0, sizeof *fp);
    const ug_json *gpu = ug_json_get(meta, "gpu");
    ug_fp_text(fp->v[UG_FP_SEED], sizeof fp->v[0], ug_json_get(meta, "seed"));
    ug_fp_text(fp->v[UG_FP_ORACLE], sizeof fp->v[0], ug_json_get(meta, "oracle"));
    ug_meta_arch(meta, fp->v[UG_FP_ARCH], sizeof fp->v[0]);
    ug_fp_text(fp->v[UG_FP_COMPILER], sizeof fp->v[0], ug_json_get(meta, "compiler"));
    ug_fp_text(fp->v[UG_FP_CFLAGS], sizeof fp->v[0], ug_json_get(meta, "cflags"));
    ug_meta_build(meta, fp->v[UG_FP_BUILD], sizeof fp->v[0]);
    ug_fp_text(fp->v[UG_FP_CPU], sizeof fp->v[0], ug_json_get(meta, "cpu"));
    /* nvcc matters only to a run that used the GPU: a CPU run's figures do not depend on it */
    if (gpu) {
        ug_fp_text(fp->v[UG_FP_NVCC], sizeof fp->v[0], ug_json_get(meta, "nvcc"));
        ug_fp_text(fp->v[UG_FP_NVCC_FLAGS], sizeof fp->v[0], ug_json_get(meta, "nvcc_flags"));
        ug_fp_text(fp->v[UG_FP_GPU], sizeof fp->v[0], ug_json_get(gpu, "name"));
        ug_fp_text(fp->v[UG_FP_CC], sizeof fp->v[0], ug_json_get(gpu, "cc"));
        ug_fp_text(fp->v[UG_FP_SM_COUNT], sizeof fp->v[0], ug_json_get(gpu, "sm_count"));
        ug_fp_text(fp->v[UG_FP_DRIVER], sizeof fp->v[0], ug_json_get(gpu, "driver"));
        ug_fp_text(fp->v[UG_FP_RUNTIME], sizeof fp->v[0], ug_json_get(gpu, "runtime"));
        ug_fp_text(fp->v[UG_FP_CUBLAS], sizeof fp->v[0], ug_json_get(gpu, "cublas"));
        ug_fp_text(fp->v[UG_FP_CCCL], sizeof fp->v[0], ug_json_get(gpu, "cccl"));
    }
    ug_fingerprint_hash(fp);
}

void ug_fingerprint_from_json(ug_fingerprint *fp, const ug_json *obj)
{
    memset(fp, 0, sizeof *fp);
    for (int f = 0; f < UG_FP_NFIELDS; f++)
        ug_fp_text(fp->v[f], sizeof fp->v[f], ug_json_get(obj, ug_fp_fields[f].key));
    ug_fingerprint_hash(fp);
}

int ug_fingerprint_check_json(const ug_json *obj, char *why, size_t len)
{
    if (!obj || obj->type != UG_JSON_OBJ) {
        snprintf(why, len, "is not an object");
        return -1;
    }
    for (size_t i = 0; i < obj->count; i++) {
        int f = 0;
        while (f < UG_FP_NFIELDS && strcmp(obj->items[i]->key, ug_fp_fields[f].key) != 0) f++;
        if (f == UG_FP_NFIELDS) {
            snprintf(why, len, "has a part this ulpgate does not know, \"%.80s\" (a newer "
                     "ulpgate's baseline? what it records cannot be compared here)",
                     obj->items[i]->key);
            return -1;
        }
    }
    /* the part every run and baseline records: without it no row can be told comparable */
    static const int needed[] = {UG_FP_SEED};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
        char v[200];
        ug_fp_text(v, sizeof v, ug_json_get(obj, ug_fp_fields[needed[i]].key));
        if (!v[0]) {
            snprintf(why, len, "has no \"%s\" (every run records it: an unknown fingerprint)",
                     ug_fp_fields[needed[i]].key);
            return -1;
        }
    }
    return 0;
}

void ug_fingerprint_json(ug_buf *b, const ug_fingerprint *fp)
{
    ug_buf_printf(b, "{");
    bool first = true;
    for (int f = 0; f < UG_FP_NFIELDS; f++) {
        if (!fp->v[f][0]) continue;
        ug_buf_printf(b, "%s", first ? "" : ",");
        ug_buf_json_str(b, ug_fp_fields[f].key);
        ug_buf_printf(b, ":");
        ug_buf_json_str(b, fp->v[f]);
        first = false;
    }
    ug_buf_printf(b, "}");
}

unsigned ug_fingerprint_diff(const ug_fingerprint *a, const ug_fingerprint *b)
{
    unsigned mask = 0;
    for (int f = 0; f < UG_FP_NFIELDS; f++)
        if (strcmp(a->v[f], b->v[f]) != 0 &&
            ((f != UG_FP_BUILD && f != UG_FP_CPU) || (a->v[f][0] && b->v[f][0])))
            mask |= 1u << f;
    return mask;
}

bool ug_fingerprint_same_cpu(const ug_fingerprint *a, const ug_fingerprint *b)
{
    return a->v[UG_FP_CPU][0] && strcmp(a->v[UG_FP_CPU], b->v[UG_FP_CPU]) == 0;
}

unsigned ug_row_scope(const char *backend, const char *kernel_name)
{
    if (!kernel_name[0]) return UG_SCOPE_ALL;
    if (strcmp(backend, "cuda") != 0) return UG_SCOPE_ALL | UG_SCOPE_CPU;
    bool vendor = strncmp(kernel_name, "cublas", 6) == 0 || strncmp(kernel_name, "cub_", 4) == 0;
    return UG_SCOPE_ALL | UG_SCOPE_CUDA | (vendor ? UG_SCOPE_VENDOR : 0);
}

const char *ug_scope_name(unsigned scope)
{
    if (scope & UG_SCOPE_ALL) return "every row";
    if (scope & UG_SCOPE_CUDA) return "every CUDA row";
    if (scope & UG_SCOPE_VENDOR) return "the library rows (cuBLAS, CUB)";
    if (scope & UG_SCOPE_CPU) return "every CPU row";
    if (scope & UG_SCOPE_CPU_MODEL) return "the rows whose bits depend on the CPU model";
    return "no row";
}

/* Append the lower-case letters and digits of word to key. */
static void ug_key_word(char *key, size_t len, const char *word, size_t wlen)
{
    size_t k = strlen(key);
    for (size_t i = 0; i < wlen && k + 1 < len; i++)
        if (isalnum((unsigned char)word[i]) || word[i] == '_')
            key[k++] = (char)tolower((unsigned char)word[i]);
    key[k] = 0;
}

/* The model of a GPU name: the words after the vendor's up to the first with a digit
 * ("NVIDIA H100 80GB HBM3" -> "h100", "NVIDIA GeForce RTX 4090" -> "rtx4090"). */
static void ug_gpu_model(const char *name, char *key, size_t len)
{
    static const char *const vendor[] = {"nvidia", "geforce", "tesla", "quadro"};
    key[0] = 0;
    for (const char *p = name; *p;) {
        while (*p == ' ' || *p == '-' || *p == '_') p++;
        const char *w = p;
        while (*p && *p != ' ' && *p != '-' && *p != '_') p++;
        size_t wl = (size_t)(p - w);
        bool skip = false;
        for (size_t i = 0; i < sizeof vendor / sizeof vendor[0] && !skip; i++)
            skip = wl == strlen(vendor[i]) && strncasecmp(w, vendor[i], wl) == 0;
        if (skip || wl == 0) continue;
        ug_key_word(key, len, w, wl);
        bool digit = false;
        for (size_t i = 0; i < wl; i++) digit |= isdigit((unsigned char)w[i]) != 0;
        if (digit) break;
    }
    if (!key[0]) snprintf(key, len, "gpu");
}

void ug_device_key_of(const char *gpu_name, const char *cc, const char *arch, char *key, size_t len)
{
    if (gpu_name) {
        char model[64], ccw[16] = "";
        ug_gpu_model(gpu_name, model, sizeof model);
        ug_key_word(ccw, sizeof ccw, cc ? cc : "", cc ? strlen(cc) : 0);
        snprintf(key, len, "%s-sm%s", model, ccw[0] ? ccw : "unknown");
        return;
    }
    char word[64] = "";
    ug_key_word(word, sizeof word, arch ? arch : "", arch ? strlen(arch) : 0);
    snprintf(key, len, "cpu-%s", word[0] ? word : "unknown");
}

void ug_device_key(const ug_json *meta, char *key, size_t len)
{
    const ug_json *gpu = ug_json_get(meta, "gpu");
    char arch[64] = "";
    ug_meta_arch(meta, arch, sizeof arch);
    if (gpu && gpu->type == UG_JSON_OBJ)
        ug_device_key_of(ug_json_str_of(ug_json_get(gpu, "name"), ""),
                         ug_json_str_of(ug_json_get(gpu, "cc"), ""), arch, key, len);
    else
        ug_device_key_of(NULL, NULL, arch, key, len);
}
