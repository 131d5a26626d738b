/*
 * fuzz_io.h - what the fuzz targets share: the value-file parser fed from memory, and a check
 * that stops the fuzzer with a message (a finding).
 */
#ifndef UG_FUZZ_IO_H
#define UG_FUZZ_IO_H

#include <stddef.h>
#include <stdint.h>

/* ug_oracle_parse_file (harness/inputs/values.h) on size bytes of data: the bytes go to an anonymous
 * in-memory file (memfd_create) that the parser opens by its /proc/self/fd path, so the
 * target calls the parser's public entry exactly as `ulpgate oracle FILE` does, whatever its
 * implementation, and nothing touches the disk.  Same contract as ug_oracle_parse_file. */
int ug_fuzz_parse_buffer(const uint8_t *data, size_t size, int dot, float **x, float **y,
                         size_t *n, char *err, size_t errlen);

/* size bytes of data in an anonymous in-memory file: its descriptor (close it when done), and
 * its /proc/self/fd path in path (64 bytes) for a reader that opens files by name. */
int ug_fuzz_memfd(const uint8_t *data, size_t size, char path[64]);

/* A finding: "fuzz finding: <what>" on stderr, then abort() (libFuzzer saves the input). */
void ug_fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
