/*
 * row_fields.h - the result row's schema, declared once: every scalar field of ug_row with its
 * C member, JSON key, unit, when it is written (in a results.json, in a baseline), flags and a
 * one-line doc.  From this table come the ug_row struct (results.h), the JSON writer and reader
 * of a row (results_write.c, results_json.c), the baseline's row fields (harness/gate/baseline.c)
 * and docs/results-schema.md's table (scripts/gen_schema_md.py).  The nested values
 * (ulp_hist, worst_ulp, worst_bound_ratio) and a case's own named figures (ug_row.extra, from
 * ug_result_extra) are written and read by hand beside the table, in results_write.c and
 * results_json.c.
 *
 * X(type, member, len, key, unit, res, bl, flags, doc)
 *   type    STR (char member[len]), BOOL, INT, COUNT (size_t), DIM (a size_t of the row's
 *           ug_shape: member names it, shape.dim[i]), SEED (uint64_t, written as a hex
 *           string), NUM (double; non-finite values as "inf", "-inf", "nan"), STATUS
 *           (ug_status by name), PASSED (written from `status`, no member of its own)
 *   res, bl when the field is in a row of a results.json / of a baseline (UG_W_*, results.h):
 *           NEVER, ALL rows, MEAS(ured) rows, CHECK rows (not measured), GEMM / NOGEMM measured
 *           rows, NONZERO (written when not 0 or ""; absent reads as 0), REP (when repeats != 0).
 *           A reader requires a field wherever its rule says it is written.
 *   flags   UG_FF_EXTRA: written inside the row's "extra" object (seldom-used figures);
 *           UG_FF_DETAIL: in a results.json only with `run --detail`, or in a row that failed
 *           (a compact file leaves it out; absent reads as 0); never needed by the gate;
 *           UG_FF_DFLT: a compact file's row leaves it out when it equals the file's
 *           "defaults" value of the key (the value most rows have); absent reads as that value;
 *           UG_FF_DERIV: a compact file's row leaves it out when the reader makes the same bits
 *           from time_ms and the row's shape (ug_row_rate_derived, results.c);
 *           UG_FF_PREV: a compact file's row leaves it out when the row before it measured the
 *           same inputs (case, dist and size) and has the same value: an input's figure
 *           (kappa_max), shared by every kernel of the point; absent reads as that row's;
 *           UG_FF_RUN: a compact file's row leaves it out when the row before has the same
 *           value; absent reads as that row's, and the row's id must then be the one made of
 *           its fields (ug_row_make_id), so a row edited out of the file is an error, not a
 *           row silently moved to another case
 *
 * Adding a field: one X line here (in the place its key should take in a row), a line in
 * harness/run/point.c's ug_row_from_point to fill it, and UG_RESULTS_FORMAT (results.h) raised if
 * an older ulpgate must not read files that have it.  tests/results_checks.c's round trip covers
 * every line of the table by itself.
 */
#ifndef UG_ROW_FIELDS_H
#define UG_ROW_FIELDS_H

