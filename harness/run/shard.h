/* shard.h - a run split into N shards, balanced by estimated cost (harness/run/shard.c). */
#ifndef UG_SHARD_H
#define UG_SHARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The estimated cost of a unit in seconds (reports/unit_costs.json, or the table's median). */
double ug_shard_cost(const char *unit);
/* Assign each of count units (names in the run's order) to one of n shards, balanced by cost:
 * assign[i] in [0, n).  Returns the plan's fingerprint (every unit with its shard). */
uint64_t ug_shard_plan(const char *const *names, size_t count, int n, int *assign);
/* "K/N" with 0 <= K < N <= 4096. */
bool ug_shard_parse(const char *s, int *k, int *n);

#endif
