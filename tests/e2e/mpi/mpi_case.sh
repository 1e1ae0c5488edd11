# shellcheck shell=bash
# Sourced by the Open MPI end-to-end scripts (mpi_job.sh, distributed.sh)
# after their `set -euo pipefail` and their own arguments:
#   . "$(dirname "$0")/mpi_case.sh"
#   mpi_case "$cc" "$src" "$work"
# skips (exit 77) without mpirun and mpicc; empties WORKDIR and builds the
# MPI offload program SOURCE into WORKDIR/mpi_ranks; lets Open MPI run as
# root and put more ranks than cores; puts LLVM's libomp on the library
# path. fail() prints one FAIL line and exits 1; expect WHAT WANT GOT fails
# when GOT is not WANT.
fail() { echo "FAIL: $*"; exit 1; }
expect() { # expect WHAT WANT GOT
  [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

mpi_case() {
  local cc=$1 src=$2 work=$3
  if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
    echo "SKIP: Open MPI is not installed (Debian: apt-get install openmpi-bin libopenmpi-dev)"
    exit 77
  fi
  rm -rf "$work" && mkdir -p "$work"
  # shellcheck disable=SC2046 # the flags are separate words
  "$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O1 $(mpicc -showme:compile) "$src" \
    $(mpicc -showme:link) -o "$work/mpi_ranks"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # Open MPI's own switches
  export OMPI_MCA_rmaps_base_oversubscribe=1                       # more ranks than cores
  export LD_LIBRARY_PATH=${OMPLENS_LIBOMP_DIR:-/usr/lib/llvm-19/lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}
