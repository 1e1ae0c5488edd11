#!/usr/bin/env bash
# Ranks without an MPI: each launcher's variables, set by hand, make the
# collector record that rank (trace name and RANK item), and three
# `omplens run` of one "job" (PMIx namespace, Open MPI's variables), run
# one after another, share one run directory in which only the last writes
# the report, covering all three ranks. Malformed values are ignored. The
# traces record the job (PMIx namespace): a report over the ranks of two
# jobs merges the first job's alone, and says so in one warning line.
# usage: launcher_env.sh OMPLENS JSON_GET PROGRAM WORKDIR
set -euo pipefail
omplens=$1 json_get=$2 bin=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
expect() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; }
# The machine's own launcher variables must not leak into the cases.
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE PMIX_RANK PMIX_NAMESPACE \
      OMPI_MCA_ess_base_jobid OMPI_UNIVERSE_SIZE SLURM_PROCID SLURM_NTASKS SLURM_STEP_ID \
      SLURM_JOB_ID PMI_JOBID

# case NAME WANT_RANK WANT_SIZE VAR=VALUE...: the collector alone (run
# under `omplens run -- env ...`, so omplens itself is not a rank).
case_rank() {
  local name=$1 rank=$2 size=$3; shift 3
  "$omplens" run -q --outputs json -o "$work/$name" -- env "$@" "$bin" >/dev/null 2>&1 ||
    fail "$name: the run failed"
  local json=$work/$name/findings.json
  expect "$name: rank" "$rank" "$("$json_get" "$json" processes.0.rank)"
  expect "$name: job size" "$size" "$("$json_get" "$json" processes.0.job_size)"
  local trace
  trace=$(basename "$(find "$work/$name/traces" -name '*.trace')")
  if [ "$rank" = null ]; then
    case $trace in *-r[0-9]*-*) fail "$name: trace named by a rank: $trace" ;; esac
  else
    case $trace in *-r"$rank"-[0-9]*.trace) ;; *) fail "$name: trace not named by rank $rank: $trace" ;; esac
  fi
}
case_rank openmpi 3 4 OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4
case_rank hydra 1 2 PMI_RANK=1 PMI_SIZE=2
case_rank pmix 5 null PMIX_RANK=5
case_rank slurm 7 8 SLURM_PROCID=7 SLURM_NTASKS=8
case_rank openmpi_first 2 3 OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=3 PMI_RANK=9
case_rank malformed null null OMPI_COMM_WORLD_RANK=3x PMI_RANK=-1 SLURM_PROCID=
case_rank no_size_below_rank 4 null PMI_RANK=4 PMI_SIZE=2

# A job of three ranks, as `mpirun -np 3 omplens run` would start them.
for r in 0 2 1; do
  PMIX_NAMESPACE="job:7" OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=3 \
    "$omplens" run -o "$work/job" -- "$bin" >"$work/job-$r.out" 2>"$work/job-$r.err" ||
    fail "rank $r: omplens run failed: $(head -3 "$work/job-$r.err")"
  if [ "$r" != 1 ]; then
    [ ! -e "$work/job/findings.json" ] || fail "rank $r wrote the report before the job ended"
    [ ! -s "$work/job-$r.err" ] || fail "rank $r printed: $(head -3 "$work/job-$r.err")"
  fi
done
expect "the job's run directories" "job-job_7" "$(ls "$work/job/traces")"
expect "the job's traces" 3 "$(find "$work/job/traces" -name '*.trace' | wc -l)"
expect "ranks counted" 3 "$(wc -l <"$work/job/traces/job-job_7/.ranks-done")"
expect "ranks in the report" 3 "$("$json_get" "$work/job/findings.json" ranks.ranks)"
grep -q "MPI job, 3 ranks of 3 merged" "$work/job-1.err" || fail "the last rank printed no merged summary"
expect "the job recorded" job_7 "$("$json_get" "$work/job/findings.json" ranks.job)"

# Two ranks of another job beside them: not merged with the first job.
mkdir -p "$work/two-jobs"
cp "$work"/job/traces/job-job_7/*.trace "$work/two-jobs/"
for r in 0 1; do
  "$omplens" run -q --outputs json -o "$work/other-$r" -- \
    env PMIX_NAMESPACE=job:8 OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 "$bin" >/dev/null 2>&1 ||
    fail "rank $r of the other job: the run failed"
  cp "$work/other-$r"/traces/*/*.trace "$work/two-jobs/"
done
"$omplens" report -q --outputs json -o "$work/two-jobs-report" "$work/two-jobs" 2>"$work/two-jobs.err" ||
  fail "the report of two jobs failed: $(head -3 "$work/two-jobs.err")"
json=$work/two-jobs-report/findings.json
expect "processes of two jobs" 5 "$("$json_get" "$json" processes.#)"
job=$("$json_get" "$json" ranks.job)
case $job in
  job_7) expect "ranks merged of job_7" 3 "$("$json_get" "$json" ranks.ranks)" ;;
  job_8) expect "ranks merged of job_8" 2 "$("$json_get" "$json" ranks.ranks)" ;;
  *) fail "the merged view's job: $job" ;;
esac
grep -q "warning: the traces are of 2 MPI jobs; the merged view covers job $job only" \
  "$work/two-jobs.err" || fail "no warning of two jobs: $(cat "$work/two-jobs.err")"
echo "ok: every launcher's rank recorded; the last of 3 ranks wrote the one report; two jobs kept apart"
