#!/usr/bin/env bash
# Runs python3 with Pillow (WebP and AVIF included): the system one if it has them, otherwise a venv in
# .build-venv/ (git-ignored) that pip fills on first use. Tests that check Trove's output opens in Pillow,
# the fixture scripts and the benchmark baselines all go through here.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
check='from PIL import features; import sys; sys.exit(0 if features.check("webp") and features.check("avif") else 1)'
# JPEG XL comes from pillow-jxl-plugin (libjxl through Rust bindings); importing it registers the format.
check="import pillow_jxl; $check"
# pillow-heif (on its own libheif wheel) too: it writes the HEIC fixtures and decodes their references.
check="import pillow_heif; $check"
if python3 -c "$check" 2>/dev/null; then
    exec python3 "$@"
fi
venv="$root/.build-venv"
if ! "$venv/bin/python" -c "$check" 2>/dev/null; then
    echo "Installing Pillow into $venv ..." >&2
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet "pillow>=12" \
        "pillow-jxl-plugin>=1.3" "pillow-heif>=1" >&2
fi
exec "$venv/bin/python" "$@"
