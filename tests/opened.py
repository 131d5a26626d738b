#!/usr/bin/env python3
"""opened.py DIR LOG CMD... - run CMD and write to LOG the names of the files of DIR (not its
subdirectories) that CMD opened, one a line, sorted; exit with CMD's status.

Linux inotify (IN_OPEN on DIR), through ctypes: what a program reads is observed exactly, with
no timing and no memory figure (corpus_test.sh: an unselected corpus file is never opened).
Exit 77 when inotify cannot be used here (the caller skips)."""
import ctypes
import os
import struct
import subprocess
import sys

IN_OPEN = 0x20
IN_NONBLOCK = 0o4000

if len(sys.argv) < 4:
    sys.exit("usage: opened.py DIR LOG CMD...")
directory, log, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(IN_NONBLOCK)
    if fd < 0 or libc.inotify_add_watch(fd, directory.encode(), IN_OPEN) < 0:
        raise OSError(ctypes.get_errno(), "inotify")
except (OSError, AttributeError) as e:
    print("opened.py: inotify unavailable: %s" % e, file=sys.stderr)
    sys.exit(77)

rc = subprocess.call(cmd)
names = set()
while True:
    try:
        buf = os.read(fd, 1 << 16)
    except BlockingIOError:
        break
    i = 0
    while i + 16 <= len(buf):
        _wd, mask, _cookie, length = struct.unpack_from("iIII", buf, i)
        name = buf[i + 16:i + 16 + length].rstrip(b"\0").decode(errors="replace")
        if mask & IN_OPEN and name:
            names.add(name)
        i += 16 + length
os.close(fd)
with open(log, "w") as f:
    f.writelines(n + "\n" for n in sorted(names))
sys.exit(rc)
