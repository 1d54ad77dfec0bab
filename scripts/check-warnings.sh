#!/usr/bin/env bash
# Fails when a build log shows a compiler warning in Trove's own sources (dependencies are not ours to fix).
set -euo pipefail
log="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
if grep -E "^${root}/(Modules|Plugins|Tools|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u | grep .; then
  echo "error: the build has warnings in Trove's sources (listed above); fix them" >&2
  exit 1
fi
