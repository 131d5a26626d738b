"""What the docs state that the tree can check (tests/docs_test.py's first points, no build
needed): the bound classes a page names are the public header's, the operation lists name the
shape table's operations, CONTRIBUTING's row fields are `struct ug_kernel`'s.

Each function returns TAP points (ok, name, directive, diagnostics), the failure naming the page.
"""
import os
import re

HEADER = 'include/ulpgate/ulpgate.h'
SHAPES = 'base/opshape.c'


def _read(src, f):
    with open(os.path.join(src, f), encoding='utf-8') as fh:
        return fh.read()


def _code(text):
    return re.sub(r'/\*.*?\*/|//[^\n]*', '', text, flags=re.S)


def bound_classes(src):
    """The members of the header's ug_bound_class enum (its comments are no declaration)."""
    m = re.search(r'typedef enum \{([^}]*)\} ug_bound_class;', _code(_read(src, HEADER)))
    return set(re.findall(r'\b(UG_BOUND_\w+)\s*(?:=[^,]*)?(?:,|$)', m.group(1))) if m else set()


def operations(src):
    """(id, name) of every row of the shape table, in the table's order."""
    return re.findall(r'\[(UG_OP_\w+)\]\s*=\s*\{\s*\1\s*,\s*"(\w+)"', _code(_read(src, SHAPES)))


def kernel_fields(src):
    """The fields of struct ug_kernel a table fills, in declaration order (up to .doc)."""
    m = re.search(r'struct ug_kernel \{(.*?)\n\};', _code(_read(src, HEADER)), re.S)
    fields = []
    for decl in (m.group(1) if m else '').split(';'):
        decl = re.sub(r'\[[^]]*\]', '', decl).strip()
        fn = re.search(r'\(\s*\*\s*(\w+)\s*\)', decl)  # a function pointer
        names = [fn.group(1)] if fn else [n.strip().split()[-1].lstrip('*')
                                          for n in decl.split(',') if n.strip()]
        fields += names
        if 'doc' in names:
            break
    return fields


def class_points(src, files):
    """Every UG_BOUND_ name a page holds is a member of the header's enum."""
    known, points = bound_classes(src), []
    for f in files:
        text = _read(src, f)
        bad = sorted({'%s:%d: %s' % (f, text.count('\n', 0, m.start()) + 1, m.group(0))
                      for m in re.finditer(r'\bUG_BOUND_[A-Z0-9_]*[A-Z0-9]\b', text)
                      if m.group(0) not in known})
        points.append((bool(known) and not bad,
                       '%s: the bound classes it names are %s\'s' % (f, HEADER),
                       '', bad or ([] if known else ['no ug_bound_class enum in ' + HEADER])))
    return points


def operation_points(src):
    """README's "What it grades" names every operation of the shape table and no other;
    CONTRIBUTING's `.op` field lists every operation's id."""
    ops = operations(src)
    points = []
    readme = _read(src, 'README.md')
    m = re.search(r'- \*\*Operations\*\*(.*?)\n- \*\*', readme, re.S)
    named = set(re.findall(r'`(\w+)`', m.group(1))) if m else set()
    names = {n for _, n in ops}
    diag = ['README.md: "What it grades" misses %s' % n for n in sorted(names - named)]
    diag += ['README.md: "What it grades" names %s, not in %s' % (n, SHAPES)
             for n in sorted(named - names)]
    points.append((bool(ops) and not diag,
                   'README.md: "What it grades" lists the %d operations of %s' % (len(ops), SHAPES),
                   '', diag))
    contrib = _read(src, 'CONTRIBUTING.md')
    m = re.search(r'`\.op` \((.*?)\), `\.backend`', contrib, re.S)
    ids = set(re.findall(r'`(UG_OP_\w+)`', m.group(1))) if m else set()
    diag = ['CONTRIBUTING.md: the `.op` field misses %s' % i for i, _ in ops if i not in ids]
    diag += ['CONTRIBUTING.md: the `.op` field names %s, not in %s' % (i, SHAPES)
             for i in sorted(ids - {i for i, _ in ops})]
    points.append((bool(ops) and not diag,
                   'CONTRIBUTING.md: the `.op` field lists the ids of %s' % SHAPES, '', diag))
    return points


def field_points(src):
    """CONTRIBUTING's "Row fields, in this order" paragraph names struct ug_kernel's fields up
    to .doc, in declaration order."""
    want = kernel_fields(src)
    contrib = _read(src, 'CONTRIBUTING.md')
    m = re.search(r'Row fields, in this order(.*?)\n\n', contrib, re.S)
    got = []
    for f in re.findall(r'`\.(\w+)`', m.group(1) if m else ''):
        if f not in got:
            got.append(f)
    diag = [] if got == want else ['CONTRIBUTING.md names: ' + ' '.join(got),
                                   HEADER + ' declares: ' + ' '.join(want)]
    return [(bool(want) and got == want,
             'CONTRIBUTING.md: the row fields are struct ug_kernel\'s, in its order', '', diag)]


def points(src, files):
    pts = class_points(src, files)
    if 'README.md' in files or 'CONTRIBUTING.md' in files:
        pts += operation_points(src) + field_points(src)
    return pts
