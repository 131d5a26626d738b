/*
 * junit.c - a results list as JUnit XML (the format CI systems show): one <testsuite> per case,
 * one <testcase> per test point, a <failure> with the point's note for a failure or an
 * unexpected pass, <skipped> for a skip; an expected failure is a passing testcase.
 */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "harness/results/junit.h"

static void ug_xml_text(ug_buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '<': ug_buf_printf(b, "&lt;"); break;
        case '>': ug_buf_printf(b, "&gt;"); break;
        case '&': ug_buf_printf(b, "&amp;"); break;
        case '"': ug_buf_printf(b, "&quot;"); break;
        default:
            if (*p < 0x20 && *p != '\n' && *p != '\t')
                ug_buf_printf(b, "?"); /* not allowed in XML 1.0 */
            else
                ug_buf_put(b, (const char *)p, 1);
        }
    }
}

void ug_junit(ug_buf *b, const ug_results *res)
{
    ug_buf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ulpgate\" "
                     "tests=\"%zu\" failures=\"%d\" skipped=\"%d\">\n",
                  res->count, res->failed + res->xpassed, res->skipped);
    for (size_t i = 0; i < res->count;) {
        size_t j = i;
        int fails = 0, skips = 0;
        for (; j < res->count && strcmp(res->rows[j].case_name, res->rows[i].case_name) == 0; j++) {
            fails += res->rows[j].status == UG_ST_FAIL || res->rows[j].status == UG_ST_XPASS;
            skips += res->rows[j].status == UG_ST_SKIP;
        }
        ug_buf_printf(b, "  <testsuite name=\"");
        ug_xml_text(b, res->rows[i].case_name);
        ug_buf_printf(b, "\" tests=\"%zu\" failures=\"%d\" skipped=\"%d\">\n", j - i, fails, skips);
        for (size_t r = i; r < j; r++) {
            const ug_row *row = &res->rows[r];
            ug_buf_printf(b, "    <testcase classname=\"");
            ug_xml_text(b, row->case_name);
            ug_buf_printf(b, "\" name=\"");
            ug_xml_text(b, row->point);
            ug_buf_printf(b, "\"");
            if (row->status == UG_ST_FAIL || row->status == UG_ST_XPASS) {
                ug_buf_printf(b, ">\n      <failure message=\"%s\">",
                              row->status == UG_ST_XPASS ? "passed unexpectedly" : "failed");
                ug_xml_text(b, row->note[0] ? row->note : row->id);
                ug_buf_printf(b, "</failure>\n    </testcase>\n");
            } else if (row->status == UG_ST_SKIP) {
                ug_buf_printf(b, ">\n      <skipped message=\"");
                ug_xml_text(b, row->note);
                ug_buf_printf(b, "\"/>\n    </testcase>\n");
            } else {
                ug_buf_printf(b, "/>\n");
            }
        }
        ug_buf_printf(b, "  </testsuite>\n");
        i = j;
    }
    ug_buf_printf(b, "</testsuites>\n");
}
