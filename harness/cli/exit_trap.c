/*
 * exit_trap.c - _exit, _Exit and the exec functions, as the ulpgate executable defines them.
 *
 * A plugin's kernel that calls exit() is seen by the guard's exit handlers (run: a failed point
 * and the report, exit 1; hunt and probe: exit 3).  _exit, _Exit and an exec end or replace the
 * process without running them: the command would end with the kernel's status, 0 too, and no
 * report.  The executable exports these names (meson.build: --dynamic-list, exit_trap.list), so
 * a plugin's call binds here before libc's; each tells the guard first (ug_guard_exit_trap:
 * under a guarded command with a kernel running, the command is finished as for exit()), and
 * otherwise does what libc's does.  Only in this executable: a library must not take these
 * names from the program that loads it (the Python package), and ulpgate's own calls of them
 * (the guard's _exit once a run is finished) pass straight through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness/run/guard.h"

extern char **environ;

/* ---- the process ends ------------------------------------------------------------------------ */

void _exit(int status)
{
    ug_guard_exit_trap(status, "_exit");
    for (;;) syscall(SYS_exit_group, status);
}

void _Exit(int status)
{
    ug_guard_exit_trap(status, "_Exit");
    for (;;) syscall(SYS_exit_group, status);
}

// ---- the process is replaced ------------------------------------------------------------------

int execve(const char *path, char *const argv[], char *const envp[])
{
    ug_guard_exit_trap(-1, "execve");
    return (int)syscall(SYS_execve, path, argv, envp);
}

int fexecve(int fd, char *const argv[], char *const envp[])
{
    ug_guard_exit_trap(-1, "fexecve");
    return (int)syscall(SYS_execveat, fd, "", argv, envp, 0x1000 /* AT_EMPTY_PATH */);
}

int execv(const char *path, char *const argv[])
{
    ug_guard_exit_trap(-1, "execv");
    return (int)syscall(SYS_execve, path, argv, environ);
}

/* The PATH search is libc's (the next definition of the name after this executable): its
 * execvpe, which execvp, execvpe and execlp all end in. */
typedef int (*ug_execvpe_fn)(const char *, char *const[], char *const[]);
static int ug_libc_execvpe(const char *file, char *const argv[], char *const envp[])
{
    ug_execvpe_fn next;
    *(void **)&next = dlsym(RTLD_NEXT, "execvpe");
    if (!next) return errno = ENOSYS, -1;
    return next(file, argv, envp);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
    ug_guard_exit_trap(-1, "execvpe");
    return ug_libc_execvpe(file, argv, envp);
}

int execvp(const char *file, char *const argv[])
{
    ug_guard_exit_trap(-1, "execvp");
    return ug_libc_execvpe(file, argv, environ);
}

/* execl, execlp, execle: their arguments gathered (at most UG_EXECL_MAX, as E2BIG beyond). */
enum { UG_EXECL_MAX = 4096 };
#define UG_GATHER(first, ap, argv, n)                                                              \
    do {                                                                                           \
        (argv)[0] = (char *)(first);                                                               \
        for ((n) = 1; (argv)[(n) - 1] && (n) < UG_EXECL_MAX; (n)++) (argv)[(n)] = va_arg(ap, char *); \
    } while (0)

int execl(const char *path, const char *arg, ...)
{
    ug_guard_exit_trap(-1, "execl");
    char *argv[UG_EXECL_MAX];
    size_t n;
    va_list ap;
    va_start(ap, arg);
    UG_GATHER(arg, ap, argv, n);
    va_end(ap);
    if (argv[n - 1]) return errno = E2BIG, -1;
    return (int)syscall(SYS_execve, path, argv, environ);
}

int execle(const char *path, const char *arg, ...)
{
    ug_guard_exit_trap(-1, "execle");
    char *argv[UG_EXECL_MAX];
    size_t n;
    va_list ap;
    va_start(ap, arg);
    UG_GATHER(arg, ap, argv, n);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    if (argv[n - 1]) return errno = E2BIG, -1;
    return (int)syscall(SYS_execve, path, argv, envp);
}

int execlp(const char *file, const char *arg, ...)
{
    ug_guard_exit_trap(-1, "execlp");
    char *argv[UG_EXECL_MAX];
    size_t n;
    va_list ap;
    va_start(ap, arg);
    UG_GATHER(arg, ap, argv, n);
    va_end(ap);
    if (argv[n - 1]) return errno = E2BIG, -1;
    return ug_libc_execvpe(file, argv, environ);
}
