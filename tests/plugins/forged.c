/* forged.c - plugins whose tables lie (tests/plugin_test.sh), one per -DFORGE=N:
 *   1 the entry point is data; 2 a NULL table; 3 a count that lies; 4 a kernel_size mismatch;
 *   5 a name with a newline and ESC; 6 an unknown operation; 7 an unknown format; 8 an unknown
 *   backend; 9 an unknown bound class; 10 .run points into data; 11 the entry returns NULL;
 *   12 an unknown format in the third input's storage (attention's V).  Not forged, loaded:
 *   13 an attention row declaring the last bound class (UG_BOUND_ATTN_SPLIT_COUNT). */
#include <stddef.h>
#include <ulpgate/ulpgate.h>

static int f_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    ug_out_f32(c)[0] = 0;
    return 0;
}
static const int not_code[64] = {1};

#if FORGE == 5
#define NAME "evil\n# TODO x\033[2J"
#elif FORGE == 13
#define NAME "attention_row"
#else
#define NAME "forged_sum"
#endif
static const ug_kernel rows[] = {
    {.name = NAME, .op = FORGE == 6 ? 4242 : FORGE == 13 ? UG_OP_ATTENTION : UG_OP_SUM,
     .backend = FORGE == 8 ? (ug_backend)7 : UG_CPU, .out_fmt = FORGE == 7 ? (ug_fmt)99 : UG_F32,
     .in_store = {UG_F32, UG_F32, FORGE == 12 ? (ug_fmt)99 : UG_F32},
     .bound = FORGE == 9 ? (ug_bound_class)999 : FORGE == 13 ? UG_BOUND_ATTN_SPLIT_COUNT : UG_BOUND_TREE,
     .run = FORGE == 10 ? (ug_launcher)(void *)not_code : f_sum},
};
static const ug_plugin plugin = {ULPGATE_API_VERSION, FORGE == 4 ? sizeof(ug_kernel) + 8 : sizeof(ug_kernel),
                                 FORGE == 2 ? NULL : rows, FORGE == 3 ? 3000 : 1,
                                 0, NULL};

#if FORGE == 1
__attribute__((visibility("default"))) const ug_plugin *ulpgate_plugin_entry = &plugin;
#else
__attribute__((visibility("default"))) const ug_plugin *ulpgate_plugin_entry(void);
__attribute__((visibility("default"))) const ug_plugin *ulpgate_plugin_entry(void)
{
    return FORGE == 11 ? NULL : &plugin;
}
#endif
