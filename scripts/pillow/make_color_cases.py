"""Makes ICC-tagged test images and Pillow + ImageCms's sRGB conversion of each, for Trove's colour tests.

Usage: make_color_cases.py OUT_DIR NAME=PROFILE.icc [NAME=PROFILE.icc ...] [--cmyk CMYK_PROFILE.icc]

For every RGB profile, a colourful 192x128 test image's pixel values are tagged with the profile (the values
are read as that space's colours) and saved as NAME.png, NAME.jpg, NAME.webp, NAME.avif and NAME.heic (through
pillow-heif), each embedding the profile. For each file, Pillow opens it and converts it to sRGB with ImageCms (perceptual intent, its
default): NAME.FORMAT.reference.png. With --cmyk, the image is converted to CMYK through that profile and saved
as cmyk.jpg embedding it (Pillow splits a large profile over several APP2 markers), with its reference too.
Prints a JSON list of {"file", "reference"}.
"""
import io
import json
import math
import os
import sys

import pillow_heif
from PIL import Image, ImageCms

pillow_heif.register_heif_opener()


def test_image(width=192, height=128):
    """Smooth, saturated colours over the whole gamut, with some texture, like a colourful photo."""
    image = Image.new("RGB", (width, height))
    pixels = image.load()
    for y in range(height):
        for x in range(width):
            hue = x / width * 6.0
            sector = int(hue) % 6
            f = hue - int(hue)
            value = 0.35 + 0.65 * (1 - y / height)
            saturation = 0.25 + 0.75 * (0.5 + 0.5 * math.sin(y / 9.0))
            p, q, t = value * (1 - saturation), value * (1 - saturation * f), value * (1 - saturation * (1 - f))
            r, g, b = [(value, t, p), (q, value, p), (p, value, t), (p, q, value), (t, p, value), (value, p, q)][sector]
            pixels[x, y] = tuple(int(round(255 * c)) for c in (r, g, b))
    return image


def save(image, path, icc):
    extension = os.path.splitext(path)[1]
    if extension == ".png":
        image.save(path, icc_profile=icc)
    elif extension == ".jpg":
        image.save(path, quality=95, subsampling=0, icc_profile=icc)
    elif extension == ".webp":
        image.save(path, lossless=True, icc_profile=icc)
    elif extension == ".avif":
        image.save(path, quality=95, subsampling="4:4:4", icc_profile=icc)
    elif extension == ".heic":
        image.save(path, quality=95, chroma=444, icc_profile=icc)


def reference(path, out):
    """Pillow's decode of `path` converted to sRGB through its embedded profile."""
    opened = Image.open(path)
    opened.load()
    icc = opened.info.get("icc_profile")
    source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
    srgb = ImageCms.createProfile("sRGB")
    converted = ImageCms.profileToProfile(opened, source, srgb, outputMode="RGB")
    converted.save(out)


def main():
    out_dir = sys.argv[1]
    cases = []
    arguments = sys.argv[2:]
    cmyk_profile = None
    if "--cmyk" in arguments:
        index = arguments.index("--cmyk")
        cmyk_profile = arguments[index + 1]
        del arguments[index:index + 2]
    image = test_image()
    for argument in arguments:
        name, profile_path = argument.split("=", 1)
        icc = open(profile_path, "rb").read()
        for extension in (".png", ".jpg", ".webp", ".avif", ".heic"):
            path = os.path.join(out_dir, name + extension)
            save(image, path, icc)
            ref = path + ".reference.png"
            reference(path, ref)
            cases.append({"file": path, "reference": ref})
    if cmyk_profile:
        icc = open(cmyk_profile, "rb").read()
        cmyk = ImageCms.profileToProfile(
            image, ImageCms.createProfile("sRGB"), ImageCms.ImageCmsProfile(io.BytesIO(icc)), outputMode="CMYK")
        path = os.path.join(out_dir, "cmyk.jpg")
        cmyk.save(path, quality=95, icc_profile=icc)
        ref = path + ".reference.png"
        reference(path, ref)
        cases.append({"file": path, "reference": ref})
    print(json.dumps(cases))


if __name__ == "__main__":
    main()
