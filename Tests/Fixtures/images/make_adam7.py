#!/usr/bin/env python3
"""Writes adam7.png: jpeg/progressive.rgba (Pillow's decode of jpeg/progressive.jpg, 160x107) as an
Adam7-interlaced 8-bit RGB PNG, Paeth-filtered, zlib level 9, in 8 KiB IDAT chunks (as libpng splits
them). Standard library only: Pillow cannot write interlaced PNGs.

    python3 Tests/Fixtures/images/make_adam7.py
"""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
WIDTH, HEIGHT = 160, 107
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def main():
    with open(os.path.join(HERE, "..", "jpeg", "progressive.rgba"), "rb") as f:
        rgba = f.read()
    assert len(rgba) == WIDTH * HEIGHT * 4
    raw = bytearray()
    for xs, ys, dx, dy in ADAM7:
        rows = []
        for y in range(ys, HEIGHT, dy):
            row = bytearray()
            for x in range(xs, WIDTH, dx):
                i = (y * WIDTH + x) * 4
                row += rgba[i:i + 3]
            rows.append(row)
        previous = None
        for row in rows:
            if not row:
                continue
            filtered = bytearray([4])
            for i, value in enumerate(row):
                a = row[i - 3] if i >= 3 else 0
                b = previous[i] if previous else 0
                c = previous[i - 3] if previous and i >= 3 else 0
                filtered.append((value - paeth(a, b, c)) & 0xFF)
            raw += filtered
            previous = row
    stream = zlib.compress(bytes(raw), 9)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 1))
    for start in range(0, len(stream), 8192):
        png += chunk(b"IDAT", stream[start:start + 8192])
    png += chunk(b"IEND", b"")
    with open(os.path.join(HERE, "adam7.png"), "wb") as f:
        f.write(png)


if __name__ == "__main__":
    main()
