#!/bin/sh
# Install with apt-get everything needed to build the patched elfutils, and
# perfparser (Qt 5, CMake) and perf on it, and run every test (perf's
# probe test runs ping; the old-glibc one a Debian 11 chroot, made by
# debootstrap) and benchmark (bench/perf-report.sh, /usr/bin/time).
# Idempotent: when every package is present it only checks.
# Usage: scripts/install-deps.sh
set -eu

packages="autoconf automake autopoint bison flex gawk gettext m4 libtool
pkg-config make gcc g++ git bzip2 xz-utils zstd ca-certificates
zlib1g-dev libbz2-dev liblzma-dev libzstd-dev
binutils lld mold clang llvm linux-perf libc6-dbg valgrind
dpkg-dev abigail-tools gnuplot-nox python3 chromium python3-websocket
libiberty-dev
cmake qtbase5-dev
iputils-ping time debootstrap"

missing=
for p in $packages; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing="$missing $p"
done

if [ -z "$missing" ]; then
  echo "install-deps: all packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing:$missing" >&2
  echo "install-deps: run this script as root (it uses apt-get) or install them yourself" >&2
  exit 1
fi

echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
