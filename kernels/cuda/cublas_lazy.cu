/*
 * cublas_lazy.cu - cuBLAS and cuBLASLt loaded on first use, not at program start.
 *
 * Why: linked the usual way (-lcublas -lcublasLt) the two libraries (~650 MB) are mapped and
 * relocated by the loader before main, in every process: 0.5 s on a quiet machine and 2-3 s on
 * a busy one, for `ulpgate --help` as for a GPU run.  A CPU test suite of a CUDA build starts
 * ulpgate some thousand times.  So the executables do not link them: each cuBLAS function the
 * tree calls is defined here with the signature of the real headers (a mismatch does not
 * compile), and resolves the real one with dlopen/dlsym at its first call.  A library that
 * cannot be loaded makes the call return CUBLAS_STATUS_NOT_INITIALIZED (the caller's checked
 * error path names the kernel), and cublasGetStatusString says why (ug_cublas_lazy_error).
 *
 * Where the libraries are looked for: the soname (LD_LIBRARY_PATH, the system's cache), then
 * the toolkit's library folders of the build (UG_CUDA_LIBDIRS, ug_config.h), as the link's
 * rpath found them before.  Adding a cuBLAS call to a kernel: add its UG_LAZY line below
 * (the link fails naming the symbol until then).
 */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ug_config.h"

#define UG_STR2(x) #x
#define UG_STR(x) UG_STR2(x)

namespace {

struct ug_lazy_lib {
    const char *soname;
    void *handle;
    char error[600];
    pthread_once_t once;
};

ug_lazy_lib ug_lib_cublas = {"libcublas.so." UG_STR(CUBLAS_VER_MAJOR), NULL, "", PTHREAD_ONCE_INIT};
ug_lazy_lib ug_lib_cublaslt = {"libcublasLt.so." UG_STR(CUBLAS_VER_MAJOR), NULL, "", PTHREAD_ONCE_INIT};

/* dlopen lib->soname: by its name first, then in each folder of UG_CUDA_LIBDIRS. */
void ug_lazy_open(ug_lazy_lib *lib)
{
    lib->handle = dlopen(lib->soname, RTLD_NOW | RTLD_GLOBAL);
    if (lib->handle) return;
    snprintf(lib->error, sizeof lib->error, "%s", dlerror());
    const char *dirs = UG_CUDA_LIBDIRS;
    while (*dirs && !lib->handle) {
        size_t len = strcspn(dirs, ":");
        char path[1024];
        snprintf(path, sizeof path, "%.*s/%s", (int)len, dirs, lib->soname);
        lib->handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        dirs += len + (dirs[len] == ':');
    }
}

void ug_open_cublas(void) { ug_lazy_open(&ug_lib_cublas); }
void ug_open_cublaslt(void) { ug_lazy_open(&ug_lib_cublaslt); }

/* The address of name in lib (opened once, thread-safely), or NULL. */
void *ug_lazy_sym(ug_lazy_lib *lib, const char *name)
{
    pthread_once(&lib->once, lib == &ug_lib_cublas ? ug_open_cublas : ug_open_cublaslt);
    return lib->handle ? dlsym(lib->handle, name) : NULL;
}

/* Every function defined below, registered at start (a static object per UG_LAZY line), for
 * ug_cublas_lazy_check. */
struct ug_lazy_reg {
    ug_lazy_lib *lib;
    const char *name;
    ug_lazy_reg *next;
    static ug_lazy_reg *all;
    ug_lazy_reg(ug_lazy_lib *l, const char *n) : lib(l), name(n), next(all) { all = this; }
};
ug_lazy_reg *ug_lazy_reg::all;

} // namespace

/* Resolve every function of this file now: the number that do not resolve, the first one's
 * name and the loader's reason in err.  Costs the two libraries' loading (~0.5 s).  The
 * self-test (tests/harness_checks.c) asserts 0 in the toolkit the build found. */
extern "C" int ug_cublas_lazy_check(char *err, size_t len)
{
    int missing = 0;
    for (ug_lazy_reg *r = ug_lazy_reg::all; r; r = r->next) {
        if (ug_lazy_sym(r->lib, r->name)) continue;
        if (!missing++)
            snprintf(err, len, "%s: %s", r->name, r->lib->handle ? dlerror() : r->lib->error);
    }
    return missing;
}

/* How many functions this file defines (the check's count). */
extern "C" int ug_cublas_lazy_count(void)
{
    int n = 0;
    for (ug_lazy_reg *r = ug_lazy_reg::all; r; r = r->next) n++;
    return n;
}

/* One function: its real signature (params, and args to pass them on), resolved at the first
 * call.  The name is the header's, macros included (cublasCreate is cublasCreate_v2): the
 * symbol looked up is what it expands to. */
#define UG_LAZY(lib, ret, fail, name, params, args)                                            \
    static ug_lazy_reg ug_reg_##name(&lib, UG_STR(name));                                      \
    extern "C" ret CUBLASWINAPI name params                                                    \
    {                                                                                          \
        typedef ret (*fn_t) params;                                                            \
        static fn_t fn;                                                                        \
        if (!fn) fn = (fn_t)ug_lazy_sym(&lib, UG_STR(name));                                   \
        if (!fn) return fail;                                                                  \
        return fn args;                                                                        \
    }

