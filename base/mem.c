/* mem.c - see mem.h. */
#include "base/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/parse.h"

/* A limit this large means "no limit" (cgroup v1 writes 2^63 - 4096 for that). */
#define UG_MEM_UNLIMITED 0x1p60

/* The first number of the file's line that starts with key ("MemAvailable:", "VmSize:"), times
 * scale; or -1. */
static double ug_mem_field(const char *path, const char *key, double scale)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    double v = -1;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0) {
            v = strtod(line + klen, NULL) * scale;
            break;
        }
    fclose(f);
    return v;
}

/* The number a one-line file holds ("max" and absurdly large values: no limit, -1). */
static double ug_mem_file_num(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[64] = "";
    double v = -1;
    if (fgets(line, sizeof line, f) && strncmp(line, "max", 3) != 0) {
        char *end;
        v = strtod(line, &end);
        if (end == line || v >= UG_MEM_UNLIMITED) v = -1;
    }
    fclose(f);
    return v;
}

/* limit - usage of the cgroup files under dir, or -1. */
static double ug_mem_cgroup_dir(const char *dir, const char *limit_name, const char *usage_name)
{
    char lp[4200], up[4200];
    snprintf(lp, sizeof lp, "%s/%s", dir, limit_name);
    snprintf(up, sizeof up, "%s/%s", dir, usage_name);
    double limit = ug_mem_file_num(lp), usage = ug_mem_file_num(up);
    if (limit < 0) return -1;
    return usage > 0 && usage < limit ? limit - usage : usage >= limit ? 0 : limit;
}

/* The cgroup's room (v2, else v1): the process's own cgroup directory as /proc/self/cgroup
 * names it, else the mount's root (a container sees its own cgroup there). */
static double ug_mem_cgroup(void)
{
    char v2[4096] = "", v1[4096] = "", line[4096];
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            if (strncmp(line, "0::", 3) == 0) snprintf(v2, sizeof v2, "%s", line + 3);
            char *m = strstr(line, ":memory:");
            if (m) snprintf(v1, sizeof v1, "%s", m + 8);
        }
        fclose(f);
    }
    char dir[4200];
    snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", v2);
    double room = ug_mem_cgroup_dir(dir, "memory.max", "memory.current");
    if (room < 0) room = ug_mem_cgroup_dir("/sys/fs/cgroup", "memory.max", "memory.current");
    if (room >= 0) return room;
    snprintf(dir, sizeof dir, "/sys/fs/cgroup/memory%s", v1);
    room = ug_mem_cgroup_dir(dir, "memory.limit_in_bytes", "memory.usage_in_bytes");
    if (room < 0)
        room = ug_mem_cgroup_dir("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes");
    return room;
}

/* ULPGATE_MEM_LIMIT (ug_parse_bytes: "123", "512M", "512MiB", "1GB", "2G"); -1 when unset.  A
 * malformed one is 0 bytes here (nothing fits: never no limit at all), and a usage error where
 * a run starts (ug_mem_env_check). */
static double ug_mem_env_limit(void)
{
    const char *s = getenv("ULPGATE_MEM_LIMIT");
    double v;
    if (!s || !*s) return -1;
    return ug_parse_bytes(s, &v) ? v : 0;
}

int ug_mem_env_check(char *err, size_t len)
{
    const char *s = getenv("ULPGATE_MEM_LIMIT");
    double v;
    if (!s || !*s || ug_parse_bytes(s, &v)) return 0;
    snprintf(err, len, "ULPGATE_MEM_LIMIT='%.40s%s' is not a size (bytes, or with a unit: 512M, "
                       "512MiB, 1GB, 2G)", s, strlen(s) > 40 ? "..." : "");
    return -1;
}

static void ug_mem_take(double v, const char *name, double *best, const char **source)
{
    if (v < 0 || (*best >= 0 && v >= *best)) return;
    *best = v;
    if (source) *source = name;
}

double ug_mem_available(const char **source)
{
    double best = -1;
    if (source) *source = "unknown";
    double avail = ug_mem_field("/proc/meminfo", "MemAvailable:", 1024);
    if (avail < 0) {
        long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        if (pages > 0 && size > 0) avail = (double)pages * (double)size;
    }
    ug_mem_take(avail, "MemAvailable", &best, source);
    ug_mem_take(ug_mem_cgroup(), "cgroup", &best, source);
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        double used = ug_mem_field("/proc/self/status", "VmSize:", 1024);
        double room = (double)rl.rlim_cur - (used > 0 ? used : 0);
        ug_mem_take(room > 0 ? room : 0, "RLIMIT_AS", &best, source);
    }
    ug_mem_take(ug_mem_env_limit(), "ULPGATE_MEM_LIMIT", &best, source);
    return best;
}

char *ug_mem_format(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024 && u < 6) {
        bytes /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%.0f B", bytes);
    else
        snprintf(buf, len, "%.3g %s", bytes, units[u]);
    return buf;
}

double ug_mem_chunk(double n)
{
    double c = n + 8;                       /* the chunk header */
    c = 16 * floor((c + 15) / 16);
    return c < 32 ? 32 : c;
}
