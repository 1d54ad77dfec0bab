"""Prints, as JSON, the ICC profile Pillow reads from each file named: {"path": "hex of the profile"}, or
null for a file without one. HEIC and JPEG XL open through pillow-heif and pillow-jxl-plugin."""
import json
import sys

import pillow_heif
import pillow_jxl  # noqa: F401 (registers JPEG XL)
from PIL import Image

pillow_heif.register_heif_opener()
found = {}
for path in sys.argv[1:]:
    with Image.open(path) as image:
        profile = image.info.get("icc_profile")
    found[path] = profile.hex() if profile else None
print(json.dumps(found))
