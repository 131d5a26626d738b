/* abnormal.c - kernels that end abnormally (tests/ends_test.sh), one per -DEND=N:
 *   1 exit(0) inside the kernel; 2 abort(); 3 a stack overflow (unbounded recursion);
 *   4 a heap overrun (the next chunk's header written over, then freed: glibc aborts);
 *   5 a kernel that sleeps 60 s (a run to kill); 6 not reentrant: its running sum is a static
 *   variable, the thread yielding between terms (right on one thread, wrong when calls overlap);
 *   7 a kernel of 100 ms a call (a time budget); 8 exit(0) at its 41st call (after passing
 *   points); 9 writes one element past its output; 10 at its 41st call starts a thread that
 *   calls exit(0) once the kernel has returned; 11 exit(0) in the plugin's constructor.
 * 17 (x86) sets the x87 control word's precision to 24 bits when loaded, and nothing else;
 * 14 declares itself nondeterministic and is deterministic; 15 declares it and is (every second
 * call sums backwards); 16 deterministic, its sum off by 2^-16 relative from n = 1000 (within
 * the serial bound, ~2^8 ulp worse: a regression); 18 returns an error (its message in c->err)
 * from its 41st call on; 19 _exit(0), 20 quick_exit(0), 21 execv("/bin/true") inside the kernel
 * (what exit()'s handlers never see: the executable's own _exit and exec* are told); 22 forks a
 * child that ends with _exit(0) and one that execs /bin/true, and waits for both (right: the
 * run goes on, the children are not the run).
 * -DGEMM makes the kernel ab_gemm, a GEMM on TF32 operands (`probe tensor-core` runs it); with
 * it, 12 declares batch invariance and writes one element past C when M is 3 (an invariance
 * call: its batches are 1, 3, 64 and 1000 rows); 13 declares itself nondeterministic and batch
 * invariant, and sums k downwards from 64 rows of A (not invariant). */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <ulpgate/ulpgate.h>

static volatile int depth_sink;
static int recurse(int d)
{
    volatile char pad[4096];
    pad[0] = (char)d;
    depth_sink = pad[0];
    return recurse(d + 1) + pad[d % 4096];
}

#if END == 10
static void *exit_later(void *arg)
{
    (void)arg;
    struct timespec t = {0, 20000000};
    nanosleep(&t, NULL);
    exit(0);
}
#elif END == 11
__attribute__((constructor)) static void exit_at_load(void) { exit(0); }
#elif END == 17 && (defined(__x86_64__) || defined(__i386__))
/* the x87 control word alone: precision control to 24 bits (SSE's MXCSR untouched) */
__attribute__((constructor)) static void x87_single(void)
{
    unsigned short cw = 0x007f;
    __asm__ volatile("fldcw %0" : : "m"(cw));
}
#endif

/* x rounded to TF32 (10 significand bits), to nearest even */
static float tf32(float x)
{
    union { float f; unsigned u; } v = {x};
    v.u = (v.u + 0xfffu + ((v.u >> 13) & 1u)) & ~0x1fffu;
    return v.f;
}

static int ab_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    float s = 0;
#if END == 15
    static _Atomic unsigned calls15;
    if (++calls15 % 2)
        for (size_t i = ug_dim(c, 0); i-- > 0;) s += x[i];
    else
        for (size_t i = 0; i < ug_dim(c, 0); i++) s += x[i];
#elif END == 6
    static volatile float shared;
    shared = 0;
    for (size_t i = 0; i < ug_dim(c, 0); i++) {
        shared += x[i];
        sched_yield();
    }
    s = shared;
#else
    for (size_t i = 0; i < ug_dim(c, 0); i++) s += x[i];
#endif
#ifdef GEMM /* ab_gemm: C = A B on TF32 operands, row by row */
    (void)x;
    const float *A = ug_in_f32(c, 0), *B = ug_in_f32(c, 1);
    size_t M = ug_dim(c, 0), N = ug_dim(c, 1), K = ug_dim(c, 2);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            float acc = 0;
            for (size_t l = 0; l < K; l++) {
                size_t m = END == 13 && M >= 64 ? K - 1 - l : l;
                acc += tf32(A[i * K + m]) * tf32(B[m * N + j]);
            }
            ug_out_f32(c)[i * N + j] = acc;
        }
    s = ug_out_f32(c)[0];
#endif
#if END == 1
    exit(0);
#elif END == 2
    abort();
#elif END == 3
    s += (float)recurse(0);
#elif END == 4
    char *a = malloc(24), *b = malloc(24);
    memset(a, 0x41, 64); /* 40 bytes past a: b's chunk header */
    free(b);
    free(a);
#elif END == 5
    struct timespec t = {60, 0};
    nanosleep(&t, NULL);
#elif END == 7
    struct timespec t = {0, 100000000};
    nanosleep(&t, NULL);
#elif END == 8
    static int calls;
    if (++calls == 41) exit(0);
#elif END == 9
    ug_out_f32(c)[c->out[0].count] = s;
#elif END == 16
    if (ug_dim(c, 0) >= 1000) s *= 1 + 0x1p-16f;
#elif END == 19
    _exit(0);
#elif END == 20
    quick_exit(0);
#elif END == 21
    char *argv[] = {"true", NULL};
    execv("/bin/true", argv);
#elif END == 22
    pid_t a = fork();
    if (a == 0) _exit(0);
    pid_t b = fork();
    if (b == 0) {
        char *argv[] = {"true", NULL};
        execv("/bin/true", argv);
        _exit(127);
    }
    if (a > 0) waitpid(a, NULL, 0);
    if (b > 0) waitpid(b, NULL, 0);
#elif END == 18
    static _Atomic int calls18;
    if (++calls18 > 40) {
        strcpy(c->err, "the device lost its context (a planted error)");
        return 1;
    }
#elif END == 12
    if (ug_dim(c, 0) == 3) ug_out_f32(c)[c->out[0].count] = s;
#elif END == 10
    static int calls;
    pthread_t th;
    if (++calls == 41 && pthread_create(&th, NULL, exit_later, NULL) == 0) pthread_detach(th);
#endif
    ug_out_f32(c)[0] = s;
    return 0;
}

#ifdef GEMM
UG_PLUGIN({.name = "ab_gemm", .op = UG_OP_GEMM, .op_fmt = UG_TF32, .nondeterministic = END == 13,
           .batch_invariant = END == 12 || END == 13, .bound = UG_BOUND_TREE, .run = ab_sum},)
#else
UG_PLUGIN({.name = "ab_sum", .op = UG_OP_SUM, .nondeterministic = END == 14 || END == 15,
           .bound = UG_BOUND_TREE, .run = ab_sum},)
#endif
