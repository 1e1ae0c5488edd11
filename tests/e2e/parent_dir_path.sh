#!/bin/sh
# A program compiled from a build directory beside its sources (`cd build
# && cc ../src/prog.c`, as UoB-HPC arch builds): DWARF names the file
# `build/../src/prog.c`. The report and the apply command name it
# `src/prog.c`, where the file system shows that is the same file.
# usage: parent_dir_path.sh OMPLENS CC LLVM_DIR SOURCE WORKDIR
set -eu
omplens=$1 cc=$2 llvm=$3 src=$4 work=$5
name=$(basename "$src" .c)
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
rm -rf "$work"
mkdir -p "$work/src" "$work/build"
cp "$src" "$work/src/$name.c"
(cd "$work/build" && "$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O0 \
  -Wl,-rpath,"$llvm/lib" "../src/$name.c" -o "$name") || fail "does not build"
"$omplens" run -q -o "$work/out" -- "$work/build/$name" >/dev/null || fail "omplens run failed"
real=$(cd "$work/src" && pwd -P)
grep -F "$real/$name.c:" "$work/out/summary.txt" >/dev/null ||
  fail "summary.txt does not name $real/$name.c"
! grep -F "/../" "$work/out/summary.txt" "$work/out/report.md" || fail "a path keeps /../"
echo "ok: $name named $real/$name.c"
