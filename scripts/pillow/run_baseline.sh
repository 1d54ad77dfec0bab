#!/usr/bin/env bash
# Runs resize_baseline.py with a python3 that has Pillow: the system one if it can import PIL, otherwise
# a venv in .build-bench-venv/ (git-ignored) with Pillow installed by pip on first use.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python=python3
if ! python3 -c "import PIL" 2>/dev/null; then
    venv="$root/.build-bench-venv"
    if ! "$venv/bin/python" -c "import PIL" 2>/dev/null; then
        echo "Installing Pillow into $venv for the Pillow baseline..."
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet pillow
    fi
    python="$venv/bin/python"
fi
exec "$python" "$root/scripts/pillow/resize_baseline.py" "$@"
