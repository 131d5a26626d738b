/*
 * rng.h - counter-based random numbers: element i of stream (seed, stream_id, trial) is a pure
 * function of those four values, identical on every machine and for every thread count.
 *
 * Philox4x32-10 (Salmon et al., SC'11): key = the 64-bit seed mixed with the stream id,
 * key = mix(seed ^ mix(stream_id + 0x9e3779b97f4a7c15)) with mix = splitmix64's finaliser
 * (key[0] its low half), counter = (block index lo, block index hi, trial, stream id lo).
 * One block gives 4 x 32 bits.  dist.c puts a purpose tag in the top byte of the block index
 * (purpose << 56 | vector << 32 | element), so its uses never overlap.
 */
#ifndef UG_RNG_H
#define UG_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct ug_stream {
    uint32_t key[2];
    uint32_t trial;
    uint32_t stream_lo;
} ug_stream;

/* 64-bit FNV-1a of a string: how case names and input labels become stream ids. */
uint64_t ug_hash64(const char *s, uint64_t h);
#define UG_HASH64_INIT 0xcbf29ce484222325ull

ug_stream ug_stream_make(uint64_t seed, uint64_t stream_id, uint32_t trial);
/* The 4 words of block `block` of the stream. */
void ug_philox_block(const ug_stream *s, uint64_t block, uint32_t out[4]);
/* Blocks first .. first+count-1 into out[0..count): the same words as ug_philox_block, faster. */
void ug_philox_blocks(const ug_stream *s, uint64_t first, size_t count, uint32_t (*out)[4]);
/* Word i of the stream (= block i/4, lane i%4). */
uint32_t ug_rng_u32(const ug_stream *s, uint64_t i);
/* 64 random bits from words 2i and 2i+1. */
uint64_t ug_rng_u64(const ug_stream *s, uint64_t i);
/* Uniform double in [0,1) with 53 random bits, from ug_rng_u64(s, i). */
double ug_rng_unit(const ug_stream *s, uint64_t i);

/* MSVC's rand(): x = x*214013 + 2531011, output (x >> 16) & 0x7fff, RAND_MAX 32767.
 * ug_msvc_rand_at(seed, k) is the k-th output (k = 0 is the first call after srand(seed)),
 * computed by jump-ahead in O(log k): any element can be made on any thread. */
#define UG_MSVC_RAND_MAX 32767
uint32_t ug_msvc_rand_at(uint32_t seed, uint64_t k);
/* The MSVC rand() state after `steps` steps from srand(seed) (the same jump-ahead): a thread
 * starts there and steps on, x = x*214013 + 2531011, output (x >> 16) & 0x7fff. */
uint32_t ug_msvc_state_after(uint32_t seed, uint64_t steps);

/* Philox4x32-10 on an explicit counter and key (for the Random123 known-answer tests). */
void ug_philox_raw(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

#endif
