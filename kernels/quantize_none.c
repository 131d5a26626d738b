/* quantize_none.c - kernels/quantize.h's CUDA quantizer for a build without CUDA: no device. */
#include <stdio.h>

#include "kernels/quantize.h"

int ug_quantize_cuda(const ug_quantizer *q, const ug_blockfmt *B, ug_quantize_call *c)
{
    (void)B;
    snprintf(c->err, sizeof c->err, "%s: built without CUDA", q->name);
    return -2;
}
