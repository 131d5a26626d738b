/* datadir.c - finding ulpgate's data folder at run time (base/datadir.h). */
#include "base/datadir.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char ug_dir[PATH_MAX];
static bool ug_dir_found, ug_dir_source;
static pthread_once_t ug_dir_once = PTHREAD_ONCE_INIT;

static bool ug_is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One readlink of /proc/self/exe and at most one small file read. */
static void ug_data_dir_find(void)
{
    const char *env = getenv("ULPGATE_DATA_DIR");
    if (env && *env) {
        snprintf(ug_dir, sizeof ug_dir, "%s", env);
        ug_dir_found = ug_is_dir(ug_dir);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return;
    *slash = 0; /* exe is now the executable's folder */
    char marker[PATH_MAX + 32];
    snprintf(marker, sizeof marker, "%s/ulpgate-data-dir", exe);
    FILE *f = fopen(marker, "r");
    if (f) {
        bool ok = fgets(ug_dir, sizeof ug_dir, f) != NULL;
        fclose(f);
        ug_dir[strcspn(ug_dir, "\n")] = 0;
        if (ok && ug_is_dir(ug_dir)) {
            ug_dir_found = ug_dir_source = true;
            return;
        }
    }
    snprintf(ug_dir, sizeof ug_dir, "%.*s/../share/ulpgate", PATH_MAX - 32, exe);
    ug_dir_found = ug_is_dir(ug_dir);
}

const char *ug_data_dir(void)
{
    pthread_once(&ug_dir_once, ug_data_dir_find);
    return ug_dir_found ? ug_dir : NULL;
}

bool ug_data_dir_is_source_tree(void)
{
    ug_data_dir();
    return ug_dir_source;
}

bool ug_data_path(const char *rel, char *path, size_t size)
{
    const char *d = ug_data_dir();
    path[0] = 0;
    if (!d || (size_t)snprintf(path, size, "%s/%s", d, rel) >= size) {
        path[0] = 0;
        return false;
    }
    return true;
}
