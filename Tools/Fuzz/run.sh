#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer + AddressSanitizer, in release as the server runs (a trap once showed only
# there), and runs each for FUZZ_SECONDS (default 600), one after another. The decoder targets (PNG, GIF, ...) run a
# decoder alone; the request targets (RequestPNG, ...) run what a request does with the bytes (see
# RequestFuzzing); Pipeline runs `ImagePipeline.image(for:)` itself on every format (see FuzzPipeline), the planar
# JPEG route included. All are seeded with the format's test fixtures (every format's for Pipeline), the 16-bit and
# ICC-tagged seeds in Tests/Fixtures/fuzz-seeds (scripts/fixtures/make_fuzz_seeds.py), the orientation fixtures and
# every input that once crashed a target (Tests/Fixtures/fuzz-regressions). The corpus grows in .build/corpus/<target> and crashes
# land in .build/artifacts/ (both ignored by git); FUZZ_BUILD_DIR moves all of it.
# Usage: Tools/Fuzz/run.sh [PNG|GIF|JPEG|WebP|AVIF|JXL|HEIF|RequestPNG|RequestGIF|...|RequestHEIF|Pipeline ...]
set -euo pipefail
cd "$(dirname "$0")"
seconds="${FUZZ_SECONDS:-600}"
build="${FUZZ_BUILD_DIR:-.build}"
formats=(PNG GIF JPEG WebP AVIF JXL HEIF)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${formats[@]}" "${formats[@]/#/Request}" Pipeline)
fixtures=../../Tests/Fixtures

# Copies into $1 the files in $2... no larger than -max_len (64 KiB).
copy_seeds() {
  local into="$1"
  shift
  find "$@" -maxdepth 1 -type f -size -65537c -exec cp {} "$into"/ \; 2>/dev/null || true
}

# x265 leaks on every HEIC encode (see lsan.supp); every other leak still stops the run.
export LSAN_OPTIONS="suppressions=$PWD/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# A crash is reported by libFuzzer and AddressSanitizer; the Swift runtime's backtracer trips AddressSanitizer.
export SWIFT_BACKTRACE=enable=no

for target in "${targets[@]}"; do
  swift build -c release --scratch-path "$build" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld -Xcc -fsanitize=fuzzer-no-link,address --product "Fuzz$target"
  corpus="$build/corpus/$target"; seeds="$build/seeds/$target"
  mkdir -p "$corpus" "$seeds" "$build/artifacts"
  case "${target#Request}" in
    PNG) extensions=(png); copy_seeds "$seeds" "$fixtures"/pngsuite/*.png "$fixtures"/images/badge.png ;;
    GIF) extensions=(gif); copy_seeds "$seeds" "$fixtures"/gif/*.gif ;;
    JPEG) extensions=(jpg); copy_seeds "$seeds" "$fixtures"/jpeg/*.jpg ;;
    WebP) extensions=(webp); copy_seeds "$seeds" "$fixtures"/webp/*.webp ;;
    AVIF) extensions=(avif); copy_seeds "$seeds" "$fixtures"/avif/*.avif ;;
    JXL) extensions=(jxl); copy_seeds "$seeds" "$fixtures"/jxl/*.jxl ;;
    # Not large.heic (over -max_len); the others cover alpha, 10 bits, irot/imir, ICC, nclx, EXIF and a thumbnail.
    HEIF) extensions=(heic); copy_seeds "$seeds" "$fixtures"/heic/*.heic ;;
    # The planar fixtures are still YCbCr JPEGs at each chroma sampling: the inputs that take the planar route.
    Pipeline)
      extensions=(png gif jpg webp avif jxl heic)
      copy_seeds "$seeds" "$fixtures"/pngsuite/*.png "$fixtures"/images/badge.png "$fixtures"/gif/*.gif \
        "$fixtures"/jpeg/*.jpg "$fixtures"/planar/*.jpg "$fixtures"/webp/*.webp "$fixtures"/avif/*.avif \
        "$fixtures"/jxl/*.jxl "$fixtures"/heic/*.heic ;;
    *) echo "fuzz: no target $target" >&2; exit 2 ;;
  esac
  for extension in "${extensions[@]}"; do
    copy_seeds "$seeds" "$fixtures"/fuzz-seeds/*."$extension" "$fixtures"/orientation/*."$extension" \
      "$fixtures"/fuzz-regressions/*."$extension"
  done
  # The pipeline's tasks may drop their last hold on a response just after image(for:) returned, so a check after
  # each input can catch one half freed and call it a leak; for Pipeline, LeakSanitizer checks when the run exits.
  leaks=(); [ "$target" != Pipeline ] || leaks=(-detect_leaks=0)
  echo "fuzz: $target for ${seconds}s"
  "$build/release/Fuzz$target" "$corpus" "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix="$build/artifacts/$target-" -print_final_stats=1 ${leaks[@]+"${leaks[@]}"}
done
