/*
 * hunt_search.c - the search for inputs that maximise a kernel's error (hunt.h), and plain
 * random sampling to compare it with.
 *
 * The search is a steady-state evolutionary loop over a small population, in batches:
 *   - random restarts from the distributions (normal, uniform, lognormal, expuniform, and
 *     GenSum / GenDot at kappa 1e2 .. 1e16), which is all plain random sampling does;
 *   - local moves on a parent chosen by tournament: exponent shifts and significand changes kept
 *     apart (LSGA, Zou et al., ICSE 2015), sign flips, swaps, cancellation insertion (x_j = -x_i,
 *     or a large +L ... -L pair around the others), nudges by a few ulps, runs of copies (the
 *     n-copies-of-0.1f pattern), and crossover of two parents;
 *   - binary-guided range halving (S3FP, Chiang et al., PPoPP 2014): every value has a range
 *     (in the ordered-integer encoding of binary32, so halving works on magnitude and sign
 *     alike); each step halves every range, one configuration taking the lower or upper half at
 *     random per value and its complement the other, samples both, and keeps the half whose
 *     samples erred more; a range that cannot shrink further starts again around the best.
 * A child enters the population when it beats the worst member.  Generation runs on one thread
 * from one xoshiro256** stream seeded by the seed, evaluation in parallel (hunt_eval.c), and
 * the results are taken in order: the run is a function of the seed and the evaluation count.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/sys.h"
#include "harness/inputs/dist.h"
#include "harness/search/hunt.h"
#include "harness/inputs/rng.h"

enum {
    UG_POP = 24,       /* population */
    UG_BATCH = 64,     /* candidates per batch (fixed: the run must not depend on threads) */
    UG_HALVE_SAMPLES = 4, /* samples of each half per range-halving step */
};

/* ---- xoshiro256** (Blackman & Vigna), seeded by splitmix64 ---------------------------------- */

typedef struct {
    uint64_t s[4];
} ug_xrng;

static uint64_t ug_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t ug_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t ug_xnext(ug_xrng *r)
{
    uint64_t *s = r->s, out = ug_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = ug_rotl(s[3], 45);
    return out;
}

/* Uniform in [0, n), n >= 1 (Lemire's multiply; the tiny bias is irrelevant here). */
static uint64_t ug_below(ug_xrng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)ug_xnext(r) * n) >> 64);
}

static double ug_unit(ug_xrng *r) { return (double)(ug_xnext(r) >> 11) * 0x1p-53; }

/* ---- the domain ------------------------------------------------------------------------------ */

static int ug_dom_exp(const ug_hunt_problem *p)
{
    int e = ug_hunt_op(p)->hunt_exp;
    return e ? e : 100; /* a descriptor's 0: the default of ops/op.h */
}

/* v moved into the domain: finite, |v| in [2^-E, 2^E] or 0. */
static float ug_clamp(const ug_hunt_problem *p, float v)
{
    float top = ldexpf(1.0f, ug_dom_exp(p)), bottom = ldexpf(1.0f, -ug_dom_exp(p));
    if (isnan(v)) return 0.0f;
    if (fabsf(v) > top) return copysignf(top, v);
    if (fabsf(v) < bottom) return copysignf(0.0f, v);
    return v;
}

/* The ordered-integer encoding: monotone in the value, -0 and +0 both 0. */
static int32_t ug_ord(float v)
{
    uint32_t b = ug_f32_bits(v);
    return b & 0x80000000u ? -(int32_t)(b & 0x7fffffffu) : (int32_t)b;
}

static float ug_unord(int32_t i)
{
    return i < 0 ? ug_bits_f32((uint32_t)(-(int64_t)i) | 0x80000000u) : ug_bits_f32((uint32_t)i);
}

