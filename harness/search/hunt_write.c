/*
 * hunt_write.c - a shrunk input written as a corpus file (hunt.h, corpus.h): the header says
 * what it is and what it checks, the values follow in hex-float (exact) with their decimal
 * value beside them.
 */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/sys.h"
#include "harness/search/hunt.h"

/* One value line: hex-float, then the decimal value as a comment. */
static void ug_value_line(ug_buf *b, float x, const float *y, const char *what)
{
    char hx[64], hy[64];
    if (y)
        ug_buf_printf(b, "%-16s %-16s # %.9g * %.9g%s%s\n", ug_hexf(x, hx), ug_hexf(*y, hy),
                      (double)x, (double)*y, what ? "  " : "", what ? what : "");
    else
        ug_buf_printf(b, "%-16s # %.9g%s%s\n", ug_hexf(x, hx), (double)x, what ? "  " : "",
                      what ? what : "");
}

/* A line of an operation whose input 1 holds w > 1 vectors (a LayerNorm's x w b, ops/op.h):
 * x then y[v n + i] for each v, the decimal values as a comment. */
static void ug_value_line_wide(ug_buf *b, const float *x, const float *y, size_t n, size_t w,
                               size_t i)
{
    char h[64];
    ug_buf_printf(b, "%-16s", ug_hexf(x[i], h));
    for (size_t v = 0; v < w; v++) ug_buf_printf(b, " %-16s", ug_hexf(y[v * n + i], h));
    ug_buf_printf(b, " # %.9g", (double)x[i]);
    for (size_t v = 0; v < w; v++) ug_buf_printf(b, " %.9g", (double)y[v * n + i]);
    ug_buf_printf(b, "\n");
}

int ug_hunt_write(const char *path, const ug_hunt_problem *p, const float *x, const float *y,
                  const ug_hunt_breach *b, const ug_hunt_score *s, const ug_hunt_provenance *prov,
                  char *err, size_t errlen)
{
    ug_buf t = {0};
    const ug_kernel *k = p->k;
    const ug_op_desc *d = ug_hunt_op(p);
    ug_shape sh = ug_hunt_shape(p);
    size_t size = (size_t)ug_op_work(d, &sh); /* its terms: n, or M N K products */
    char shape[80] = "", dims[64];
    ug_op_shape_text(d, &sh, false, dims, sizeof dims);
    if (ug_opshape_ndims(d->shape) > 1)
        ug_buf_printf(&t, "# op: %s %s\n", d->shape->name, dims);
    else
        ug_buf_printf(&t, "# op: %s\n", d->shape->name);
    if (ug_opshape_ndims(d->shape) > 1) snprintf(shape, sizeof shape, " (%s)", dims);
    ug_buf_printf(&t, "# why: found by ulpgate hunt: %s is %.4g ulp off (bound ratio %.3g) on "
                      "these %zu %s%s, shrunk from a searched input of %zu (bound ratio %.3g, "
                      "%.4g ulp)\n",
                  k->id, s->ulp, s->ratio, size, ug_opshape_term_noun(d->shape),
                  shape, prov->searched_n, prov->searched.ratio, prov->searched.ulp);
    ug_buf_printf(&t, "# source: hunt: %s (seed 0x%llx)\n", prov->command,
                  (unsigned long long)prov->seed);
    ug_buf_printf(&t, "# kernels: %s\n", k->id);
    if (b->bound) {
        /* a breach of the a-priori bound is a bug: the point fails until the kernel is fixed */
        ug_buf_printf(&t, "# check: bound_ratio_max 1 the kernel's a-priori bound (%s)\n",
                      ug_bound_class_name(k->bound));
    } else {
        ug_buf_printf(&t, "# check: ulp_max %.17g the breach the shrink kept\n", b->ulp_limit);
        ug_buf_printf(&t, "# xfail: %s %.4g ulp on this input, within its a-priori bound (ratio "
                          "%.3g, class %s): the analysis allows it\n",
                      k->id, s->ulp, s->ratio, ug_bound_class_name(k->bound));
    }
    if (d->shape->layout == UG_LAYOUT_MATMUL) {
        ug_buf_printf(&t, "## A, %zu x %zu, row-major; then B, %zu x %zu\n", p->n, p->gk, p->gk,
                      p->gn);
        char what[64];
        for (size_t i = 0; i < p->n * p->gk; i++) {
            snprintf(what, sizeof what, "A[%zu][%zu]", i / p->gk, i % p->gk);
            ug_value_line(&t, x[i], NULL, what);
        }
        for (size_t i = 0; i < p->gk * p->gn; i++) {
            snprintf(what, sizeof what, "B[%zu][%zu]", i / p->gn, i % p->gn);
            ug_value_line(&t, y[i], NULL, what);
        }
    } else if (y && ug_op_in_width(d, 1) > 1) {
        size_t w = (size_t)ug_op_in_width(d, 1);
        ug_buf_printf(&t, "## %s %s\n", d->shape->roles[0], d->shape->roles[1]);
        for (size_t i = 0; i < p->n; i++) ug_value_line_wide(&t, x, y, p->n, w, i);
    } else {
        for (size_t i = 0; i < p->n; i++) ug_value_line(&t, x[i], y ? &y[i] : NULL, NULL);
    }
    /* atomically (a reader never sees half a file), and through a symlink or into a device
     * rather than replacing it with a regular file: `--out /dev/full` is ENOSPC, not a new
     * /dev/full (ug_write_atomic) */
    char why[1200];
    int rc = -1;
    if (ug_write_atomic(path, ug_buf_str(&t), t.len, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s", why);
        goto out;
    }
    rc = 0;
out:
    ug_buf_free(&t);
    return rc;
}
