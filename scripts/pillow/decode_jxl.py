"""Decodes JPEG XL files with libjxl through pillow-jxl-plugin, for TroveJXLTests.

Usage: scripts/pillow/python.sh scripts/pillow/decode_jxl.py IN.jxl OUT.rgba [IN.jxl OUT.rgba ...]

Writes each file's decode (of an animation, the last frame: the plugin keeps no other) as straight-alpha RGBA8 rows,
top to bottom, to OUT.rgba, and prints one JSON list with each file's format, width and height as Pillow
reports them, or the error that stopped it.
"""

import json
import sys

import pillow_jxl  # noqa: F401 (registers JPEG XL with Pillow)
from PIL import Image


def decode(path, output):
    try:
        with Image.open(path) as im:
            im.load()
            with open(output, "wb") as f:
                f.write(im.convert("RGBA").tobytes())
            return {"opened": True, "format": im.format, "width": im.width, "height": im.height}
    except Exception as error:  # the test reports whatever stopped Pillow
        return {"opened": False, "error": "%s: %s" % (type(error).__name__, error)}


def main():
    arguments = sys.argv[1:]
    pairs = zip(arguments[0::2], arguments[1::2])
    print(json.dumps([decode(path, output) for path, output in pairs]))


if __name__ == "__main__":
    main()
