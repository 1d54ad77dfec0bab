#!/usr/bin/env bash
# Runs scripts/otlp_receiver.py, the OTLP/HTTP receiver the `trove serve --otel` tests export to, with the
# Python of .build-venv/ (git-ignored, shared with scripts/seaweedfs.sh), installing PyPI's
# opentelemetry-proto (the collector's own protobuf messages) there on first use. Arguments: PORT OUTPUT.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version=1.45.2
venv="$root/.build-venv"
if ! "$venv/bin/python" -c "import opentelemetry.proto, sys; from importlib.metadata import version; \
sys.exit(version('opentelemetry-proto') != '$version')" 2>/dev/null; then
    echo "Installing opentelemetry-proto $version into $venv ..." >&2
    [ -x "$venv/bin/pip" ] || python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet "opentelemetry-proto==$version" >&2
fi
exec "$venv/bin/python" "$root/scripts/otlp_receiver.py" "$@"
