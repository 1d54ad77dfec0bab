"""EXIF tags through Pillow, for Trove's metadata tests.

  exif_tags.py write PATH      saves a 64x48 JPEG whose EXIF has Copyright, Artist and Make
  exif_tags.py read PATH...    prints {"path": {"copyright", "artist", "make"} or null} as JSON

HEIC opens through pillow-heif, JPEG XL through pillow-jxl-plugin. Pillow reads EXIF ASCII as Latin-1;
Trove writes UTF-8 (as exiftool reads it), so text is read back as UTF-8 where it decodes.
"""
import json
import sys

import pillow_heif
import pillow_jxl  # noqa: F401  (registers the JPEG XL opener)
from PIL import Image

pillow_heif.register_heif_opener()
COPYRIGHT, ARTIST, MAKE = 0x8298, 0x013B, 0x010F



def utf8(value):
    if not isinstance(value, str):
        return value
    try:
        return value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return value


if sys.argv[1] == "write":
    image = Image.new("RGB", (64, 48), (180, 90, 40))
    exif = Image.Exif()
    exif[COPYRIGHT] = "(c) 2026 Ana Lima"
    exif[ARTIST] = "Ana Lima"
    exif[MAKE] = "Camera Maker"
    image.save(sys.argv[2], quality=90, exif=exif)
else:
    found = {}
    for path in sys.argv[2:]:
        with Image.open(path) as image:
            exif = image.getexif()
        tags = {name: utf8(exif.get(tag)) for name, tag in (("copyright", COPYRIGHT), ("artist", ARTIST), ("make", MAKE))}
        found[path] = tags if any(tags.values()) else None
    print(json.dumps(found))
