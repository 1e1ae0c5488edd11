#!/usr/bin/env bash
# README command 1: install what is missing, build omplens (not its tests),
# install it into ${PREFIX:-/usr/local} (bin/omplens, lib/ its collector,
# share/man/man1/omplens.1), profile the bundled Jacobi example with the
# installed omplens and write its report into omplens-demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
PREFIX=${PREFIX:-/usr/local}
scripts/install-deps.sh
BUILD_TESTS=OFF scripts/build.sh

SUDO=""
mkdir -p "$PREFIX" 2>/dev/null || true
if [ ! -w "$PREFIX" ]; then
  command -v sudo >/dev/null ||
    { echo "demo: cannot write $PREFIX: run as root, or set PREFIX (e.g. PREFIX=\$HOME/.local)" >&2; exit 1; }
  SUDO=sudo
fi
$SUDO cmake --install "$BUILD_DIR" --prefix "$PREFIX" >/dev/null
echo "demo: installed $PREFIX/bin/omplens (man omplens)" >&2
[ "$(command -v omplens)" = "$PREFIX/bin/omplens" ] ||
  echo "demo: add $PREFIX/bin to PATH to run omplens by name" >&2

CLANG=${CLANG:-clang-19}
mkdir -p "$BUILD_DIR/demo"
"$CLANG" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O2 \
  -Wl,-rpath,/usr/lib/llvm-19/lib examples/jacobi.c -o "$BUILD_DIR/demo/jacobi"
"$PREFIX/bin/omplens" run -o omplens-demo -- "$BUILD_DIR/demo/jacobi"
report=$(realpath omplens-demo/report.html)
echo "demo: the report is $report (also report.md, findings.json, findings.sarif, timeline.json)" >&2
echo "demo: open it in a browser: xdg-open $report, or the URL file://$report" >&2
