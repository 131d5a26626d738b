/*
 * rng.c - Philox4x32-10 counter-based generator, stream keys, FNV-1a, MSVC rand() jump-ahead.
 *
 * Everything here is integer arithmetic on fixed-width types: the same bits on every machine,
 * compiler and thread count.  Philox is checked against the Random123 known-answer vectors in
 * cases/dist.c (dist/philox_kat).
 */
#include "harness/inputs/rng.h"

#define UG_PHILOX_M0 0xD2511F53u
#define UG_PHILOX_M1 0xCD9E8D57u
#define UG_PHILOX_W0 0x9E3779B9u
#define UG_PHILOX_W1 0xBB67AE85u

uint64_t ug_hash64(const char *s, uint64_t h)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ull; /* FNV-1a 64-bit prime */
    }
    return h;
}

/* splitmix64's finaliser (Steele, Lea, Flood 2014): a bijection on 64 bits with full
 * avalanche, so nearby seeds / stream ids give unrelated keys. */
static uint64_t ug_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

ug_stream ug_stream_make(uint64_t seed, uint64_t stream_id, uint32_t trial)
{
    /* The stream id is mixed on its own first so that (seed, id) and (id, seed) differ and a
     * seed that happens to equal an id's mix does not cancel it to a trivial key. */
    uint64_t key = ug_mix64(seed ^ ug_mix64(stream_id + 0x9e3779b97f4a7c15ull));
    ug_stream s;
    s.key[0] = (uint32_t)key;
    s.key[1] = (uint32_t)(key >> 32);
    s.trial = trial;
    s.stream_lo = (uint32_t)stream_id;
    return s;
}

/* Philox4x32 with 10 rounds on counter ctr and key k (Salmon et al. SC'11, the Random123
 * reference: the round uses the key, then the key is bumped by the Weyl constants). */
static void ug_philox4x32_10(const uint32_t ctr_in[4], const uint32_t key_in[2], uint32_t out[4])
{
    uint32_t c0 = ctr_in[0], c1 = ctr_in[1], c2 = ctr_in[2], c3 = ctr_in[3];
    uint32_t k0 = key_in[0], k1 = key_in[1];
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)UG_PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)UG_PHILOX_M1 * c2;
        uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
        uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += UG_PHILOX_W0;
        k1 += UG_PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

void ug_philox_raw(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    ug_philox4x32_10(ctr, key, out);
}

void ug_philox_block(const ug_stream *s, uint64_t block, uint32_t out[4])
{
    uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), s->trial, s->stream_lo};
    ug_philox4x32_10(ctr, s->key, out);
}

/* The same rounds on UG_PHILOX_LANES independent counters in lockstep: the ten rounds of one
 * block are a serial chain of multiplications, the lanes give the CPU independent work (and
 * the compiler something to vectorise), about twice the throughput of one block at a time. */
enum { UG_PHILOX_LANES = 16 };

static void ug_philox_lanes(const ug_stream *s, uint64_t first, size_t count, uint32_t (*out)[4])
{
    uint32_t c0[UG_PHILOX_LANES], c1[UG_PHILOX_LANES], c2[UG_PHILOX_LANES], c3[UG_PHILOX_LANES];
    for (size_t l = 0; l < UG_PHILOX_LANES; l++) {
        uint64_t b = first + l;
        c0[l] = (uint32_t)b;
        c1[l] = (uint32_t)(b >> 32);
        c2[l] = s->trial;
        c3[l] = s->stream_lo;
    }
    uint32_t k0 = s->key[0], k1 = s->key[1];
    for (int round = 0; round < 10; round++) {
        for (size_t l = 0; l < UG_PHILOX_LANES; l++) {
            uint64_t p0 = (uint64_t)UG_PHILOX_M0 * c0[l];
            uint64_t p1 = (uint64_t)UG_PHILOX_M1 * c2[l];
            uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1[l] ^ k0;
            uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3[l] ^ k1;
            c1[l] = (uint32_t)p1;
            c3[l] = (uint32_t)p0;
            c0[l] = n0;
            c2[l] = n2;
        }
        k0 += UG_PHILOX_W0;
        k1 += UG_PHILOX_W1;
    }
    for (size_t l = 0; l < count; l++) {
        out[l][0] = c0[l];
        out[l][1] = c1[l];
        out[l][2] = c2[l];
        out[l][3] = c3[l];
    }
}

void ug_philox_blocks(const ug_stream *s, uint64_t first, size_t count, uint32_t (*out)[4])
{
    while (count) {
        size_t now = count < UG_PHILOX_LANES ? count : UG_PHILOX_LANES;
        ug_philox_lanes(s, first, now, out);
        first += now;
        out += now;
        count -= now;
    }
}

uint32_t ug_rng_u32(const ug_stream *s, uint64_t i)
{
    uint32_t w[4];
    ug_philox_block(s, i / 4, w);
    return w[i % 4];
}

uint64_t ug_rng_u64(const ug_stream *s, uint64_t i)
{
    /* words 2i, 2i+1 lie in block i/2, lanes 0-1 or 2-3; word 2i is the low half */
    uint32_t w[4];
    ug_philox_block(s, i / 2, w);
    unsigned lane = (unsigned)(i % 2) * 2;
    return (uint64_t)w[lane] | (uint64_t)w[lane + 1] << 32;
}

double ug_rng_unit(const ug_stream *s, uint64_t i)
{
    return (double)(ug_rng_u64(s, i) >> 11) * 0x1p-53;
}

/* MSVC rand(): state x (32 bits), x <- a*x + c mod 2^32.  k steps of the affine map compose to
 * x <- A*x + C with (A, C) built by binary powering: O(log k) multiplications. */
uint32_t ug_msvc_state_after(uint32_t seed, uint64_t steps)
{
    uint32_t acc_a = 1, acc_c = 0;           /* the identity map */
    uint32_t cur_a = 214013u, cur_c = 2531011u; /* one step */
    while (steps) {
        if (steps & 1) {
            /* acc <- cur o acc: x -> cur_a*(acc_a*x + acc_c) + cur_c */
            acc_a = cur_a * acc_a;
            acc_c = cur_a * acc_c + cur_c;
        }
        /* cur <- cur o cur */
        cur_c = cur_a * cur_c + cur_c;
        cur_a = cur_a * cur_a;
        steps >>= 1;
    }
    return acc_a * seed + acc_c;
}

uint32_t ug_msvc_rand_at(uint32_t seed, uint64_t k)
{
    return (ug_msvc_state_after(seed, k + 1) >> 16) & 0x7fffu;
}
