#!/usr/bin/env python3
"""Writes each PNG's image data (its IDAT chunks joined: one zlib stream) to <name>.z in the current
directory and prints the stream's and the inflated sizes."""
import struct
import sys
import zlib


def image_data(path):
    data = open(path, "rb").read()
    offset, joined = 8, b""
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind = data[offset + 4:offset + 8]
        if kind == b"IDAT":
            joined += data[offset + 8:offset + 8 + length]
        offset += 12 + length
    return joined


for path in sys.argv[1:]:
    stream = image_data(path)
    name = path.rsplit("/", 1)[-1]
    open(name + ".z", "wb").write(stream)
    print(name, len(stream), len(zlib.decompress(stream)))
