/*
 * tcmodel_gpu.c - the host side of the integer tensor-core model (tcmodel_gpu.h): its
 * parameters, the inputs rounded to the input format, the host run and the device call.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/par.h"
#include "oracle/tc/tcmodel_gpu.h"

const char *ug_tc_int_params(const ug_tc_params *p, ug_tci_params *q)
{
    const char *bad = ug_tc_params_invalid(p);
    if (bad) return bad;
    const ug_format *Fi = ug_format_of(p->in_fmt), *Fo = ug_format_of(p->out_fmt),
                    *Fs = ug_format_of(p->store_fmt);
    q->block = p->block, q->neab = p->neab, q->carry_bit = p->carry_bit;
    q->align_rne = p->align == UG_TC_RNE, q->final_rne = p->final == UG_TC_RNE;
    q->in_subn = p->in_subnormals, q->out_subn = p->out_subnormals;
    q->in_emin = Fi->emin;
    q->prec = ug_tc_acc_precision(p), q->out_emin = Fo->emin, q->out_emax = Fo->emax;
    /* step 7: binary32 storage holds an f32 or f16 accumulator exactly (no rounding) */
    q->store = p->store_fmt != p->out_fmt && p->store_fmt != UG_F32;
    q->store_p = Fs->p, q->store_emin = Fs->emin, q->store_emax = Fs->emax;
    return NULL;
}

/* A and B rounded to in_fmt, as binary32 (exact), in one buffer: A's M K values then B's. */
static float *ug_tc_round_inputs(const ug_tc_params *p, const double *A, const double *B, size_t M,
                                 size_t N, size_t K)
{
    float *R = malloc((M * K + K * N + 1) * sizeof *R);
    if (!R) return NULL;
    for (size_t e = 0; e < M * K; e++) R[e] = (float)ug_fmt_round(p->in_fmt, A[e], UG_RN);
    for (size_t e = 0; e < K * N; e++) R[M * K + e] = (float)ug_fmt_round(p->in_fmt, B[e], UG_RN);
    return R;
}

typedef struct {
    const ug_tci_params *q;
    const float *A, *B;
    double *D;
    size_t N, K;
} ug_tci_job;

static void ug_tci_rows(void *ctx, size_t lo, size_t hi)
{
    const ug_tci_job *j = ctx;
    for (size_t i = lo; i < hi; i++)
        for (size_t c = 0; c < j->N; c++)
            j->D[i * j->N + c] = tci_dot(j->q, j->A + i * j->K, 1, j->B + c, (long)j->N, (long)j->K);
}

int ug_tc_gemm_int(const ug_tc_params *p, const double *A, const double *B, double *D, size_t M,
                   size_t N, size_t K, char *err, size_t errlen)
{
    ug_tci_params q;
    const char *bad = ug_tc_int_params(p, &q);
    if (bad) return snprintf(err, errlen, "tensor-core model: %s", bad), 1;
    float *R = ug_tc_round_inputs(p, A, B, M, N, K);
    if (!R) return snprintf(err, errlen, "tensor-core model: out of memory"), 1;
    ug_tci_job j = {&q, R, R + M * K, D, N, K};
    ug_par_range(M, 1, 0, ug_tci_rows, &j);
    free(R);
    return 0;
}

int ug_tc_gemm_gpu(const ug_tc_params *p, const double *A, const double *B, double *D, size_t M,
                   size_t N, size_t K, char *err, size_t errlen)
{
    ug_tci_params q;
    const char *bad = ug_tc_int_params(p, &q);
    if (bad) return snprintf(err, errlen, "tensor-core model: %s", bad), 1;
    float *R = ug_tc_round_inputs(p, A, B, M, N, K), *Df = malloc((M * N + 1) * sizeof *Df);
    int rc = 1;
    if (!R || !Df) {
        snprintf(err, errlen, "tensor-core model: out of memory");
    } else if ((rc = ug_tc_gemm_device(&q, R, R + M * K, Df, M, N, K, err, errlen)) == 0) {
        for (size_t e = 0; e < M * N; e++) D[e] = Df[e]; /* exact */
    }
    free(R);
    free(Df);
    return rc;
}
