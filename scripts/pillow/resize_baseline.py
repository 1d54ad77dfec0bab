"""Times Pillow doing what the Transformers benchmark suite times in Trove, for the comparison in docs/BENCHMARKS.md.

    python3 scripts/pillow/resize_baseline.py [--runs N]

1. Resize throughput per filter: one megapixel (coffee.png stretched to 1250x800 with LANCZOS) resized
   to half (625x400) with Image.resize(size, filter, reducing_gap=None). Megapixels per second counts
   source pixels, as the Trove benchmark does.
2. The pipeline: for chelsea.png, coffee.png and badge.png in turn, Image.open + resize to half with
   LANCZOS + save as PNG (compress_level=6) into memory. One run is all three files.
Medians over --runs runs (default 50) after one warm-up run.
"""
import argparse
import io
import os
import statistics
import time

import PIL
from PIL import Image

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
IMAGES = os.path.join(ROOT, "Tests", "Fixtures", "images")
FILTERS = [("nearest", Image.Resampling.NEAREST), ("bilinear", Image.Resampling.BILINEAR),
           ("bicubic", Image.Resampling.BICUBIC), ("lanczos3", Image.Resampling.LANCZOS)]
PIPELINE_FILES = ["chelsea.png", "coffee.png", "badge.png"]


def median_seconds(work, runs):
    work()  # warm-up: first-call costs (imports, allocations) are not what is measured
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def pipeline():
    for name in PIPELINE_FILES:
        with Image.open(os.path.join(IMAGES, name)) as image:
            half = image.resize((image.width // 2, image.height // 2), Image.Resampling.LANCZOS,
                                reducing_gap=None)
            half.save(io.BytesIO(), format="PNG", compress_level=6)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    runs = parser.parse_args().runs

    coffee = Image.open(os.path.join(IMAGES, "coffee.png")).convert("RGB")
    megapixel = coffee.resize((1250, 800), Image.Resampling.LANCZOS, reducing_gap=None)
    print(f"Pillow {PIL.__version__}, median of {runs} runs")
    for name, pillow_filter in FILTERS:
        seconds = median_seconds(lambda: megapixel.resize((625, 400), pillow_filter, reducing_gap=None), runs)
        print(f"resize {name:8} 1 MP to half: {seconds * 1000:8.3f} ms  {1 / seconds:8.1f} MP/s")
    seconds = median_seconds(pipeline, runs)
    print(f"decode + lanczos3 half + encode PNG level 6 ({', '.join(PIPELINE_FILES)}): {seconds * 1000:.3f} ms")


if __name__ == "__main__":
    main()
