#!/usr/bin/env bash
# `make lint`: the toolchain's `swift format lint` over every Swift source of ours with the committed
# .swift-format (zero findings allowed), then the doc-comment check (every public declaration in Modules/
# and Plugins/ has a doc comment), then the architecture doc's check (every file, type, function, path and
# link docs/ARCHITECTURE.md names exists; `make test` runs it too). `swift format -i -r <paths>` fixes most
# formatting findings.
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Modules Plugins Tests Tools/trove
       Tools/DiskCacheTorture Tools/Fuzz/Package.swift Tools/Fuzz/Fuzz* Tools/Fuzz/RequestFuzzing
       Tools/Benchmarks/Benchmarks Tools/Benchmarks/Package.swift)
findings=$(swift format lint --configuration .swift-format --recursive --parallel "${paths[@]}" 2>&1 || true)
if [ -n "$findings" ]; then
    echo "$findings"
    echo "lint: $(grep -c 'warning:\|error:' <<<"$findings") swift-format findings; run: swift format -i -r ${paths[*]}" >&2
    exit 1
fi
echo "lint: swift format found nothing"
scripts/check-doc-comments.sh --quiet
scripts/check-architecture-doc.py --self-test >/dev/null
scripts/check-architecture-doc.py
