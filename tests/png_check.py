#!/usr/bin/env python3
"""png_check.py SCREENSHOT.png - is a screenshot of index.html more than a blank page?

Decodes the PNG with the standard library alone (zlib; 8-bit greyscale, RGB or RGBA, not
interlaced: what Chromium writes), then prints one line of figures and exits 0 when
  - at least 2% of the pixels are not white (text, axes and plots were drawn), and
  - at least 4 of the plot colours (harness/report/svg.c's first eight styles) are present, each on at
    least 20 pixels (the plots' series were drawn, not only their frames);
else exits 1 saying which.  Exit 2 on a file that is not such a PNG.
"""
import struct
import sys
import zlib

# harness/report/svg.c, styles 0-7 (black is left out: text is black too)
PLOT_COLOURS = [(0x00, 0x72, 0xb2), (0xe6, 0x9f, 0x00), (0x00, 0x9e, 0x73), (0xcc, 0x79, 0xa7),
                (0xd5, 0x5e, 0x00), (0x56, 0xb4, 0xe9), (0x7f, 0x7f, 0x7f)]


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, head = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            head = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        pos += 12 + length
    width, height, depth, ctype, _, _, interlace = head
    channels = {0: 1, 2: 3, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace:
        raise ValueError('unsupported PNG (depth %d, colour type %d, interlace %d)' % (depth, ctype, interlace))
    raw = zlib.decompress(b''.join(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        cur = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(channels, stride):
                cur[i] = (cur[i] + cur[i - channels]) & 255
        elif f == 2:
            cur = bytearray((a + b) & 255 for a, b in zip(cur, prev))
        elif f == 3:
            for i in range(stride):
                left = cur[i - channels] if i >= channels else 0
                cur[i] = (cur[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                left = cur[i - channels] if i >= channels else 0
                upleft = prev[i - channels] if i >= channels else 0
                cur[i] = (cur[i] + paeth(left, prev[i], upleft)) & 255
        rows.append(cur)
        prev = cur
    return width, height, channels, rows


def main():
    try:
        width, height, channels, rows = decode(sys.argv[1])
    except (OSError, ValueError, zlib.error, TypeError, struct.error) as e:
        print('png_check: %s: %s' % (sys.argv[1], e))
        return 2
    inked, seen = 0, [0] * len(PLOT_COLOURS)
    for row in rows:
        for x in range(0, width * channels, channels):
            r, g, b = (row[x], row[x], row[x]) if channels == 1 else (row[x], row[x + 1], row[x + 2])
            if r < 245 or g < 245 or b < 245:
                inked += 1
                for k, (cr, cg, cb) in enumerate(PLOT_COLOURS):
                    if abs(r - cr) <= 12 and abs(g - cg) <= 12 and abs(b - cb) <= 12:
                        seen[k] += 1
    frac = inked / float(width * height)
    colours = sum(1 for s in seen if s >= 20)
    print('png_check: %dx%d pixels, %.1f%% not white, %d of %d plot colours present' %
          (width, height, 100 * frac, colours, len(PLOT_COLOURS)))
    if frac < 0.02:
        print('png_check: the page is blank')
        return 1
    if colours < 4:
        print('png_check: the plots were not drawn (too few of their colours)')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