/* ---- restarts ------------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    ug_dist d;
} ug_hunt_dist;

static size_t ug_restart_dists(const ug_hunt_problem *p, ug_hunt_dist *out)
{
    size_t n = 0;
    out[n++] = (ug_hunt_dist){"normal", ug_normal(0, 1)};
    out[n++] = (ug_hunt_dist){"uniform_pm1", ug_uniform(-1, 1)};
    out[n++] = (ug_hunt_dist){"uniform01", ug_uniform(0, 1)};
    out[n++] = (ug_hunt_dist){"lognormal", ug_lognormal(0, 1)};
    out[n++] = (ug_hunt_dist){"expuniform", ug_expuniform(-20, 20)};
    static const double kappas[] = {1e2, 1e4, 1e8, 1e12, 1e16};
    static const char *const gs[] = {"gensum_1e2", "gensum_1e4", "gensum_1e8", "gensum_1e12",
                                     "gensum_1e16"};
    static const char *const gd[] = {"gendot_1e2", "gendot_1e4", "gendot_1e8", "gendot_1e12",
                                     "gendot_1e16"};
    for (size_t i = 0; i < 5; i++)
        out[n++] = !ug_hunt_op(p)->hunt_products ? (ug_hunt_dist){gs[i], ug_gensum(kappas[i])}
                                                 : (ug_hunt_dist){gd[i], ug_gendot(kappas[i])};
    return n;
}

void ug_hunt_restart(const ug_hunt_problem *p, uint64_t seed, uint64_t restart, float *x,
                     float *y, char *name, size_t namelen)
{
    ug_hunt_dist dists[16];
    size_t nd = ug_restart_dists(p, dists);
    const ug_hunt_dist *hd = &dists[restart % nd];
    uint32_t trial = (uint32_t)(restart / nd);
    char label[96];
    snprintf(label, sizeof label, "hunt/%s", hd->name);
    uint64_t stream = ug_hash64(label, UG_HASH64_INIT);
    char err[256];
    const ug_op_desc *od = ug_hunt_op(p);
    ug_shape sh = ug_hunt_shape(p);
    /* inputs laid out as heads (attention): every input one vector in x, drawn as a sum's */
    bool heads = od->shape->layout == UG_LAYOUT_HEADS;
    int rc = heads ? ug_dist_fill_sum(&hd->d, seed, stream, trial, x, ug_hunt_nx(p), err, sizeof err)
                   : ug_dist_fill_op(&hd->d, od, seed, stream, trial, x, y, &sh, err, sizeof err);
    if (rc != 0) { /* GenSum/GenDot too short for its construction: the normal one instead */
        ug_dist d = ug_normal(0, 1);
        hd = &dists[0];
        if (heads) ug_dist_fill_sum(&d, seed, stream, trial, x, ug_hunt_nx(p), err, sizeof err);
        else ug_dist_fill_op(&d, od, seed, stream, trial, x, y, &sh, err, sizeof err);
    }
    for (size_t i = 0; i < ug_hunt_nx(p); i++) x[i] = ug_clamp(p, x[i]);
    for (size_t i = 0; i < ug_hunt_ny(p); i++) y[i] = ug_clamp(p, y[i]);
    if (name) snprintf(name, namelen, "%s", hd->name);
}

/* ---- candidates and the population -------------------------------------------------------- */

typedef struct {
    float *v;          /* x then y, nx + ny values */
    ug_hunt_score s;
    ug_hunt_move move;
} ug_cand;

typedef struct {
    const ug_hunt_problem *p;
    size_t nx, ny, nv;
    ug_xrng rng;
    uint64_t seed, restarts;
    ug_cand pop[UG_POP];
    int npop;                     /* sorted by score, best first */
    /* range halving: the ranges of the current configuration and of its two halves */
    int32_t *lo, *hi, *alo, *ahi, *blo, *bhi;
    int halve_stale;
    double halve_best;
} ug_search;

static const char *const ug_move_names[UG_MOVE_COUNT] = {
    "restart", "exponent shift", "significand", "sign flip", "swap", "cancellation",
    "nudge", "copies", "crossover", "range halving"};

const char *ug_hunt_move_name(ug_hunt_move m) { return m < UG_MOVE_COUNT ? ug_move_names[m] : "?"; }

static void ug_restart_into(ug_search *S, float *v)
{
    ug_hunt_restart(S->p, S->seed, S->restarts++, v, S->ny ? v + S->nx : NULL, NULL, 0);
}

/* Tournament of 3: the best of three random members. */
static const ug_cand *ug_pick(ug_search *S)
{
    int best = (int)ug_below(&S->rng, (uint64_t)S->npop);
    for (int i = 0; i < 2; i++) {
        int c = (int)ug_below(&S->rng, (uint64_t)S->npop);
        if (c < best) best = c; /* sorted: a lower index is better */
    }
    return &S->pop[best];
}

/* A random value slot: any of x and y. */
static size_t ug_slot(ug_search *S) { return (size_t)ug_below(&S->rng, S->nv); }

/* The partner of a slot for pairwise moves: the same array (x or y). */
static size_t ug_partner(ug_search *S, size_t i)
{
    bool in_y = i >= S->nx;
    size_t base = in_y ? S->nx : 0, len = in_y ? S->ny : S->nx;
    return base + (size_t)ug_below(&S->rng, len);
}

