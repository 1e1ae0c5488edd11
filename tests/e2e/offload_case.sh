# Sourced by the end-to-end scripts that build one OpenMP source for host
# offload and check what omplens reports on it (window.sh, pause.sh,
# waits.sh, setup.sh), after their `set -uo pipefail`:
#   . "$(dirname "$0")/offload_case.sh"
#   offload_case NAME "$@"     # "$@": OMPLENS JSON_GET CC SOURCE WORKDIR
# sets omplens, json_get, cc, src and work from the arguments, empties WORKDIR
# and enters it, and builds SOURCE there into ./NAME (exit 1 when it does
# not build). fail() prints one FAIL line and sets failed=1.
fail() {
  echo "FAIL: $*"
  failed=1
}

offload_case() {
  local name=$1
  omplens=$2 json_get=$3 cc=$4 src=$5 work=$6
  failed=0
  rm -rf "$work" && mkdir -p "$work"
  cd "$work" || exit 1
  "$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g "$src" -o "$name" \
    -Wl,-rpath,/usr/lib/llvm-19/lib || exit 1
}