/* clang-format off */
#define UG_ROW_FIELDS(X) \
    X(STR,    id,                512,           "id",                "",        ALL,     ALL,     0, "the row's identity: \"<case> <kernel>@<variant> <dist> <n>\" or \"<case> <point>\"") \
    X(STR,    case_name,         128,           "case",              "",        ALL,     ALL,     UG_FF_RUN, "the case: \"reduce/normal\"") \
    X(STR,    point,             256,           "point",             "",        ALL,     CHECK,   0, "the TAP name") \
    X(STATUS, status,            0,             "status",            "",        ALL,     ALL,     UG_FF_DFLT, "pass, fail, skip, xfail or xpass") \
    X(PASSED, status,            0,             "passed",            "",        ALL,     NEVER,   UG_FF_DETAIL, "status is pass or xfail (written, not read)") \
    X(INT,    failures,          0,             "failures",          "checks",  ALL,     NEVER,   UG_FF_DETAIL, "checks of the point that failed") \
    X(STR,    note,              512,           "note",              "",        NONZERO, NEVER,   0, "skip reason, expected-failure reason, kernel error, or a check point's finding (batch invariance: equal, or the first differing row)") \
    X(STR,    device,            128,           "device",            "",        ALL,     NEVER,   UG_FF_DFLT, "\"cpu\" or the GPU's name") \
    X(BOOL,   measured,          0,             "measured",          "",        ALL,     ALL,     UG_FF_DFLT, "a measurement (else a check point with no figures)") \
    X(STR,    kernel,            64,            "kernel",            "",        MEAS,    MEAS,    0, "name@variant") \
    X(STR,    kernel_name,       48,            "kernel_name",       "",        MEAS,    NEVER,   UG_FF_DETAIL, "the kernel's name") \
    X(STR,    variant,           24,            "variant",           "",        MEAS,    NEVER,   UG_FF_DETAIL, "its build variant") \
    X(STR,    backend,           8,             "backend",           "",        MEAS,    MEAS,    UG_FF_DFLT, "cpu or cuda") \
    X(STR,    op,                UG_OPNAME_MAX, "op",                "",        MEAS,    MEAS,    UG_FF_DFLT, "the operation's name, whole (base/opshape.c: sum, dot, gemm, layernorm, ...); one this ulpgate does not have is an error") \
    X(STR,    dist,              160,           "dist",              "",        MEAS,    MEAS,    UG_FF_RUN, "the input distribution") \
    X(DIM,    shape.dim[0],      0,             "n",                 "",        MEAS,    MEAS,    0, "dimension 0 of the shape: the length n, or M of a GEMM") \
    X(DIM,    shape.dim[0],      0,             "m",                 "",        GEMM,    GEMM,    0, "GEMM (an operation of several dims): M, dimension 0 again") \
    X(DIM,    shape.dim[1],      0,             "gemm_n",            "",        GEMM,    GEMM,    0, "GEMM: N, dimension 1") \
    X(DIM,    shape.dim[2],      0,             "k",                 "",        GEMM,    GEMM,    0, "GEMM: K, dimension 2") \
    X(DIM,    shape.dim[3],      0,             "dim3",              "",        NONZERO, NONZERO, 0, "dimension 3 of an operation of four or more (attention's dv)") \
    X(DIM,    shape.dim[4],      0,             "dim4",              "",        NONZERO, NONZERO, 0, "dimension 4") \
    X(DIM,    shape.dim[5],      0,             "dim5",              "",        NONZERO, NONZERO, 0, "dimension 5") \
    X(DIM,    shape.batch,       0,             "batch",             "",        NONZERO, NONZERO, 0, "independent problems of the shape (0: one)") \
    X(DIM,    shape.heads,       0,             "heads",             "",        NONZERO, NONZERO, 0, "query heads (0: one)") \
    X(DIM,    shape.kv_heads,    0,             "kv_heads",          "",        NONZERO, NONZERO, 0, "key/value heads (0: as many as heads)") \
    X(BOOL,   deterministic,     0,             "deterministic",     "",        MEAS,    MEAS,    UG_FF_DFLT, "the kernel gives the same bits every run") \
    X(STR,    machine,           16,            "machine",           "",        NONZERO, NONZERO, 0, "\"cpu-model\": the kernel's bits depend on the CPU it runs on (approximate instructions, run-time dispatched libraries: UG_VP_CPU_MODEL); compared bit for bit only between runs on the same CPU model") \
    X(SEED,   seed,              0,             "seed",              "",        ALL,     MEAS,    UG_FF_DFLT, "the run's seed, \"0x5eed\"") \
    X(INT,    trials,            0,             "trials",            "",        MEAS,    MEAS,    UG_FF_DFLT, "inputs measured") \
    X(INT,    first_trial,       0,             "first_trial",       "",        MEAS,    MEAS,    UG_FF_DFLT, "the first trial's number") \
    X(COUNT,  elements,          0,             "elements",          "",        MEAS,    NEVER,   UG_FF_DFLT, "outputs of one trial") \
    X(COUNT,  count,             0,             "count",             "",        MEAS,    MEAS,    0, "outputs compared, over every trial") \
    X(COUNT,  out_of_range,      0,             "out_of_range",      "outputs", NONZERO, NEVER,   0, "outputs whose exact result or partial sums leave the output or accumulator format's range (the point is then a skip, none compared)") \
    X(NUM,    ulp_max,           0,             "ulp_max",           "ulp",     MEAS,    MEAS,    0, "the largest error, in units in the last place") \
    X(NUM,    ulp_mean,          0,             "ulp_mean",          "ulp",     MEAS,    MEAS,    0, "the mean error in ulps") \
    X(NUM,    rel_max,           0,             "rel_max",           "",        MEAS,    MEAS,    0, "the largest relative error") \
    X(NUM,    rel_mean,          0,             "rel_mean",          "",        MEAS,    NEVER,   UG_FF_DETAIL, "the mean relative error") \
    X(NUM,    abs_max,           0,             "abs_max",           "",        MEAS,    NEVER,   UG_FF_DETAIL, "the largest absolute error") \
    X(NUM,    abs_err_sum,       0,             "abs_err_sum",       "",        MEAS,    NEVER,   UG_FF_DETAIL, "the sum of the absolute errors") \
    X(NUM,    rel_err_sum,       0,             "rel_err_sum",       "",        MEAS,    NEVER,   UG_FF_DETAIL, "the sum of the relative errors") \
    X(NUM,    abs_err_sum_rd,    0,             "abs_err_sum_rd",    "",        NOGEMM,  NEVER,   UG_FF_EXTRA | UG_FF_DETAIL, "abs_err_sum against RD32 of the exact sum (the seven-methods post)") \
    X(NUM,    rel_err_sum_rd,    0,             "rel_err_sum_rd",    "",        NOGEMM,  NEVER,   UG_FF_EXTRA | UG_FF_DETAIL, "rel_err_sum against RD32 of the exact sum") \
    X(STR,    bound_class,       16,            "bound_class",       "",        MEAS,    NEVER,   UG_FF_DETAIL, "the kernel's declared error-bound class") \
    X(NUM,    bound_ratio_max,   0,             "bound_ratio_max",   "",        MEAS,    MEAS,    0, "the largest error / its bound") \
    X(NUM,    bound_ratio_mean,  0,             "bound_ratio_mean",  "",        MEAS,    NEVER,   UG_FF_DETAIL, "the mean error / bound") \
    X(NUM,    apriori_ratio_max, 0,             "apriori_ratio_max", "",        MEAS,    NEVER,   UG_FF_DETAIL, "the largest error / its a-priori bound") \
    X(NUM,    prob_ratio_max,    0,             "prob_ratio_max",    "",        MEAS,    NEVER,   UG_FF_DETAIL, "the largest error / its probabilistic bound") \
    X(NUM,    prob_lambda,       0,             "prob_lambda",       "",        MEAS,    NEVER,   UG_FF_DETAIL, "lambda of the probabilistic bound") \
    X(NUM,    prob_failure,      0,             "prob_failure",      "",        MEAS,    NEVER,   UG_FF_DETAIL, "its failure probability") \
    X(COUNT,  bound_vacuous,     0,             "bound_vacuous",     "outputs", MEAS,    NEVER,   UG_FF_DETAIL, "outputs whose bound was vacuous") \
    X(COUNT,  bound_unchecked,   0,             "bound_unchecked",   "outputs", MEAS,    NEVER,   UG_FF_DETAIL, "outputs with no bound checked") \
    X(COUNT,  unwritten,         0,             "unwritten",         "outputs", MEAS,    NEVER,   UG_FF_DETAIL, "outputs the kernel never wrote") \
    X(NUM,    kappa_max,         0,             "kappa_max",         "",        MEAS,    NEVER,   UG_FF_PREV, "the largest condition number of the inputs") \
    X(COUNT,  correctly_rounded, 0,             "correctly_rounded", "outputs", MEAS,    MEAS,    UG_FF_DFLT, "outputs equal to the exact value rounded to nearest") \
    X(INT,    repeats,           0,             "repeats",           "",        NONZERO, NONZERO, 0, "nondeterministic kernels: runs of the same input") \
    X(INT,    distinct_results,  0,             "distinct_results",  "",        REP,     REP,     0, "distinct outputs over the repeats") \
    X(NUM,    time_ms,           0,             "time_ms",           "ms",      MEAS,    NEVER,   0, "the median time of one call") \
    X(NUM,    gbps,              0,             "gbps",              "GB/s",    NOGEMM,  NEVER,   UG_FF_DERIV, "input bytes per second") \
    X(NUM,    gflops,            0,             "gflops",            "GFLOP/s", GEMM,    NEVER,   UG_FF_DERIV, "GEMM: 2MNK per second") \
    X(INT,    method,            0,             "method",            "",        NONZERO, NEVER,   UG_FF_EXTRA | UG_FF_DETAIL, "the seven-methods post's method number of the kernel")
/* clang-format on */

#endif