static float ug_maxabs(const float *v, size_t from, size_t len)
{
    float m = 0;
    for (size_t i = from; i < from + len; i++)
        if (fabsf(v[i]) > m) m = fabsf(v[i]);
    return m;
}

/* One local move on v; returns which. */
static ug_hunt_move ug_mutate_once(ug_search *S, float *v)
{
    const ug_hunt_problem *p = S->p;
    ug_xrng *r = &S->rng;
    size_t i = ug_slot(S), j = ug_partner(S, i);
    switch (ug_below(r, 8)) {
    case 0: { /* exponent shift: mostly small, sometimes far */
        int k = 1 + (int)ug_below(r, ug_below(r, 4) ? 4 : 40);
        v[i] = ug_clamp(p, ldexpf(v[i], ug_below(r, 2) ? k : -k));
        return UG_MOVE_EXPONENT;
    }
    case 1: { /* significand: new low bits, or a whole new significand */
        uint32_t b = ug_f32_bits(v[i]);
        if (v[i] == 0) b = ug_f32_bits(1.0f);
        int m = 1 + (int)ug_below(r, 23);
        uint32_t mask = (1u << m) - 1;
        b = (b & ~mask) | ((uint32_t)ug_xnext(r) & mask);
        v[i] = ug_clamp(p, ug_bits_f32(b));
        return UG_MOVE_SIGNIFICAND;
    }
    case 2:
        v[i] = -v[i];
        return UG_MOVE_SIGN;
    case 3: {
        float t = v[i];
        v[i] = v[j], v[j] = t;
        return UG_MOVE_SWAP;
    }
    case 4: { /* cancellation: an exact opposite later, or a large pair around the others */
        size_t a = i < j ? i : j, b = i < j ? j : i;
        if (a == b) return UG_MOVE_CANCEL;
        if (ug_below(r, 2)) {
            v[b] = -v[a];
        } else {
            bool in_y = i >= S->nx;
            float m = ug_maxabs(v, in_y ? S->nx : 0, in_y ? S->ny : S->nx);
            float big = ug_clamp(p, ldexpf(m > 0 ? m : 1.0f, 1 + (int)ug_below(r, 30)));
            v[a] = ug_below(r, 2) ? big : -big;
            v[b] = -v[a];
        }
        return UG_MOVE_CANCEL;
    }
    case 5: { /* a few ulps either way */
        int32_t o = ug_ord(v[i]) + (int32_t)ug_below(r, 17) - 8;
        v[i] = ug_clamp(p, ug_unord(o));
        return UG_MOVE_NUDGE;
    }
    case 6: { /* a run of copies of one value */
        bool in_y = i >= S->nx;
        size_t end = in_y ? S->nv : S->nx, len = 1 + (size_t)ug_below(r, 1 + (end - i) / 4);
        for (size_t t = i + 1; t < i + len && t < end; t++) v[t] = v[i];
        return UG_MOVE_FILL;
    }
    default: { /* a significand bit pattern that rounds: a value just above a power of two */
        uint32_t b = ug_f32_bits(v[i]) & 0xff800000u;
        if (v[i] == 0) b = ug_f32_bits(1.0f);
        v[i] = ug_clamp(p, ug_bits_f32(b | (uint32_t)ug_below(r, 4)));
        return UG_MOVE_SIGNIFICAND;
    }
    }
}

/* A child of the population into v (nv values); returns the move that made it. */
static ug_hunt_move ug_child(ug_search *S, float *v)
{
    ug_xrng *r = &S->rng;
    double u = ug_unit(r);
    if (S->npop < UG_POP || u < 0.06) {
        ug_restart_into(S, v);
        return UG_MOVE_RESTART;
    }
    const ug_cand *a = ug_pick(S);
    memcpy(v, a->v, S->nv * sizeof *v);
    ug_hunt_move move;
    if (u < 0.16) { /* crossover: a segment of another parent */
        const ug_cand *b = ug_pick(S);
        size_t from = (size_t)ug_below(r, S->nv), len = 1 + (size_t)ug_below(r, S->nv - from);
        memcpy(v + from, b->v + from, len * sizeof *v);
        move = UG_MOVE_CROSSOVER;
        if (ug_below(r, 2)) return move;
    }
    int moves = 1;
    while (moves < 8 && ug_below(r, 2)) moves++;
    for (int m = 0; m < moves; m++) move = ug_mutate_once(S, v);
    return move;
}

/* ---- range halving (S3FP) ------------------------------------------------------------------- */

