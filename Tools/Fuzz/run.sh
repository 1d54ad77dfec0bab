#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer + AddressSanitizer and runs each for FUZZ_SECONDS (default 30),
# seeded from the test fixtures. The corpus grows in .build/corpus/<target> and crashes land in
# .build/artifacts/ (both ignored by git); FUZZ_BUILD_DIR moves all of it.
# Usage: Tools/Fuzz/run.sh [PNG|GIF|JPEG|WebP|AVIF|JXL|HEIF ...]
set -euo pipefail
cd "$(dirname "$0")"
seconds="${FUZZ_SECONDS:-30}"
build="${FUZZ_BUILD_DIR:-.build}"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(PNG GIF JPEG WebP AVIF JXL HEIF)
for target in "${targets[@]}"; do
  swift build -c release --scratch-path "$build" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld -Xcc -fsanitize=fuzzer-no-link,address --product "Fuzz$target"
  fixtures=../../Tests/Fixtures
  corpus="$build/corpus/$target"; seeds="$build/seeds/$target"
  mkdir -p "$corpus" "$seeds" "$build/artifacts"
  case "$target" in
    PNG) cp "$fixtures"/pngsuite/*.png "$fixtures"/images/badge.png "$seeds"/ ;;
    GIF) cp "$fixtures"/gif/*.gif "$seeds"/ ;;
    JPEG) cp "$fixtures"/jpeg/*.jpg "$seeds"/ ;;
    WebP) cp "$fixtures"/webp/*.webp "$seeds"/ ;;
    AVIF) cp "$fixtures"/avif/*.avif "$seeds"/ ;;
    JXL) cp "$fixtures"/jxl/*.jxl "$seeds"/ ;;
    # Not large.heic (over -max_len); the others cover alpha, 10 bits, irot/imir, ICC, nclx, EXIF and a thumbnail.
    HEIF) find "$fixtures"/heic -name '*.heic' -size -64k -exec cp {} "$seeds"/ \; ;;
  esac
  echo "fuzz: $target for ${seconds}s"
  "$build/release/Fuzz$target" "$corpus" "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix="$build/artifacts/$target-" -print_final_stats=1
done
