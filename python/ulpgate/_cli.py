"""`ulpgate` installed by pip: the package's own copy of the CLI (ulpgate/bin/ulpgate, built
from the same sources; its data beside it in ulpgate/share/ulpgate), run in this process's
place."""
import os
import sys


def path():
    """The packaged ulpgate executable."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "ulpgate")


def main():
    exe = path()
    if not os.access(exe, os.X_OK):
        sys.stderr.write("ulpgate: %s is missing: this package was not installed with its "
                         "CLI (pip install . from an ulpgate clone)\n" % exe)
        return 2
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
