"""Writes the Pillow (and scipy) reference images the TroveTransformers tests compare against.

Run once from the repository root with Pillow, numpy and scipy installed:
    python3 Tests/Fixtures/pillow/make_references.py
Every output is a PNG in this folder; README.md lists what each one is.
"""
import os

import numpy as np
from PIL import Image, ImageOps
from scipy.ndimage import gaussian_filter

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGES = os.path.join(HERE, "..", "images")
FILTERS = {
    "nearest": Image.Resampling.NEAREST,
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "lanczos3": Image.Resampling.LANCZOS,
}


def load(name):
    return Image.open(os.path.join(IMAGES, name))


def save(image, name):
    image.save(os.path.join(HERE, name), compress_level=9)


def main():
    chelsea = load("chelsea.png").convert("RGB")
    coffee = load("coffee.png").convert("RGB")
    camera = load("camera.png").convert("L")
    badge = load("badge.png").convert("RGBA")

    # Inputs derived from the photos: crops, and an RGBA photo whose alpha is another photo.
    chelsea_crop = chelsea.crop((150, 50, 246, 122))            # 96x72, for upscaling
    rgba_photo = coffee.crop((200, 80, 456, 336)).convert("RGBA")  # 256x256
    rgba_photo.putalpha(camera.crop((128, 100, 384, 356)))
    rgba_crop = rgba_photo.crop((96, 96, 160, 160))               # 64x64, for upscaling
    transpose_input = rgba_photo.crop((20, 30, 110, 90))          # 90x60 RGBA, not square
    blur_input = chelsea.crop((160, 40, 288, 168))                # 128x128 RGB
    for image, name in [(chelsea_crop, "in-chelsea-crop.png"), (rgba_photo, "in-rgba-photo.png"),
                        (rgba_crop, "in-rgba-crop.png"), (transpose_input, "in-transpose.png"),
                        (blur_input, "in-blur.png")]:
        save(image, name)

    # Resampling. RGB directly; RGBA premultiplied ('RGBa'), as Pillow does not premultiply plain RGBA.
    rgb_cases = [(chelsea, "chelsea", (150, 100)), (coffee, "coffee", (173, 115)),
                 (chelsea_crop, "chelsea-crop", (211, 158))]
    rgba_cases = [(rgba_photo, "rgba-photo", (101, 83)), (rgba_crop, "rgba-crop", (150, 170))]
    for trove_name, pillow_filter in FILTERS.items():
        for image, stem, size in rgb_cases:
            out = image.resize(size, pillow_filter, reducing_gap=None)
            save(out, f"resize-{stem}-{trove_name}-{size[0]}x{size[1]}.png")
        for image, stem, size in rgba_cases:
            out = image.convert("RGBa").resize(size, pillow_filter, reducing_gap=None).convert("RGBA")
            save(out, f"resize-{stem}-{trove_name}-{size[0]}x{size[1]}.png")

    # Fill: ImageOps.fit resamples the fractional centred box with the target's aspect ratio
    # (Image.resize(size, F, box=...)), bicubic being its default filter.
    for image, stem, size in [(chelsea, "chelsea", (64, 64)), (coffee, "coffee", (97, 41)),
                              (chelsea, "chelsea", (37, 90))]:
        out = ImageOps.fit(image, size, Image.Resampling.BICUBIC)
        save(out, f"fit-{stem}-bicubic-{size[0]}x{size[1]}.png")

    # Rotations (clockwise, so Pillow's counter-clockwise ROTATE_270 is Trove's 90) and flips.
    save(transpose_input.transpose(Image.Transpose.ROTATE_270), "rotate-90.png")
    save(transpose_input.transpose(Image.Transpose.ROTATE_180), "rotate-180.png")
    save(transpose_input.transpose(Image.Transpose.ROTATE_90), "rotate-270.png")
    save(transpose_input.transpose(Image.Transpose.FLIP_LEFT_RIGHT), "flip-h.png")
    save(transpose_input.transpose(Image.Transpose.FLIP_TOP_BOTTOM), "flip-v.png")

    # EXIF orientation 1...8 applied by Pillow's own ImageOps.exif_transpose.
    for orientation in range(1, 9):
        tagged = transpose_input.copy()
        tagged.getexif()[0x0112] = orientation
        save(ImageOps.exif_transpose(tagged), f"orient-{orientation}.png")

    # Grayscale: Pillow's L (ITU-R 601 luma); LA keeps alpha.
    save(chelsea.convert("L"), "grayscale-chelsea-L.png")
    save(badge.convert("LA"), "grayscale-badge-LA.png")

    # Blur: a true gaussian (Pillow's GaussianBlur approximates one with box blurs), per channel,
    # edges extended with the edge pixel (mode='nearest'), kernel truncated at scipy's default 4 sigma.
    pixels = np.asarray(blur_input, dtype=np.float64)
    for sigma in (0.8, 2.0, 5.0):
        blurred = gaussian_filter(pixels, sigma=(sigma, sigma, 0), mode="nearest")
        out = Image.fromarray(np.clip(np.rint(blurred), 0, 255).astype(np.uint8), "RGB")
        save(out, f"blur-sigma{sigma:g}.png")


if __name__ == "__main__":
    main()