/* A fresh configuration: around the best member (half a binade either way of each value), or,
 * every other time and before there is a population, the whole domain. */
static void ug_halve_reset(ug_search *S)
{
    int32_t top = ug_ord(ldexpf(1.0f, ug_dom_exp(S->p)));
    bool local = S->npop > 0 && ug_below(&S->rng, 2);
    for (size_t i = 0; i < S->nv; i++) {
        if (local) {
            int64_t c = ug_ord(S->pop[0].v[i]), w = 1 << 22;
            S->lo[i] = (int32_t)(c - w < -top ? -top : c - w);
            S->hi[i] = (int32_t)(c + w > top ? top : c + w);
        } else {
            S->lo[i] = -top, S->hi[i] = top;
        }
    }
    S->halve_stale = 0;
    S->halve_best = -1;
}

/* The two complementary halvings of the current configuration into (alo, ahi), (blo, bhi). */
static void ug_halve_split(ug_search *S)
{
    bool narrow = true;
    for (size_t i = 0; i < S->nv; i++) {
        int32_t lo = S->lo[i], hi = S->hi[i], mid = (int32_t)(((int64_t)lo + hi) >> 1);
        narrow &= (int64_t)hi - lo < 2;
        bool lower = ug_below(&S->rng, 2);
        S->alo[i] = lower ? lo : mid, S->ahi[i] = lower ? mid : hi;
        S->blo[i] = lower ? mid : lo, S->bhi[i] = lower ? hi : mid;
    }
    if (narrow || S->halve_stale > 40) {
        ug_halve_reset(S);
        ug_halve_split(S);
    }
}

static void ug_halve_sample(ug_search *S, const int32_t *lo, const int32_t *hi, float *v)
{
    for (size_t i = 0; i < S->nv; i++) {
        uint64_t width = (uint64_t)((int64_t)hi[i] - lo[i] + 1);
        v[i] = ug_clamp(S->p, ug_unord(lo[i] + (int32_t)ug_below(&S->rng, width)));
    }
}

/* After the batch: keep the half whose samples erred more. */
static void ug_halve_choose(ug_search *S, double best_a, double best_b)
{
    bool a = best_a >= best_b;
    memcpy(S->lo, a ? S->alo : S->blo, S->nv * sizeof *S->lo);
    memcpy(S->hi, a ? S->ahi : S->bhi, S->nv * sizeof *S->hi);
    double m = a ? best_a : best_b;
    if (m > S->halve_best) S->halve_best = m, S->halve_stale = 0;
    else S->halve_stale++;
}

/* ---- the loop ------------------------------------------------------------------------------ */

/* Offer an evaluated child to the population: it enters when it beats the worst member and no
 * member has the very same score (clones would take the population over). */
static bool ug_offer(ug_search *S, const float *v, const ug_hunt_score *s, ug_hunt_move move)
{
    if (!s->valid) return false;
    if (S->npop == UG_POP && !(s->objective > S->pop[UG_POP - 1].s.objective)) return false;
    for (int i = 0; i < S->npop; i++)
        if (S->pop[i].s.objective == s->objective) return false;
    int at = S->npop < UG_POP ? S->npop++ : UG_POP - 1;
    ug_cand c = S->pop[at];
    memcpy(c.v, v, S->nv * sizeof *v);
    c.s = *s;
    c.move = move;
    while (at > 0 && S->pop[at - 1].s.objective < c.s.objective) {
        S->pop[at] = S->pop[at - 1];
        at--;
    }
    S->pop[at] = c;
    return true;
}

static void ug_keep(float **dst, float **dsty, const ug_search *S, const float *v)
{
    if (!*dst) *dst = ug_xmalloc((S->nx ? S->nx : 1) * sizeof(float));
    memcpy(*dst, v, S->nx * sizeof(float));
    if (S->ny) {
        if (!*dsty) *dsty = ug_xmalloc(S->ny * sizeof(float));
        memcpy(*dsty, v + S->nx, S->ny * sizeof(float));
    }
}

