#!/usr/bin/env python3
"""The field table of docs/results-schema.md, from harness/results/row_fields.h (the row's schema,
declared once there).  The table lies between the BEGIN and END markers of the Markdown file; the
prose around it is hand-written.

usage: gen_schema_md.py [--check] ROW_FIELDS_H SCHEMA_MD

Without --check it rewrites the table in SCHEMA_MD (`ninja -C build docs-schema`); with --check it
exits 1 with a diff when the committed table differs (the `schema_docs` test).
"""
import difflib
import re
import sys

BEGIN = '<!-- BEGIN row fields: generated from harness/results/row_fields.h by scripts/gen_schema_md.py -->'
END = '<!-- END row fields -->'
WHEN = {'NEVER': 'never', 'ALL': 'every row', 'MEAS': 'measured rows', 'CHECK': 'check points',
        'GEMM': 'GEMM rows', 'NOGEMM': 'rows that are not GEMM', 'NONZERO': 'when not 0',
        'REP': 'when repeats ≠ 0'}
TYPE = {'STR': 'string', 'BOOL': 'boolean', 'INT': 'integer', 'COUNT': 'integer', 'DIM': 'integer', 'SEED': 'hex string',
        'NUM': 'number or "inf"/"-inf"/"nan"', 'STATUS': 'string', 'PASSED': 'boolean'}


def args_of(call):
    """Top-level comma-separated arguments of X(...), strings unescaped."""
    out, cur, i, depth = [], '', 0, 0
    while i < len(call):
        c = call[i]
        if c == '"':
            j = i + 1
            s = ''
            while call[j] != '"':
                if call[j] == '\\':
                    j += 1
                s += call[j]
                j += 1
            cur += '"' + s + '"'
            i = j + 1
            continue
        if c == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += c
        i += 1
    out.append(cur.strip())
    return out


# what a compact row (format 3, 4) leaves out, by the field's flags (row_fields.h)
COMPACT = {
    'UG_FF_DETAIL': '; compact: only in a failing row',
    'UG_FF_DFLT': '; compact: absent = the file\'s `defaults`',
    'UG_FF_RUN': '; compact format 3: absent = the row before\'s',
    'UG_FF_PREV': '; compact: absent = the row before\'s, same inputs',
    'UG_FF_DERIV': '; compact: absent = made from `time_ms` and the shape',
}


def table(header_path):
    rows = ['| key | type | unit | in results.json | in a baseline | meaning |',
            '|---|---|---|---|---|---|']
    n = 0
    for line in open(header_path, encoding='utf-8'):
        m = re.match(r'\s*X\((.*)\)\s*\\?\s*$', line)
        if not m:
            continue
        a = args_of(m.group(1))
        typ, key, unit, res, bl, flags, doc = a[0], a[3][1:-1], a[4][1:-1], a[5], a[6], a[7], a[8][1:-1]
        if 'UG_FF_EXTRA' in flags:
            key = 'extra.' + key
        cell = lambda s: s.replace('|', '\\|').replace('<', '&lt;').replace('>', '&gt;')
        when = WHEN.get(res, res) + ''.join(v for k, v in COMPACT.items() if k in flags)
        if key == 'id':  # format 4: made from case, kernel, dist and size (ug_row_make_id)
            when += '; formats 4, 5: absent = made from the row\'s fields'
        rows.append('| `%s` | %s | %s | %s | %s | %s |' % (key, TYPE.get(typ, typ), unit or '',
                    when, WHEN.get(bl, bl), cell(doc)))
        n += 1
    if n == 0:
        sys.exit('gen_schema_md: no X( lines in %s' % header_path)
    return '\n'.join(rows)


def main():
    args = sys.argv[1:]
    check = args[:1] == ['--check']
    args = args[1:] if check else args
    if len(args) != 2:
        sys.exit('usage: gen_schema_md.py [--check] ROW_FIELDS_H SCHEMA_MD')
    old = open(args[1], encoding='utf-8').read()
    if BEGIN not in old or END not in old:
        sys.exit('gen_schema_md: %s has no %s ... %s markers' % (args[1], BEGIN, END))
    head, rest = old.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    new = head + BEGIN + '\n' + table(args[0]) + '\n' + END + tail
    if not check:
        open(args[1], 'w', encoding='utf-8').write(new)
        return 0
    if new == old:
        print('ok 1 - %s documents every field of %s\n1..1' % (args[1], args[0]))
        return 0
    print('not ok 1 - %s is stale against %s: regenerate with `ninja -C build docs-schema`' % (args[1], args[0]))
    for l in list(difflib.unified_diff(old.split('\n'), new.split('\n'), 'committed', 'generated', lineterm=''))[:60]:
        print('# ' + l)
    print('1..1')
    return 1


if __name__ == '__main__':
    sys.exit(main())
