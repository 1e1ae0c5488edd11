#!/bin/sh
# Builds the omplens example programs.
#
#   examples/build.sh OUTDIR [NAME...]
#
# Compiles every examples/*.c (or only the named examples, e.g. `jacobi
# jacobi_fixed`) into OUTDIR/<name>. Environment:
#   CLANG     compiler (default clang-19)
#   OMPFLAGS  OpenMP offload flags
#             (default -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)
#   OPT       debug/optimisation flags (default -g -O0; keep -g: omplens maps
#             directives to source lines through the debug info)
# Run a result with LD_LIBRARY_PATH=/usr/lib/llvm-19/lib (libomp/libomptarget).
set -eu

CLANG=${CLANG:-clang-19}
OMPFLAGS=${OMPFLAGS:--fopenmp -fopenmp-targets=x86_64-pc-linux-gnu}
OPT=${OPT:--g -O0}

if [ $# -lt 1 ] || [ -z "$1" ]; then
  echo "usage: $0 OUTDIR [NAME...]" >&2
  exit 2
fi
if ! command -v "$CLANG" >/dev/null 2>&1; then
  echo "$0: error: compiler '$CLANG' not found (install clang-19 and libomp-19-dev, or set CLANG)" >&2
  exit 1
fi

srcdir=$(cd "$(dirname "$0")" && pwd)
outdir=$1
shift
mkdir -p "$outdir"

if [ $# -eq 0 ]; then
  for src in "$srcdir"/*.c; do
    set -- "$@" "$(basename "$src" .c)"
  done
fi

for name in "$@"; do
  name=${name%.c}
  if [ ! -f "$srcdir/$name.c" ]; then
    echo "$0: error: no example $srcdir/$name.c" >&2
    exit 1
  fi
  # shellcheck disable=SC2086 # flag lists are meant to be split
  "$CLANG" $OMPFLAGS $OPT -Wall -o "$outdir/$name" "$srcdir/$name.c" || {
    echo "$0: error: failed to build $name" >&2
    exit 1
  }
done
