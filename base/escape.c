/* escape.c - see escape.h. */
#include "base/escape.h"

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