#define UG_NOT_LOADED CUBLAS_STATUS_NOT_INITIALIZED

// --- cuBLAS ---------------------------------------------------------------------------------

UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasCreate, (cublasHandle_t * handle), (handle))
UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasDestroy, (cublasHandle_t handle), (handle))
UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasGetProperty,
        (libraryPropertyType type, int *value), (type, value))
UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasSetMathMode,
        (cublasHandle_t handle, cublasMath_t mode), (handle, mode))
UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasSetPointerMode,
        (cublasHandle_t handle, cublasPointerMode_t mode), (handle, mode))
UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasSetEmulationStrategy,
        (cublasHandle_t handle, cublasEmulationStrategy_t strategy), (handle, strategy))
UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasSetFixedPointEmulationMantissaControl,
        (cublasHandle_t handle, cudaEmulationMantissaControl_t control), (handle, control))
UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasSetFixedPointEmulationMaxMantissaBitCount,
        (cublasHandle_t handle, int count), (handle, count))
UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasSetFixedPointEmulationMantissaBitOffset,
        (cublasHandle_t handle, int offset), (handle, offset))
UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasSgemm,
        (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
         int k, const float *alpha, const float *A, int lda, const float *B, int ldb,
         const float *beta, float *C, int ldc),
        (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))
UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasGemmEx,
        (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
         int k, const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B,
         cudaDataType Btype, int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
         cublasComputeType_t computeType, cublasGemmAlgo_t algo),
        (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
         computeType, algo))
UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasSnrm2,
        (cublasHandle_t handle, int n, const float *x, int incx, float *result),
        (handle, n, x, incx, result))
UG_LAZY(ug_lib_cublas, cublasStatus_t, UG_NOT_LOADED, cublasSasum,
        (cublasHandle_t handle, int n, const float *x, int incx, float *result),
        (handle, n, x, incx, result))

/* Not through UG_LAZY: its failure value is a string saying why the library is missing. */
static ug_lazy_reg ug_reg_cublasGetStatusString(&ug_lib_cublas, "cublasGetStatusString");
extern "C" const char *CUBLASWINAPI cublasGetStatusString(cublasStatus_t status)
{
    typedef const char *(*fn_t)(cublasStatus_t);
    static fn_t fn;
    if (!fn) fn = (fn_t)ug_lazy_sym(&ug_lib_cublas, "cublasGetStatusString");
    if (!fn) return ug_lib_cublas.error[0] ? ug_lib_cublas.error : "cuBLAS could not be loaded";
    return fn(status);
}

// --- cuBLASLt -------------------------------------------------------------------------------

UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtCreate, (cublasLtHandle_t * handle), (handle))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatmulDescCreate,
        (cublasLtMatmulDesc_t * desc, cublasComputeType_t computeType, cudaDataType_t scaleType),
        (desc, computeType, scaleType))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatmulDescDestroy,
        (cublasLtMatmulDesc_t desc), (desc))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatmulDescSetAttribute,
        (cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const void *buf,
         size_t sizeInBytes), (desc, attr, buf, sizeInBytes))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatrixLayoutCreate,
        (cublasLtMatrixLayout_t * matLayout, cudaDataType type, uint64_t rows, uint64_t cols,
         int64_t ld), (matLayout, type, rows, cols, ld))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatrixLayoutDestroy,
        (const cublasLtMatrixLayout_t matLayout), (matLayout))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatrixLayoutSetAttribute,
        (cublasLtMatrixLayout_t matLayout, cublasLtMatrixLayoutAttribute_t attr, const void *buf,
         size_t sizeInBytes), (matLayout, attr, buf, sizeInBytes))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatmulPreferenceCreate,
        (cublasLtMatmulPreference_t * pref), (pref))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatmulPreferenceDestroy,
        (cublasLtMatmulPreference_t pref), (pref))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatmulPreferenceSetAttribute,
        (cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr,
         const void *buf, size_t sizeInBytes), (pref, attr, buf, sizeInBytes))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatmulAlgoGetHeuristic,
        (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
         cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc,
         cublasLtMatrixLayout_t Ddesc, cublasLtMatmulPreference_t preference,
         int requestedAlgoCount, cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
         int *returnAlgoCount),
        (lightHandle, operationDesc, Adesc, Bdesc, Cdesc, Ddesc, preference, requestedAlgoCount,
         heuristicResultsArray, returnAlgoCount))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatmulAlgoConfigSetAttribute,
        (cublasLtMatmulAlgo_t * algo, cublasLtMatmulAlgoConfigAttributes_t attr, const void *buf,
         size_t sizeInBytes), (algo, attr, buf, sizeInBytes))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatmulAlgoCheck,
        (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
         cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc,
         cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
         cublasLtMatmulHeuristicResult_t *result), (lightHandle, operationDesc, Adesc, Bdesc, Cdesc,
                                                     Ddesc, algo, result))
UG_LAZY(ug_lib_cublaslt, cublasStatus_t, UG_NOT_LOADED, cublasLtMatmul,
        (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void *alpha,
         const void *A, cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc,
         const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
         cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo, void *workspace,
         size_t workspaceSizeInBytes, cudaStream_t stream),
        (lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo,
         workspace, workspaceSizeInBytes, stream))
