/*
 * ops.c - the registry of operations: the tree's descriptors (ops/meson.build lists them, in id
 * order) and those registered at run time (ug_op_register), with the helpers every caller of
 * a descriptor shares (shape parsing and naming, the bound through the descriptor's term kind).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/parse.h"
#include "ops/op.h"
#include "ops/ug_ops.h"

#define UG_OP_ADDRESS(sym) &sym,
static const ug_op_desc *const ug_ops_tree[] = {UG_OPS(UG_OP_ADDRESS)};
enum { UG_N_TREE = sizeof ug_ops_tree / sizeof ug_ops_tree[0], UG_MAX_REGISTERED = 32 };
_Static_assert((int)UG_N_TREE == (int)UG_OP_BUILTIN, "ops/meson.build lists one descriptor per built-in id");

static const ug_op_desc *ug_ops_extra[UG_MAX_REGISTERED];
static size_t ug_n_extra;

const ug_op_desc *ug_op_at(size_t i)
{
    if (i < UG_N_TREE) return ug_ops_tree[i];
    return i - UG_N_TREE < ug_n_extra ? ug_ops_extra[i - UG_N_TREE] : NULL;
}

size_t ug_op_count(void) { return UG_N_TREE + ug_n_extra; }

/* Every descriptor of the tree sits at its id (one list, in ops/meson.build, gives both): a
 * descriptor listed out of order would answer for another operation's kernels. */
const ug_op_desc *ug_op_get(ug_op id)
{
    if (id < 0) return NULL;
    const ug_op_desc *d = ug_op_at((size_t)id);
    return d && d->shape->id == id ? d : NULL;
}


const ug_op_desc *ug_op_find(const char *name)
{
    for (size_t i = 0; name && i < ug_op_count(); i++)
        if (strcmp(ug_op_at(i)->shape->name, name) == 0) return ug_op_at(i);
    return NULL;
}

ug_op ug_op_register(ug_op_desc *d, ug_opshape *shape)
{
    const char *why = NULL;
    if (!d || !shape) why = "no descriptor or no shape";
    else if (!d->exact || !d->exact_fast || !d->exact_one_fast)
        why = "a required function (exact, exact_fast, exact_one_fast) is missing";
    else if (shape->layout == UG_LAYOUT_VECTORS &&
             (ug_opshape_in_width(shape, 0) != 1 || ug_opshape_width(shape) > 3))
        why = "input 0 is not one vector of n, or the inputs hold more than 3 vectors of n (a "
              "corpus line holds at most 3 values)";
    else if (ug_n_extra == UG_MAX_REGISTERED) why = "the table is full";
    if (why) {
        fprintf(stderr, "ulpgate: ug_op_register(%s): %s\n", shape && shape->name ? shape->name : "?",
                why);
        return -1;
    }
    /* The shape table checks the name and the shape, and hands out the id: the next after the
     * tree's descriptors, the same in both tables (every id below it is a built-in row). */
    if (ug_opshape_count() != UG_N_TREE + ug_n_extra) {
        fprintf(stderr, "ulpgate: ug_op_register(%s): a shape row was registered without its "
                "descriptor\n", shape->name ? shape->name : "?");
        return -1;
    }
    if (ug_opshape_register(shape) < 0) return -1;
    d->shape = shape;
    ug_ops_extra[ug_n_extra++] = d;
    return shape->id;
}

const char *ug_op_name(ug_op op) { return ug_opshape_name(op); }

const char *ug_op_names(char *buf, size_t len)
{
    size_t used = 0, n = ug_op_count();
    if (len) buf[0] = 0;
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i == 0 ? "" : i + 1 == n ? " or " : ", ", ug_op_at(i)->shape->name);
    return buf;
}

/* ---- bounds ------------------------------------------------------------------------------- */

/* An unknown operation's terms count as values (a kernel of an unregistered id never runs: the
 * harness refuses it first). */
static ug_terms ug_terms_of(const ug_kernel *k)
{
    const ug_op_desc *d = ug_op_get(k->op);
    return d ? d->terms_kind : UG_TERMS_VALUES;
}

double ug_kernel_bound(const ug_kernel *k, size_t n, double S, double s_abs)
{
    const ug_op_desc *d = ug_op_get(k->op);
    if (d && d->bound) return d->bound(k, n, S, s_abs, 0);
    return ug_bound_terms(k, ug_terms_of(k), n, S, s_abs);
}

double ug_kernel_bound_prob(const ug_kernel *k, size_t n, double S, double s_abs, double lambda)
{
    const ug_op_desc *d = ug_op_get(k->op);
    if (d && d->bound) return lambda > 0 ? d->bound(k, n, S, s_abs, lambda) : INFINITY;
    return ug_bound_prob_terms(k, ug_terms_of(k), n, S, s_abs, lambda);
}
