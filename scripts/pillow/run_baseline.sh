#!/usr/bin/env bash
# The Pillow resize baseline, run with a python3 that has Pillow (see python.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
exec "$root/scripts/pillow/python.sh" "$root/scripts/pillow/resize_baseline.py" "$@"
