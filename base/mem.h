/*
 * mem.h - how much memory this process may still take, so that a run that cannot fit is refused
 * with a clear message instead of ending under the OOM killer.
 */
#ifndef UG_MEM_H
#define UG_MEM_H

#include <stddef.h>

/* The memory this process can still allocate, in bytes: the least of
 *   - MemAvailable of /proc/meminfo (free memory plus what the kernel can reclaim), or
 *     sysconf(_SC_AVPHYS_PAGES) pages where /proc is not mounted;
 *   - the cgroup's limit less its usage (cgroup v2 memory.max - memory.current, or v1
 *     memory.limit_in_bytes - memory.usage_in_bytes), where the process runs under one;
 *   - RLIMIT_AS less the process's current virtual size (VmSize), when `ulimit -v` set one;
 *   - ULPGATE_MEM_LIMIT (base/parse.h ug_parse_bytes: bytes, or 512M / 512MiB / 2G, powers of
 *     1024, or 1GB, powers of 1000): a cap a user sets on a shared machine (and the tests use);
 *     a malformed one counts as 0 bytes (ug_mem_env_check says why).
 * *source (when not NULL) gets the name of the binding one ("MemAvailable", "cgroup",
 * "RLIMIT_AS", "ULPGATE_MEM_LIMIT").  Returns -1 when none can be read (then no check can be
 * made), else the bytes.  Cost: reads three or four small files. */
double ug_mem_available(const char **source);

/* 0, or -1 with "ULPGATE_MEM_LIMIT='1XB' is not a size ..." in err when it is set and
 * malformed (a cap that silently did not apply would let the OOM killer end the run). */
int ug_mem_env_check(char *err, size_t len);

/* bytes as "512 B", "3.4 KiB", "1.25 GiB" into buf; returns buf. */
char *ug_mem_format(double bytes, char *buf, size_t len);

/* The heap bytes one malloc(n) holds on glibc (header and 16-byte rounding, at least 32). */
double ug_mem_chunk(double n);

#endif
