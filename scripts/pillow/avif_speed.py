"""AVIF encoder speed against file size and PSNR at equal quality (scripts/avif-speed runs it).

Each photo is first made the size a server encodes (fit into 512x512, PNG, by trove itself). Then, for each
speed, `trove convert --format avif --quality Q --speed S --repeat N` encodes it N times in one process (the
time per encode includes the PNG's decode, the same at every speed), and the file is decoded by Pillow and
compared with the PNG it was made from. Rounds go through the speeds in turn, alternating their order;
the table shows medians over rounds, then each speed's time, total bytes and mean PSNR against the baseline
speed's (6, Pillow's default).

usage: avif_speed.py TROVE WORK QUALITY REPEAT ROUNDS SPEEDS PHOTO...
"""

import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

from PIL import Image, ImageChops, ImageStat


def run(*arguments: str) -> str:
    return subprocess.run(arguments, check=True, capture_output=True, text=True).stdout


def psnr(a: Image.Image, b: Image.Image) -> float:
    """PSNR over the RGB channels (8 bits)."""
    stat = ImageStat.Stat(ImageChops.difference(a.convert("RGB"), b.convert("RGB")))
    mse = statistics.fmean(rms * rms for rms in stat.rms)
    return 99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)


def main() -> None:
    trove, work = sys.argv[1], Path(sys.argv[2])
    quality, repeat, rounds = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    speeds = [int(s) for s in sys.argv[6].split()]
    photos = [Path(p) for p in sys.argv[7:]]
    baseline = 6 if 6 in speeds else speeds[0]

    inputs = []
    for photo in photos:
        fitted = work / f"{photo.stem}-512.png"
        run(trove, "convert", str(photo), str(fitted), "--transform", "resize:w=512,h=512,mode=fit,filter=lanczos3")
        inputs.append(fitted)

    seconds = {(s, p): [] for s in speeds for p in inputs}
    size, quality_db = {}, {}
    for round_index in range(rounds):
        order = speeds if round_index % 2 == 0 else list(reversed(speeds))
        for speed in order:
            for fitted in inputs:
                out = work / f"{fitted.stem}-s{speed}.avif"
                report = json.loads(run(
                    trove, "convert", str(fitted), str(out), "--format", "avif", "--quality", quality,
                    "--speed", str(speed), "--repeat", str(repeat), "--json").strip().splitlines()[-1])
                seconds[(speed, fitted)].append(report["seconds"] / repeat)
                if round_index == 0:
                    size[(speed, fitted)] = out.stat().st_size
                    with Image.open(out) as encoded, Image.open(fitted) as given:
                        quality_db[(speed, fitted)] = psnr(encoded, given)

    def ms(speed: int) -> float:
        return sum(statistics.median(seconds[(speed, f)]) for f in inputs) * 1000 / len(inputs)

    def total(speed: int) -> int:
        return sum(size[(speed, f)] for f in inputs)

    def mean_db(speed: int) -> float:
        return statistics.fmean(quality_db[(speed, f)] for f in inputs)

    print(f"AVIF at quality {quality}, {len(inputs)} photos fitted into 512x512, {repeat} encodes a round, "
          f"median of {rounds} rounds; against speed {baseline}")
    print("| speed | ms per encode | time vs {0} | bytes (all photos) | size vs {0} | mean PSNR dB | vs {0} |"
          .format(baseline))
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for speed in speeds:
        print(f"| {speed} | {ms(speed):.1f} | {ms(speed) / ms(baseline):.2f}x | {total(speed)} | "
              f"{total(speed) / total(baseline):.3f}x | {mean_db(speed):.2f} | "
              f"{mean_db(speed) - mean_db(baseline):+.2f} |")


if __name__ == "__main__":
    main()
