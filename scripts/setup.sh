#!/usr/bin/env bash
# Installs the system libraries Trove builds against, only when they are missing (we run as root on CI).
set -euo pipefail
missing=()
[ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
[ -f /usr/include/jpeglib.h ] || missing+=(libjpeg62-turbo-dev)
[ -f /usr/include/webp/demux.h ] || missing+=(libwebp-dev)
[ -f /usr/include/avif/avif.h ] || missing+=(libavif-dev)
[ -f /usr/include/jxl/decode.h ] || missing+=(libjxl-dev)
compgen -G '/usr/include/*/libheif/heif.h' >/dev/null || [ -f /usr/include/libheif/heif.h ] || missing+=(libheif-dev)
[ -f /usr/include/libdeflate.h ] || missing+=(libdeflate-dev)
[ -f /usr/include/lcms2.h ] || missing+=(liblcms2-dev)
# Colour tests: real RGB profiles (colord-data) and Ghostscript's CMYK press profile (libgs-common), which
# TroveColor also uses at run time for CMYK JPEGs without a profile.
[ -f /usr/share/color/icc/colord/ProPhotoRGB.icc ] || missing+=(colord-data)
[ -f /usr/share/color/icc/ghostscript/default_cmyk.icc ] || missing+=(libgs-common)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
# The metadata tests read Trove's output (and tag their sources) with exiftool, a reader independent of Trove.
command -v exiftool >/dev/null 2>&1 || missing+=(libimage-exiftool-perl)
# The Redis shared-tier tests start their own redis-server on loopback.
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
# The CLI's HTTP checks start their own nginx on loopback (Debian installs it in /usr/sbin).
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
# scripts/soak drives `trove serve` with wrk and a Lua URL list.
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
