#!/usr/bin/env bash
# README command 1: install what is missing, build omplens, profile the
# bundled Jacobi example and write its report into omplens-demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
CLANG=${CLANG:-clang-19}
mkdir -p build/demo
"$CLANG" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O2 \
  -Wl,-rpath,/usr/lib/llvm-19/lib examples/jacobi.c -o build/demo/jacobi
build/bin/omplens run -o omplens-demo -- build/demo/jacobi
echo "demo: open omplens-demo/report.html in a browser (also report.md, findings.json, findings.sarif, timeline.json)" >&2
