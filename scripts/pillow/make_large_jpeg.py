"""Writes a JPEG of at least 4 MP made from a photo: make_large_jpeg.py SOURCE OUT WIDTH HEIGHT baseline|progressive.

Tests that need a source of DecodeThreads' size make it with this instead of keeping one in the repository.
"""
import sys

from PIL import Image

source, out, width, height, kind = sys.argv[1:6]
image = Image.open(source).convert("RGB").resize((int(width), int(height)), Image.LANCZOS)
image.save(out, "JPEG", quality=85, subsampling="4:2:0", progressive=(kind == "progressive"))
