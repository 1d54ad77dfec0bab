"""Makes colour test images that embed a gray ICC profile, for Trove's test that a profile of another colour
model is ignored, as browsers and libvips ignore it.

Usage: make_mismatched_profile_cases.py OUT_DIR GRAY_PROFILE.icc

The colourful test image of make_color_cases.py is saved as mismatched.png, .jpg, .webp and .avif, each
embedding the gray profile; each file's reference is Pillow's decode of it, untouched by the profile
(NAME.reference.png). Prints a JSON list of {"file", "reference"}.
"""
import json
import os
import sys

from PIL import Image

from make_color_cases import test_image


def main():
    out_dir, profile_path = sys.argv[1], sys.argv[2]
    icc = open(profile_path, "rb").read()
    image = test_image()
    cases = []
    for extension, options in (
        (".png", {}),
        (".jpg", {"quality": 95, "subsampling": 0}),
        (".webp", {"lossless": True}),
        (".avif", {"quality": 95, "subsampling": "4:4:4"}),
    ):
        path = os.path.join(out_dir, "mismatched" + extension)
        image.save(path, icc_profile=icc, **options)
        reopened = Image.open(path)
        assert reopened.info.get("icc_profile") == icc, f"Pillow did not embed the profile in {path}"
        reference = path + ".reference.png"
        reopened.convert("RGB").save(reference)
        cases.append({"file": path, "reference": reference})
    print(json.dumps(cases))


if __name__ == "__main__":
    main()
