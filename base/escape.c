/* escape.c - see escape.h. */
#include "base/escape.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

char *ug_escape(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char piece[8];
        if (*p == '\n') strcpy(piece, "\\n");
        else if (*p == '\r') strcpy(piece, "\\r");
        else if (*p == '\t') strcpy(piece, "\\t");
        else if (*p == '\\') strcpy(piece, "\\\\");
        else if (*p < 0x20 || *p == 0x7f) snprintf(piece, sizeof piece, "\\x%02x", *p);
        else piece[0] = (char)*p, piece[1] = 0;
        size_t k = strlen(piece);
        if (o + k + 4 > len) { /* room for "..." and the NUL */
            memcpy(buf + o, "...", 4);
            return buf;
        }
        memcpy(buf + o, piece, k);
        o += k;
    }
    buf[o] = 0;
    return buf;
}

char *ug_shell_quote(const char *s, char *buf, size_t len)
{
    bool plain = *s != 0;
    for (const char *p = s; *p && plain; p++)
        plain = isalnum((unsigned char)*p) || strchr("_-.,/:@+=%^", *p);
    if (plain) {
        snprintf(buf, len, "%s", s);
        return buf;
    }
    bool control = false;
    for (const char *p = s; *p; p++) control |= (unsigned char)*p < 0x20 || *p == 0x7f;
    size_t o = 0;
    if (control) buf[o++] = '$'; /* bash's $'...': a newline as \n keeps the line one line */
    buf[o++] = '\'';
    for (; *s; s++) {
        char esc[8];
        const char *piece = NULL;
        if (*s == '\'') piece = control ? "\\'" : "'\\''";
        else if (control && *s == '\\') piece = "\\\\";
        else if (control && ((unsigned char)*s < 0x20 || *s == 0x7f))
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)*s), piece = esc;
        size_t k = piece ? strlen(piece) : 1;
        if (o + k + 5 > len) { /* room for the closing quote, "..." and the NUL */
            memcpy(buf + o, "'...", 5);
            return buf;
        }
        if (piece) memcpy(buf + o, piece, k);
        else buf[o] = *s;
        o += k;
    }
    buf[o++] = '\'';
    buf[o] = 0;
    return buf;
}

void ug_md_text(ug_buf *o, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '<') ug_buf_printf(o, "&lt;");
        else if (*p == '>') ug_buf_printf(o, "&gt;");
        else if (*p == '&') ug_buf_printf(o, "&amp;");
        else if (strchr("\\`*[]|", *p)) ug_buf_printf(o, "\\%c", *p);
        else if (*p == '\n' || *p == '\r') ug_buf_printf(o, " ");
        else if (*p < 0x20 || *p == 0x7f) ug_buf_printf(o, "\\x%02x", *p);
        else ug_buf_put(o, (const char *)p, 1);
    }
}

void ug_md_code(ug_buf *o, const char *s, bool in_table, size_t max)
{
    ug_buf_printf(o, "`");
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)s;
    for (; *p && (!max || n < max); p++, n++) {
        if (*p == '`') ug_buf_printf(o, "'");
        else if (*p < 0x20 || *p == 0x7f) ug_buf_printf(o, "?");
        else if (*p == '|' && in_table) ug_buf_printf(o, "\\|");
        else ug_buf_put(o, (const char *)p, 1);
    }
    ug_buf_printf(o, "%s`", *p ? "..." : "");
}
