/*
 * attention.h - the correctly rounded reference of scaled dot-product attention:
 * for one head, Q (L x d), K (S x d), V (S x dv) binary32 (bfloat16 and binary16 inputs embed
 * exactly), a binary32 scale c > 0 and an optional causal mask,
 *
 *   s_ik  = c (q_i . k_k)                         (exact: no rounding anywhere)
 *   O_ij  = sum_k e^(s_ik) V_kj / sum_k e^(s_ik)  over the keys k row i sees
 *   lse_i = ln sum_k e^(s_ik)
 *
 * each output summarised by oracle.h's record (hi = RN64, lo = RN64(s - hi), RN32, RD32: every
 * format's rounding follows from it), i.e. correctly rounded in binary32, bfloat16 and binary16
 * alike.  Row-major, contiguous: Q[i d + t], K[k d + t], V[k dv + j], O[i dv + j].
 *
 * The scale.  The reference is exact mathematics on the binary32 value c the kernel is given:
 * the default 1/sqrt(d) is irrational for odd log2(d) (d = 128: 2^-3.5), and no kernel can
 * apply an irrational scale, so UG_ATTN_SCALE_DEFAULT(d) = RN32(1/sqrt(d)) is the value both
 * the reference and every kernel take.  A kernel that folds c into exp2 (c log2(e)) or into Q
 * (fl(c q)) makes its own rounding of that product: an error it commits, which its bound
 * class counts (kernels/bounds_attn.c), not a different reference.
 *
 * The causal mask is bottom-right aligned (FlashAttention-2 from version 2.1, PyTorch's
 * causal_lower_right): row i sees keys k <= i + S - L.  With L > S the first L - S rows see no
 * key: their O is NaN (0/0) and their log-sum-exp -inf (ln 0); FlashAttention-2 writes 0 and
 * +inf there (a convention, documented in docs/operations-attention.md).
 *
 * Special values: a NaN or infinity in q_i, or in a row of K that row i sees, makes every
 * output of row i NaN (O and lse): a non-finite score has no softmax.  V enters only O's sums,
 * O_ij = sum_k p_ik V_kj with every weight p_ik > 0 (e^s of a finite score), so a non-finite
 * V_kj of a key row i sees changes only O_ij, as the extended reals say: NaN for a NaN (or +inf
 * beside -inf in the column), +-inf for infinities of one sign; the other columns and lse are
 * what they are without it (a key the row does not see is not read: causal rows before it keep
 * their column).  A zero O_ij is -0 when every V_kj the row sees is -0 (one key: O = V, sign
 * included), +0 otherwise: IEEE 754's sign of an exact zero, as for sums.
 *
 * Two implementations give identical records (tests/oracle_attention.c, its diff case):
 *   _mpfr  enclosures with MPFR (attention_mpfr.c): the scores exactly (MPFR at the precision
 *          that makes every product and sum exact), then exp, the sums, the weighted sums, the
 *          division and the log in interval arithmetic rounded outward at 128, 256, ... bits
 *          until every record is decided (Ziv's strategy; oracle/rows/ziv.h decides); a
 *          rounding still undecided at the cap (16384 bits) is reported on stderr and recorded
 *          NaN, never guessed;
 *   _fast  integer arithmetic with a proven error bound (attention_fast.c, its header derives
 *          it): exact scores in 128-bit integers, exp in 192-bit fixed point (the softmax fast
 *          path's), the weighted sums in 320-bit integers; a row with any output it cannot
 *          decide is computed by _mpfr.
 * ug_exact_attention takes _fast unless the MPFR oracle is selected (--oracle mpfr).  Rows are
 * independent; the whole-head functions spread them over ug_par_threads() threads (records
 * never depend on the count).  ug_ziv_stats (oracle/rows/transcend.h) counts the outputs each
 * path decided and the rows passed on.
 *
 * sum_abs of the records: what the a-priori bounds need (kernels/bounds_attn.c):
 *   O_ij:  W_ij = sum_k p_ik |V_kj| + 2^-100 sum_k |V_kj| (p the exact weights, the keys row i
 *          sees), rounded up: the weighted sum's |terms| and room for the underflow of tiny
 *          weights; within 2^-40 relative between the two paths;
 *   lse_i: A_i = max_k c sum_t |q_it k_kt|, rounded up: the size of the scores' rounding
 *          error (a dot of d terms), the same number in both paths.
 */
#ifndef UG_ORACLE_ATTENTION_H
#define UG_ORACLE_ATTENTION_H

#include <stdbool.h>
#include <stddef.h>

#include "oracle/oracle.h"

