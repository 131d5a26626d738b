"""tap.py - the TAP points of the Python test scripts (layers.py, contributing_lists.py): one
numbered point a check, its diagnostics (at most diag_max lines) under a failed one, the plan
and the exit status at the end."""
import sys


class Tap:
    def __init__(self, diag_max):
        self.n = 0
        self.fail = 0
        self.diag_max = diag_max

    def point(self, ok, name, diag=(), skip=None):
        """One point; a skip prints `ok N - name # SKIP why` and checks nothing."""
        self.n += 1
        print(("ok" if ok or skip else "not ok") + " %d - %s" % (self.n, name)
              + (" # SKIP " + skip if skip else ""))
        if not ok and not skip:
            self.fail = 1
            for d in list(diag)[:self.diag_max]:
                print("#   " + d)

    def end(self):
        print("1..%d" % self.n)
        sys.exit(self.fail)
