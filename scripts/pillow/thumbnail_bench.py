"""Helpers for scripts/thumbnail-bench, run through scripts/pillow/python.sh.

    make-inputs DIR          write DIR/big.jpg (q90) and DIR/big.png: 6000x4000 photo-like images, and
                             DIR/big.heic: 4032x3024 (12 MP) of the same, q90 in 512 px grid tiles, and
                             DIR/big-tagged.jpg: big.png as JPEG q90 tagged with ProPhoto RGB (colord-data),
                             DIR/big-o6.jpg: big.png as JPEG q90 with EXIF orientation 6 (a phone held upright),
                             once
    thumbnail IN OUT         Pillow's thumbnail((320, 320), LANCZOS): the baseline, as one process
    psnr REF IN...           PSNR (dB, RGB) of each IN against REF
    reference IN OUT W H     Pillow's full-resolution LANCZOS resize (reducing_gap=None) to W x H
"""
import os
import sys

import pillow_heif
from PIL import Image

pillow_heif.register_heif_opener()

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTOS = os.path.join(HERE, "..", "..", "Tests", "Fixtures", "images")


def make_inputs(folder):
    import numpy as np

    os.makedirs(folder, exist_ok=True)
    jpeg, png = os.path.join(folder, "big.jpg"), os.path.join(folder, "big.png")
    if os.path.exists(jpeg) and os.path.exists(png):
        make_heic(folder, png)
        make_tagged(folder, png)
        make_turned(folder, png)
        return
    # A real photo enlarged to 24 MP, with fine detail added back: grain and a faint high-frequency pattern,
    # so neither codec sees a smooth, easily compressed upscale.
    base = Image.open(os.path.join(PHOTOS, "coffee.png")).convert("RGB").resize((6000, 4000), Image.Resampling.BICUBIC)
    pixels = np.asarray(base, dtype=np.float32)
    rng = np.random.default_rng(2026)
    pixels += rng.normal(0, 5, pixels.shape).astype(np.float32)
    y, x = np.mgrid[0:4000, 0:6000].astype(np.float32)
    pixels += (6 * np.sin(x * 0.9) * np.sin(y * 0.7))[..., None]
    image = Image.fromarray(np.clip(pixels + 0.5, 0, 255).astype(np.uint8), "RGB")
    image.save(jpeg, quality=90)
    image.save(png, compress_level=6)
    make_heic(folder, png)
    make_tagged(folder, png)
    make_turned(folder, png)


def make_tagged(folder, png):
    """The 24 MP photo as a JPEG tagged with a wide-gamut profile: the same pixels and settings as big.jpg, so
    the time over big.jpg's is what colour conversion costs."""
    tagged = os.path.join(folder, "big-tagged.jpg")
    if os.path.exists(tagged):
        return
    with open("/usr/share/color/icc/colord/ProPhotoRGB.icc", "rb") as profile:
        Image.open(png).convert("RGB").save(tagged, quality=90, icc_profile=profile.read())


def make_turned(folder, png):
    """The 24 MP photo as a JPEG whose EXIF says orientation 6: big.jpg's stored pixels and settings, displayed
    as a 4000x6000 portrait, so the time over big.jpg's is what turning it upright costs."""
    turned = os.path.join(folder, "big-o6.jpg")
    if os.path.exists(turned):
        return
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.open(png).convert("RGB").save(turned, quality=90, exif=exif.tobytes())


def make_heic(folder, png):
    """A phone-sized HEIC (4032x3024, as an iPhone's 12 MP photo) cut from the PNG input, in grid tiles."""
    heic = os.path.join(folder, "big.heic")
    if os.path.exists(heic):
        return
    pillow_heif.options.GRID_TILE_SIZE = 512
    Image.open(png).convert("RGB").crop((0, 0, 4032, 3024)).save(heic, quality=90)


def thumbnail(source, target):
    image = Image.open(source)
    image.thumbnail((320, 320), Image.Resampling.LANCZOS)
    image.save(target)


def reference(source, target, width, height):
    Image.open(source).convert("RGB").resize((width, height), Image.Resampling.LANCZOS,
                                             reducing_gap=None).save(target)


def psnr(reference_path, paths):
    import numpy as np

    ref = np.asarray(Image.open(reference_path).convert("RGB"), dtype=np.float64)
    for path in paths:
        image = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
        if image.shape != ref.shape:
            print(f"{os.path.basename(path)}: size {image.shape[1]}x{image.shape[0]}, "
                  f"reference {ref.shape[1]}x{ref.shape[0]}")
            continue
        mse = ((image - ref) ** 2).mean()
        value = float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)
        print(f"{os.path.basename(path)}: {value:.1f} dB")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "make-inputs":
        make_inputs(args[0])
    elif command == "thumbnail":
        thumbnail(args[0], args[1])
    elif command == "reference":
        reference(args[0], args[1], int(args[2]), int(args[3]))
    elif command == "psnr":
        psnr(args[0], args[1:])
    else:
        sys.exit(f"unknown command {command}")
