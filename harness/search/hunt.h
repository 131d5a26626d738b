/*
 * hunt.h - searching for inputs that break a kernel (`ulpgate hunt`), shrinking them, and
 * writing them as corpus files (corpus.h).
 *
 *   hunt_eval.c    the objective of one input: the kernel run, every output against the exact
 *                  oracle (bound ratio |got - s| / the kernel's a-priori bound, or ULP error)
 *   hunt_search.c  the search (an evolutionary loop with local moves and S3FP-style range
 *                  halving, random restarts from the distributions) and plain random sampling
 *   hunt_shrink.c  delta debugging to fewer elements, then simpler values
 *   hunt_write.c   the corpus file
 *
 * The domain searched: finite binary32 values with |v| in [2^-100, 2^100] (sums) or [2^-50,
 * 2^50] (dot and GEMM factors), or zero, so that no partial sum or product can overflow or
 * underflow and the a-priori analysis holds on every candidate.  Everything is a function of
 * the seed and of the evaluation count: with an evaluation budget the search is deterministic
 * (any thread count); with a time budget it stops at the first batch past the deadline.
 */
#ifndef UG_HUNT_H
#define UG_HUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"
#include "ops/op.h"

typedef enum { UG_HUNT_BOUND, UG_HUNT_ULP } ug_hunt_objective;

/* What is hunted: a kernel, its shape, the objective. */
typedef struct ug_hunt_problem {
    const ug_kernel *k;
    ug_op op;
    size_t n;          /* sum/dot: the length; gemm: M (rows of A and C) */
    size_t gn, gk;     /* gemm: N and K; attention: S and d */
    size_t gdv;        /* a fourth dim (attention: dv) */
    ug_opts opts;      /* the call's options (attention: scale 0 = 1/sqrt(d), causal) */
    ug_hunt_objective objective;
} ug_hunt_problem;

/* The problem's operation and shape ({n, gn, gk} for a three-size operation, n for a vector
 * one). */
const ug_op_desc *ug_hunt_op(const ug_hunt_problem *p);
ug_shape ug_hunt_shape(const ug_hunt_problem *p);
/* Set the problem's sizes from s (its operation set first). */
void ug_hunt_set_shape(ug_hunt_problem *p, const ug_shape *s);

/* The values of an input: x[nx] and y[ny] (sum: x only; dot: pairs; gemm: A = x (M x K),
 * B = y (K x N), row-major; an operation laid out as heads, attention: every input one after
 * the other in x, Q then K then V, and no y). */
size_t ug_hunt_nx(const ug_hunt_problem *p);
size_t ug_hunt_ny(const ug_hunt_problem *p);

/* One evaluation.  valid: the kernel ran and at least one output has a finite exact value with
 * a finite correctly rounded value; ratio and ulp: the largest over those outputs (an output
 * whose exact value is not, as a row with no key under causal attention's mask where L > S,
 * is not scored: counted in unscored); objective: the one the problem maximises (ratio or
 * ulp).  An invalid input scores -1.  An output that is not finite where the exact value is
 * (the unshifted softmax's exp overflow: inf/inf) scores +inf: within the domain, that is the
 * breach the hunt is after.  An operation with its own per-output bound (ops/op.h's bound_at:
 * attention, whose O and lse are graded each in its format) scores the worst output's bound
 * ratio. */
typedef struct ug_hunt_score {
    bool valid;
    double objective, ratio, ulp;
    /* set by the shrink (ug_hunt_shrink): the same input, evaluated again, scored otherwise
     * (ratio, ulp: the first evaluation; again_ratio, again_ulp: the one that differed) */
    bool unstable;
    double again_ratio, again_ulp;
    size_t unscored;   /* outputs not scored: their exact value is not finite */
    bool skipped;      /* a batch's candidate not evaluated: the time budget was over */
    bool failed;       /* the kernel returned an error on this input (ug_hunt_eval's -1) */
} ug_hunt_score;

/* Evaluate one input.  Returns 0, or -1 when the kernel failed (its message in err, which may
 * be NULL).  Cost: one kernel run and the exact results of every output. */
int ug_hunt_eval(const ug_hunt_problem *p, const float *x, const float *y, ug_hunt_score *s,
                 char *err, size_t errlen);
/* Evaluate count inputs (xs[i], ys[i]) into scores[i]: CPU kernels on base/par.h's threads,
 * GPU kernels one launch each on this thread.  Scores do not depend on the thread count.
 * deadline > 0 (ug_now_s): no evaluation starts after it, its score marked skipped. */
void ug_hunt_eval_batch(const ug_hunt_problem *p, float *const *xs, float *const *ys,
                        size_t count, ug_hunt_score *scores, double deadline);

/* ---- the search ------------------------------------------------------------------------------ */

