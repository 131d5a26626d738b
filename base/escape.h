/*
 * escape.h - text from outside (arguments, paths, file contents) made safe to print in a
 * message: control bytes (0x00-0x1f, 0x7f: ESC sequences that move the cursor, recolour or
 * clear a terminal, a CR that hides what came before) are written as \n, \r, \t or \xNN, and a
 * backslash as \\ so the result reads back unambiguously.  Other bytes, UTF-8 included, stay.
 */
#ifndef UG_ESCAPE_H
#define UG_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/* s escaped into buf (len >= 8): cut with "..." when it does not fit.  Returns buf. */
char *ug_escape(const char *s, char *buf, size_t len);

/* s as one shell word into buf: as it is when it holds only letters, digits and
 * _ - . , / : @ + = % ^ (every name of today's cases and kernels), else in single quotes with
 * each ' written '\''; with a control byte (a newline) bash's $'...' instead, the byte as \xNN,
 * so that the word stays on one line.  Cut with "..."
 * (then not a word) when it does not fit.  Returns buf. */
char *ug_shell_quote(const char *s, char *buf, size_t len);

/* Text from outside (a note, an expected-failure reason, a path) as Markdown text, appended to
 * o: what would become markup is escaped, so the page shows the text as written and a
 * reason cannot inject HTML, a link, a code span or a table cell into summary.md or a PR
 * comment.  '<' '>' '&' as entities; '\\' '`' '*' '[' ']' '|' backslash-escaped (a '|' also in a
 * table); a newline as a space, other control bytes as \xNN (no ESC reaches a terminal that
 * shows the page); a byte that starts no well-formed UTF-8 sequence as U+FFFD (the page and
 * the comment stay valid UTF-8). */
void ug_md_text(ug_buf *o, const char *s);

/* s as inline code, appended to o with its backquotes: a backquote (which would end the span)
 * as ', a control byte as ?, and in_table a '|' as \| (GFM splits cells before code spans);
 * invalid UTF-8 as U+FFFD, as ug_md_text; cut with "..." after max characters (0: no cut).
 * Names of cases, kernels and points. */
void ug_md_code(ug_buf *o, const char *s, bool in_table, size_t max);

#endif
