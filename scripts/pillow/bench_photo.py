"""The benchmarks' 2K photo: a fixture photo scaled to 2048x1365 with a little gaussian grain (so it
compresses like a camera's), written by Pillow as OUT_DIR/source.EXT for each format asked (JPEG q90,
PNG, WebP q90, AVIF q80). scripts/format-bench and scripts/serve-cpu-ab --source both use it, so the two
measure the same file.

    python bench_photo.py SOURCE OUT_DIR [--icc PROFILE] [--orientation N] [jpeg] [png] [webp] [avif]
    (all four when none is named)

With --icc, each file embeds that ICC profile, so its pixels are read as that profile's colours (a camera's
Adobe RGB or a phone's Display P3 photo) and a server converts them to sRGB. With --orientation N (2-8), the
pixels are stored turned and an EXIF orientation N says how to show them, as a phone held sideways writes
them: shown upright, the photo is the same.
"""

import random
import sys

from PIL import Image

SAVE_OPTIONS = {"jpeg": {"quality": 90}, "png": {}, "webp": {"quality": 90}, "avif": {"quality": 80}}

source, out = sys.argv[1], sys.argv[2]
formats = sys.argv[3:]
icc = None
orientation = 1
while formats[:1] in (["--icc"], ["--orientation"]):
    if len(formats) < 2:
        sys.exit(f"bench_photo.py: {formats[0]} needs a value")
    if formats[0] == "--icc":
        with open(formats[1], "rb") as profile:
            icc = profile.read()
    else:
        orientation = int(formats[1])
        if orientation not in range(1, 9):
            sys.exit("bench_photo.py: --orientation is 1 to 8 (EXIF's values)")
    formats = formats[2:]
formats = formats or list(SAVE_OPTIONS)
unknown = [name for name in formats if name not in SAVE_OPTIONS]
if unknown:
    sys.exit(f"bench_photo.py: unknown format {', '.join(unknown)} (jpeg, png, webp, avif)")
photo = Image.open(source).convert("RGB").resize((2048, 1365), Image.LANCZOS)
random.seed(7)
grain = Image.effect_noise((2048, 1365), 10).convert("RGB")
photo = Image.blend(photo, grain, 0.06)
# How the upright photo is stored so that EXIF orientation N shows it upright: the inverse of what showing does.
STORED = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_90, 7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}
extra = {"icc_profile": icc} if icc else {}
if orientation != 1:
    photo = photo.transpose(STORED[orientation])
    exif = Image.Exif()
    exif[0x0112] = orientation
    extra["exif"] = exif.tobytes()
for name in formats:
    options = dict(SAVE_OPTIONS[name], **extra)
    photo.save(f"{out}/source.{name}", **options)