void ug_hunt_run(const ug_hunt_problem *p, uint64_t seed, const ug_hunt_budget *budget,
                 bool random, ug_hunt_progress_fn progress, void *progress_ctx,
                 ug_hunt_result *res)
{
    ug_search S;
    memset(&S, 0, sizeof S);
    memset(res, 0, sizeof *res);
    res->best = res->ulp_best = (ug_hunt_score){false, -1, -1, -1};
    S.p = p;
    S.nx = ug_hunt_nx(p), S.ny = ug_hunt_ny(p), S.nv = S.nx + S.ny;
    S.seed = seed;
    uint64_t sm = seed ^ (random ? 0x72616e646f6dull : 0x68756e74ull); /* "random", "hunt" */
    for (int i = 0; i < 4; i++) S.rng.s[i] = ug_splitmix(&sm);
    for (int i = 0; i < UG_POP; i++) S.pop[i].v = ug_xmalloc(S.nv * sizeof(float));
    int32_t **ranges[] = {&S.lo, &S.hi, &S.alo, &S.ahi, &S.blo, &S.bhi};
    for (int i = 0; i < 6; i++) *ranges[i] = ug_xmalloc(S.nv * sizeof(int32_t));
    ug_halve_reset(&S);
    float *batch[UG_BATCH], *bx[UG_BATCH], *by[UG_BATCH];
    ug_hunt_move moves[UG_BATCH];
    ug_hunt_score scores[UG_BATCH];
    for (int i = 0; i < UG_BATCH; i++) batch[i] = ug_xmalloc(S.nv * sizeof(float));
    double t0 = ug_now_s();
    const char *phase = random ? "random" : "search";
    for (;;) {
        double now = ug_now_s() - t0;
        if (budget->evals && res->evals >= budget->evals) break;
        if (budget->seconds > 0 && now >= budget->seconds) break;
        size_t count = UG_BATCH;
        if (budget->evals && budget->evals - res->evals < count)
            count = (size_t)(budget->evals - res->evals);
        /* the batch: range-halving samples (both halves) first, then children */
        size_t halving = random || count < 4 * UG_HALVE_SAMPLES ? 0 : 2 * UG_HALVE_SAMPLES;
        if (halving) ug_halve_split(&S);
        for (size_t b = 0; b < count; b++) {
            if (b < halving) {
                bool first = b < UG_HALVE_SAMPLES;
                ug_halve_sample(&S, first ? S.alo : S.blo, first ? S.ahi : S.bhi, batch[b]);
                moves[b] = UG_MOVE_HALVING;
            } else if (random) {
                ug_restart_into(&S, batch[b]);
                moves[b] = UG_MOVE_RESTART;
            } else {
                moves[b] = ug_child(&S, batch[b]);
            }
            bx[b] = batch[b];
            by[b] = S.ny ? batch[b] + S.nx : NULL;
        }
        ug_hunt_eval_batch(p, bx, S.ny ? by : NULL, count, scores,
                           budget->seconds > 0 ? t0 + budget->seconds : 0);
        double best_a = -1, best_b = -1;
        size_t done = 0;
        for (size_t b = 0; b < count; b++) {
            const ug_hunt_score *s = &scores[b];
            if (s->skipped) continue; /* past the time budget: not evaluated */
            uint64_t index = res->evals + ++done;
            if (s->unscored > res->unscored_max) res->unscored_max = s->unscored;
            if (s->failed && res->failed++ == 0) ug_keep(&res->fail_x, &res->fail_y, &S, batch[b]);
            if (b < halving) {
                double *m = b < UG_HALVE_SAMPLES ? &best_a : &best_b;
                if (s->valid && s->objective > *m) *m = s->objective;
            }
            if (s->valid && s->objective > res->best.objective) {
                res->best = *s;
                res->found_by = moves[b];
                res->found_at = index;
                ug_keep(&res->x, &res->y, &S, batch[b]);
            }
            if (s->valid && s->ulp > res->ulp_best.ulp) {
                res->ulp_best = *s;
                ug_keep(&res->ulp_x, &res->ulp_y, &S, batch[b]);
            }
            if (!random && ug_offer(&S, batch[b], s, moves[b])) res->accepted[moves[b]]++;
        }
        if (halving) ug_halve_choose(&S, best_a, best_b);
        res->evals += done;
        res->seconds = ug_now_s() - t0;
        if (progress) progress(progress_ctx, phase, res->evals, res->seconds, &res->best);
    }
    res->seconds = ug_now_s() - t0;
    for (int i = 0; i < UG_BATCH; i++) free(batch[i]);
    for (int i = 0; i < UG_POP; i++) free(S.pop[i].v);
    for (int i = 0; i < 6; i++) free(*ranges[i]);
}

void ug_hunt_result_free(ug_hunt_result *res)
{
    free(res->x);
    free(res->y);
    free(res->ulp_x);
    free(res->ulp_y);
    free(res->fail_x);
    free(res->fail_y);
    memset(res, 0, sizeof *res);
}