typedef struct ug_hunt_budget {
    uint64_t evals;    /* stop after this many evaluations (0: no limit) */
    double seconds;    /* stop at the first batch boundary past this (0: no limit) */
} ug_hunt_budget;

/* Where the best input came from (the move that made it). */
typedef enum {
    UG_MOVE_RESTART, UG_MOVE_EXPONENT, UG_MOVE_SIGNIFICAND, UG_MOVE_SIGN, UG_MOVE_SWAP,
    UG_MOVE_CANCEL, UG_MOVE_NUDGE, UG_MOVE_FILL, UG_MOVE_CROSSOVER, UG_MOVE_HALVING,
    UG_MOVE_COUNT
} ug_hunt_move;
const char *ug_hunt_move_name(ug_hunt_move m);

/* Progress: called after every batch (may be NULL). */
typedef void (*ug_hunt_progress_fn)(void *ctx, const char *phase, uint64_t evals,
                                    double seconds, const ug_hunt_score *best);

typedef struct ug_hunt_result {
    float *x, *y;              /* the best input (malloc'ed; y NULL for a sum) */
    ug_hunt_score best;
    float *ulp_x, *ulp_y;      /* the input of the largest ULP error seen (for the shrink) */
    ug_hunt_score ulp_best;
    uint64_t evals;
    double seconds;
    ug_hunt_move found_by;
    uint64_t found_at;         /* the evaluation that found the best */
    uint64_t accepted[UG_MOVE_COUNT]; /* children that entered the population, by move */
    size_t unscored_max;       /* the most outputs of one evaluation not scored (hunt.h) */
    uint64_t failed;           /* evaluations on which the kernel returned an error */
    float *fail_x, *fail_y;    /* the first such input (malloc'ed), to name the error */
} ug_hunt_result;

/* The search (random = false) or plain random sampling from the same distributions as the
 * search's restarts (random = true), within budget, into *res.  Deterministic for a seed and an
 * evaluation budget.  Cost: the budget. */
void ug_hunt_run(const ug_hunt_problem *p, uint64_t seed, const ug_hunt_budget *budget,
                 bool random, ug_hunt_progress_fn progress, void *progress_ctx,
                 ug_hunt_result *res);
void ug_hunt_result_free(ug_hunt_result *res);

/* Fill x (and y) with restart number `restart` of the distribution mix the search starts from
 * (normal, uniform, lognormal, expuniform, GenSum/GenDot at kappa 1e2 .. 1e16), clamped into
 * the domain; its name into name (may be NULL). */
void ug_hunt_restart(const ug_hunt_problem *p, uint64_t seed, uint64_t restart, float *x,
                     float *y, char *name, size_t namelen);

/* ---- shrinking ------------------------------------------------------------------------------- */

/* The breach the shrink keeps: the ULP error above ulp_limit, or, when bound is set, the bound
 * ratio above 1 (a kernel bug). */
typedef struct ug_hunt_breach {
    bool bound;
    double ulp_limit;
} ug_hunt_breach;

bool ug_hunt_breaches(const ug_hunt_breach *b, const ug_hunt_score *s);

/* Whether the hunt can shrink and write an input of p's operation (a corpus file holds the
 * vectors or matrices of two inputs at most: not an operation laid out as heads). */
bool ug_hunt_writable(const ug_hunt_problem *p);

/* Shrink the input of problem *p (x, y malloc'ed; *p's size fields describe it) while it still
 * breaches b: delta debugging (Zeller & Hildebrandt, TSE 2002) removes elements (sum), pairs
 * (dot), or rows of A, columns of B and inner indices (gemm), to a 1-minimal set; then each
 * value is replaced by the simplest value that keeps the breach (0, small integers, fewer
 * significand bits).  Updates *p, *x, *y in place; *evals counts the evaluations.  Returns
 * false when the input does not breach to begin with (nothing changed). */
bool ug_hunt_shrink(ug_hunt_problem *p, float **x, float **y, const ug_hunt_breach *b,
                    uint64_t *evals, ug_hunt_score *final);

/* ---- the corpus file ------------------------------------------------------------------------- */

typedef struct ug_hunt_provenance {
    const char *command;       /* the command line */
    uint64_t seed;
    size_t searched_n;         /* the size searched (before the shrink) */
    ug_hunt_score searched;    /* the search's best */
} ug_hunt_provenance;

/* Write the corpus file of input (x, y) of *p to path (atomically: a temporary renamed over
 * it): header (op and shape, why, source with the command line and seed, kernels, the check the
 * shrink kept, and for a ULP breach within the kernel's bound a strict expected failure with
 * its reason), then the values in hex-float with their decimal value as a comment.  0, or -1
 * with a message in err. */
int ug_hunt_write(const char *path, const ug_hunt_problem *p, const float *x, const float *y,
                  const ug_hunt_breach *b, const ug_hunt_score *s, const ug_hunt_provenance *prov,
                  char *err, size_t errlen);

#endif