/* One head: its sizes are the shape's dims, L S d dv (shp->dim[0..3]; its batch and heads are
 * the caller's, ug_shape_problems), its options the call's: the scale c (opt->scale in binary32,
 * finite and > 0; 0 or opt NULL: the default) and causal, bottom-right aligned (UG_OPT_CAUSAL). */

/* RN32(1/sqrt(d)): the default scale (exact for even log2 d). */
float ug_attn_scale_default(size_t d);
/* The scale c of a head: opt->scale rounded to binary32, or the default for 0 (or opt NULL). */
float ug_attn_scale(const ug_shape *shp, const ug_opts *opt);
static inline bool ug_attn_causal(const ug_opts *opt)
{
    return opt && (opt->flags & UG_OPT_CAUSAL);
}
/* The keys row i sees: [0, ug_attn_keys(shp, opt, i)) (S, or the causal limit, possibly 0). */
size_t ug_attn_keys(const ug_shape *shp, const ug_opts *opt, size_t i);
/* Whether shp and opt make a head the references take: every size >= 1, d <= 65536, a finite
 * positive scale.  false with err saying why. */
bool ug_attn_head_ok(const ug_shape *shp, const ug_opts *opt, char *err, size_t errlen);

/* Every output of one head: O (L dv records, row-major) and lse (L records; NULL: not
 * wanted).  Cost: _fast ~1 us per key per query row and 128 outputs on one core (2048 x 2048,
 * d = 128: `ulpgate-bench-attention`), _mpfr ~20 times that. */
void ug_exact_attention(const float *Q, const float *K, const float *V, const ug_shape *shp,
                        const ug_opts *opt,
                        ug_exact *O, ug_exact *lse);
void ug_exact_attention_fast(const float *Q, const float *K, const float *V,
                             const ug_shape *shp, const ug_opts *opt, ug_exact *O, ug_exact *lse);
void ug_exact_attention_mpfr(const float *Q, const float *K, const float *V,
                             const ug_shape *shp, const ug_opts *opt, ug_exact *O, ug_exact *lse);
/* Row i alone (O: its dv records; lse: one record or NULL), single-threaded. */
void ug_exact_attention_row_mpfr(const float *Q, const float *K, const float *V,
                                 const ug_shape *shp, const ug_opts *opt, size_t i, ug_exact *O, ug_exact *lse);

/* An upper estimate of the scratch one head's reference allocates at its peak (the fast path's
 * arrays, every worker's, an MPFR row's), bytes: what a caller that must not end the process
 * tries to allocate first (the references' allocations end it when they fail). */
size_t ug_attn_scratch_bytes(const ug_shape *shp);

/* The columns j of a row that sees keys [0, keys) whose V_kj are all -0: O[j] set to -0 (the
 * other columns left as they are). */
void ug_attn_v_negzero(const float *V, const ug_shape *shp, size_t keys, ug_exact *O);

/* The bound quantities both paths share, for row i (sum_abs of lse_i: A_i above), rounded
 * up; and Z_j = sum_k |V_kj| over the keys row i sees, into Z (dv values, rounded up). */
double ug_attn_score_abs(const float *Q, const float *K, const ug_shape *shp, const ug_opts *opt,
                         size_t i);
void ug_attn_v_abs(const float *V, const ug_shape *shp, size_t keys, double *Z);
/* Whether row i's scores read a non-finite value (q_i, or a K row it sees): every output NaN. */
bool ug_attn_row_special(const float *Q, const float *K, const ug_shape *shp, const ug_opts *opt,
                         size_t i);
/* V's n values with each non-finite one replaced by 0 (to be freed), or NULL when all are
 * finite: the columns it changes are set afterwards by ug_attn_v_special, the others and lse
 * never read them. */
float *ug_attn_v_finite(const float *V, size_t n);
/* The columns j of a row that sees keys [0, keys) whose V_kj are not all finite: O[j] set to NaN
 * or an infinity (the rule above); the other columns left as they are. */
void ug_attn_v_special(const float *V, const ug_shape *shp, size_t keys, ug_exact *O);

/* Rows the fast path decided and rows it passed to MPFR since the last reset (every thread). */
void ug_attn_stats(size_t *rows_fast, size_t *rows_mpfr);
void ug_attn_stats_reset(void);

/* Tests only: the fast path decides at 2^log2_eps times its proven bound (a broken bound the
 * differential test must catch: log2_eps < 0); 0 restores it. */
void ug_attn_fast_set_slack_testing(int log2_eps);
/* Tests only: the enclosures [lo, hi] (rounded outward to binary64) of row i's outputs (dv of
 * O then lse) at prec bits, undecided: checked against an independent evaluation. */
void ug_attn_enclose_testing(const float *Q, const float *K, const float *V,
                             const ug_shape *shp, const ug_opts *opt, size_t i, long prec, double *lo, double *hi);

#endif
