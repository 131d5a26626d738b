/* fenv.c - see fenv.h. */
#include "base/fenv.h"

#include <fenv.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define UG_FENV_X86 1
/* MXCSR: bits 0-5 the exception flags, 6 DAZ, 7-12 the exception masks, 13-14 rounding, 15 FTZ */
#define UG_MXCSR_FLAGS 0x3fu
#define UG_MXCSR_DAZ (1u << 6)
#define UG_MXCSR_FTZ (1u << 15)
#define UG_MXCSR_RC (3u << 13)
static uint32_t ug_mxcsr_read(void)
{
    uint32_t m;
    __asm__ volatile("stmxcsr %0" : "=m"(m));
    return m;
}
static void ug_mxcsr_write(uint32_t m) { __asm__ volatile("ldmxcsr %0" : : "m"(m)); }
static uint16_t ug_x87_read(void)
{
    uint16_t cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    return cw;
}
static void ug_x87_write(uint16_t cw) { __asm__ volatile("fldcw %0" : : "m"(cw)); }
#else
#define UG_FENV_X86 0
#endif

static const ug_fenv ug_known = {
    .round = FE_TONEAREST,
#if UG_FENV_X86
    .mxcsr = 0x1f80,
    .x87_cw = 0x037f,
#endif
};

const ug_fenv *ug_fenv_known(void) { return &ug_known; }

void ug_fenv_get(ug_fenv *e)
{
    memset(e, 0, sizeof *e);
    e->round = fegetround();
#if UG_FENV_X86
    e->mxcsr = ug_mxcsr_read() & ~UG_MXCSR_FLAGS;
    e->x87_cw = ug_x87_read();
#endif
}

void ug_fenv_set(const ug_fenv *e)
{
#if UG_FENV_X86
    /* the x87 word first: fesetround writes both units' rounding fields after it */
    ug_x87_write(e->x87_cw);
    ug_mxcsr_write((ug_mxcsr_read() & UG_MXCSR_FLAGS) | (e->mxcsr & ~UG_MXCSR_FLAGS));
#endif
    fesetround(e->round);
#if UG_FENV_X86
    ug_mxcsr_write((ug_mxcsr_read() & UG_MXCSR_FLAGS) | (e->mxcsr & ~UG_MXCSR_FLAGS));
#endif
}

void ug_fenv_set_known(void) { ug_fenv_set(&ug_known); }

bool ug_fenv_equal(const ug_fenv *a, const ug_fenv *b)
{
    return a->round == b->round && a->mxcsr == b->mxcsr && a->x87_cw == b->x87_cw;
}

static const char *ug_round_name(int r)
{
    switch (r) {
    case FE_TONEAREST: return "to nearest";
#ifdef FE_UPWARD
    case FE_UPWARD: return "upward";
#endif
#ifdef FE_DOWNWARD
    case FE_DOWNWARD: return "downward";
#endif
#ifdef FE_TOWARDZERO
    case FE_TOWARDZERO: return "toward zero";
#endif
    }
    return "unknown";
}

const char *ug_fenv_describe(const ug_fenv *now, const ug_fenv *was, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = 0;
#define UG_ADD(...)                                                                              \
    do {                                                                                         \
        if (used < len) used += (size_t)snprintf(buf + used, len - used, __VA_ARGS__);          \
    } while (0)
    if (now->round != was->round)
        UG_ADD("rounding mode %s (was %s)", ug_round_name(now->round), ug_round_name(was->round));
#if UG_FENV_X86
    /* the rounding fields follow the C rounding mode (fesetround writes both units): said once */
    uint32_t rc_mask = now->round != was->round ? UG_MXCSR_RC : 0;
    uint16_t x87_rc = now->round != was->round ? 0x0c00 : 0;
    if ((now->mxcsr & ~rc_mask) != (was->mxcsr & ~rc_mask)) {
        uint32_t m = now->mxcsr, o = was->mxcsr;
        UG_ADD("%sMXCSR 0x%04x", used ? "; " : "", (unsigned)m);
        const char *sep = ":";
        if ((m & UG_MXCSR_FTZ) != (o & UG_MXCSR_FTZ)) {
            UG_ADD("%s FTZ (flush to zero) %s", sep, m & UG_MXCSR_FTZ ? "set" : "cleared");
            sep = ",";
        }
        if ((m & UG_MXCSR_DAZ) != (o & UG_MXCSR_DAZ)) {
            UG_ADD("%s DAZ (denormals are zero) %s", sep, m & UG_MXCSR_DAZ ? "set" : "cleared");
            sep = ",";
        }
        if (!rc_mask && (m & UG_MXCSR_RC) != (o & UG_MXCSR_RC)) {
            UG_ADD("%s SSE rounding field changed", sep);
            sep = ",";
        }
        if ((m & ~(UG_MXCSR_FTZ | UG_MXCSR_DAZ | UG_MXCSR_RC)) != (o & ~(UG_MXCSR_FTZ | UG_MXCSR_DAZ | UG_MXCSR_RC)))
            UG_ADD("%s exception masks changed", sep);
        UG_ADD(" (was 0x%04x)", (unsigned)o);
    }
    if ((now->x87_cw & ~x87_rc) != (was->x87_cw & ~x87_rc))
        UG_ADD("%sx87 control word 0x%04x (was 0x%04x)", used ? "; " : "", (unsigned)now->x87_cw,
               (unsigned)was->x87_cw);
#endif
#undef UG_ADD
    return buf;
}
