#!/usr/bin/env python3
"""Checks `trove sim` against libCacheSim on the same traces.

Writes three traces (one key a line) into a temporary directory: Zipf with alpha 0.8, Zipf with
alpha 1.0, and Zipf 1.0 with a one-off scan of never-seen keys through its middle. Replays each
through every policy at 1% and 10% of the trace's distinct keys, with libCacheSim (TraceReader,
PLAIN_TXT_TRACE) and with `trove sim --json`, prints a table of the miss ratios and their
differences, and exits 1 when a difference is over its tolerance:
0.005 for lru and fifo, 0.02 for lfu, sieve and s3fifo; wtinylfu must be no worse than s3fifo.

    python3 -m venv /tmp/cachesim && /tmp/cachesim/bin/pip install libcachesim numpy
    swift build -c release --static-swift-stdlib --product trove
    /tmp/cachesim/bin/python scripts/cachesim/compare.py --trove .build/release/trove
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import libcachesim as lcs

TOLERANCE = {"lru": 0.005, "fifo": 0.005, "lfu": 0.02, "sieve": 0.02, "s3fifo": 0.02}
REFERENCE = {"lru": lcs.LRU, "fifo": lcs.FIFO, "lfu": lcs.LFU, "sieve": lcs.Sieve,
             "s3fifo": lcs.S3FIFO, "wtinylfu": lcs.WTinyLFU}


def zipf_requests(rng, keys, alpha, count):
    """`count` requests over `keys` keys whose popularity falls as 1/rank^alpha; ranks shuffled
    so a key's number says nothing about its popularity."""
    weights = 1.0 / np.power(np.arange(1, keys + 1, dtype=np.float64), alpha)
    ranks = rng.choice(keys, size=count, p=weights / weights.sum())
    names = rng.permutation(keys) + 1
    return names[ranks]


def write_trace(path, requests):
    with open(path, "w") as out:
        out.write("\n".join(map(str, requests.tolist())))
        out.write("\n")


def make_traces(directory, keys, count, seed):
    rng = np.random.default_rng(seed)
    traces = {}
    for alpha in (0.8, 1.0):
        name = f"zipf-{alpha}"
        path = os.path.join(directory, name + ".txt")
        write_trace(path, zipf_requests(rng, keys, alpha, count))
        traces[name] = path
    base = zipf_requests(rng, keys, 1.0, count)
    scan = np.arange(keys + 1, keys + 1 + 2 * keys)  # each scanned key once, never seen before
    half = count // 2
    path = os.path.join(directory, "zipf-1.0-scan.txt")
    write_trace(path, np.concatenate([base[:half], scan, base[half:]]))
    traces["zipf-1.0-scan"] = path
    return traces


def distinct_keys(path):
    with open(path) as trace:
        return len({line for line in trace if line.strip()})


def reference_miss_ratio(policy, path, capacity):
    reader = lcs.TraceReader(trace=path, trace_type=lcs.TraceType.PLAIN_TXT_TRACE,
                             reader_init_params=lcs.ReaderInitParam(ignore_obj_size=True))
    miss_ratio, _ = REFERENCE[policy](cache_size=capacity).process_trace(reader)
    return miss_ratio


def trove_miss_ratio(trove, policy, path, capacity):
    output = subprocess.run([trove, "sim", "--trace", path, "--policy", policy,
                             "--capacity", str(capacity), "--json"],
                            check=True, capture_output=True, text=True).stdout
    return json.loads(output)["missRatio"]


def default_trove():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for build in ("release", "debug"):
        candidate = os.path.join(root, ".build", build, "trove")
        if os.path.exists(candidate):
            return candidate
    return "trove"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trove", default=os.environ.get("TROVE_BIN") or default_trove(),
                        help="the trove executable (default: .build/release/trove, else .build/debug/trove)")
    parser.add_argument("--keys", type=int, default=20_000, help="key universe of the Zipf traces")
    parser.add_argument("--requests", type=int, default=400_000, help="requests per trace")
    parser.add_argument("--seed", type=int, default=2023)
    parser.add_argument("--keep", help="write the traces here instead of a temporary directory")
    args = parser.parse_args()

    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.keep or scratch
        os.makedirs(directory, exist_ok=True)
        traces = make_traces(directory, args.keys, args.requests, args.seed)
        print(f"{'trace':<15} {'size':>6} {'policy':<9} {'trove':>7} {'libCacheSim':>11} {'diff':>8} {'limit':>6}  result")
        for name, path in traces.items():
            distinct = distinct_keys(path)
            for share in (0.01, 0.10):
                capacity = max(1, round(distinct * share))
                ours = {}
                for policy in REFERENCE:
                    ours[policy] = trove_miss_ratio(args.trove, policy, path, capacity)
                    theirs = reference_miss_ratio(policy, path, capacity)
                    diff = ours[policy] - theirs
                    limit = TOLERANCE.get(policy)
                    if limit is None:
                        verdict = "reference only"
                        limit_text = "-"
                    else:
                        verdict = "ok" if abs(diff) <= limit else "OVER"
                        limit_text = f"{limit:.3f}"
                        if verdict != "ok":
                            failures.append(f"{name} {capacity} {policy}: {diff:+.4f}")
                    print(f"{name:<15} {capacity:>6} {policy:<9} {ours[policy]:>7.4f} {theirs:>11.4f} "
                          f"{diff:>+8.4f} {limit_text:>6}  {verdict}")
                better = ours["wtinylfu"] <= ours["s3fifo"]
                print(f"{name:<15} {capacity:>6} wtinylfu {ours['wtinylfu']:.4f} vs s3fifo {ours['s3fifo']:.4f}: "
                      f"{'no worse' if better else 'WORSE'}")
                if not better:
                    failures.append(f"{name} {capacity}: wtinylfu worse than s3fifo")
    if failures:
        print("failed: " + "; ".join(failures))
        return 1
    print("all within tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
