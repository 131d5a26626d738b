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

/* The length of the well-formed UTF-8 sequence at p (1 to 4 bytes: no overlong form, no
 * surrogate, nothing past U+10FFFF), 0 when the bytes there are none. */
static size_t ug_utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80) return 1;
    size_t n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
             : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    if (n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))) return 0;
    if (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))) return 0;
    return n;
}

/* Copy the byte at *p to o, a whole UTF-8 sequence when one starts there, U+FFFD for a byte
 * that starts none (a Markdown comment is UTF-8: GitHub refuses or mangles other bytes); *p
 * moves to the last byte copied. */
static void ug_put_utf8(ug_buf *o, const unsigned char **p)
{
    size_t n = ug_utf8_len(*p);
    if (n == 0) {
        ug_buf_put(o, "\xef\xbf\xbd", 3);
        return;
    }
    ug_buf_put(o, (const char *)*p, n);
    *p += n - 1;
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
        else ug_put_utf8(o, &p);
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
        else ug_put_utf8(o, &p);
    }
    ug_buf_printf(o, "%s`", *p ? "..." : "");
}
