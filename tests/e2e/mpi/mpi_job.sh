#!/usr/bin/env bash
# A real 4-rank Open MPI job under omplens, launched either way:
#   outer: omplens run -o OUT -- mpirun -np 4 PROGRAM
#   inner: mpirun -np 4 omplens run -o OUT -- PROGRAM
# Rank r offloads to device r % 4 and the last rank does twice the work.
# Checks: one run directory with one trace per rank, each named by rank;
# each rank's copies counted exactly, and equal to what LIBOMPTARGET_INFO=32
# printed for that rank; the merged view (findings on 4 of 4 ranks with
# per-rank counts, device per rank) and rank 3 named as the outlier; the
# job's stdout and exit status the same as without omplens.
# usage: mpi_job.sh OMPLENS JSON_GET CC SOURCE WORKDIR outer|inner
set -euo pipefail
omplens=$1 json_get=$2 cc=$3 src=$4 work=$5 form=$6
. "$(dirname "$0")/mpi_case.sh"
mpi_case "$cc" "$src" "$work"
mpi=(mpirun --oversubscribe --tag-output -np 4)

set +e
"${mpi[@]}" "$work/mpi_ranks" 4 >"$work/plain.out" 2>"$work/plain.err"
plain_rc=$?
if [ "$form" = outer ]; then
  LIBOMPTARGET_INFO=32 "$omplens" run -o "$work/out" -- "${mpi[@]}" "$work/mpi_ranks" 4 \
    >"$work/run.out" 2>"$work/run.err"
else
  LIBOMPTARGET_INFO=32 "${mpi[@]}" "$omplens" run -o "$work/out" -- "$work/mpi_ranks" 4 \
    >"$work/run.out" 2>"$work/run.err"
fi
run_rc=$?
set -e
expect "exit status with omplens" "$plain_rc" "$run_rc"
diff -u "$work/plain.out" "$work/run.out" || fail "the job's stdout changed under omplens"
grep -q "checksum" "$work/run.out" || fail "the job printed no checksum"

# One run directory, one trace per rank, named by rank; one report.
dirs=$(find "$work/out/traces" -mindepth 1 -maxdepth 1 -type d | wc -l)
expect "run directories" 1 "$dirs"
for r in 0 1 2 3; do
  n=$(find "$work/out/traces" -name "omplens-mpi_ranks-r$r-*.trace" | wc -l)
  expect "traces of rank $r" 1 "$n"
done
json=$work/out/findings.json
[ -f "$json" ] || fail "no findings.json in $work/out"
expect "processes in the report" 4 "$("$json_get" "$json" processes.#)"
expect "merged ranks" 4 "$("$json_get" "$json" ranks.ranks)"
expect "job size" 4 "$("$json_get" "$json" ranks.job_size)"

# Per rank: exact copies (a and b in, a out, per iteration), the same count
# LIBOMPTARGET_INFO=32 printed for that rank (--tag-output: "[job,rank]"),
# its device, and its spot in the merged view.
for i in 0 1 2 3; do
  r=$("$json_get" "$json" "ranks.processes.$i.rank")
  expect "merged view's rank order" "$i" "$r"
  p=$("$json_get" "$json" "ranks.processes.$i.process")
  expect "rank of process $p" "$r" "$("$json_get" "$json" "processes.$p.rank")"
  iterations=$(( r == 3 ? 8 : 4 ))
  got=$("$json_get" "$json" "processes.$p.totals.transfers")
  expect "copies recorded on rank $r" $(( 3 * iterations )) "$got"
  # The runtime writes its "omptarget device N info: " prefix and the
  # message apart, so Open MPI may tag each (and put another rank's text
  # between): the tag right before the message names its rank.
  info=$(grep -oE "\[[0-9]+,$r\]<stderr>:(omptarget device [0-9]+ info: )?Copying data from (host to device|device to host)" \
         "$work/run.err" | wc -l)
  expect "copies LIBOMPTARGET_INFO=32 printed on rank $r" "$got" "$info"
  expect "devices used by rank $r" "[$r]" "$("$json_get" "$json" "ranks.processes.$i.devices_used")"
  expect "transfer bytes of rank $r" $(( 3 * iterations * 262144 )) \
    "$("$json_get" "$json" "ranks.processes.$i.transfer_bytes")"
done

# Findings the ranks share are listed once, on 4 of 4 ranks.
found=0
for k in $(seq 0 $(( $("$json_get" "$json" ranks.findings.#) - 1 ))); do
  if [ "$("$json_get" "$json" "ranks.findings.$k.category")" = duplicate-transfer ]; then
    expect "ranks with the duplicate transfer" 4 "$("$json_get" "$json" "ranks.findings.$k.ranks")"
    expect "duplicate transfers per rank" "[3,3,3,7]" \
      "$("$json_get" "$json" "ranks.findings.$k.per_rank_count")"
    found=1
  fi
done
expect "a merged duplicate-transfer finding" 1 "$found"

# Rank 3 is named for its bytes and findings; no other rank is (times on a
# shared CPU vary too much to be checked).
outliers=$("$json_get" "$json" ranks.outliers.#)
named=""
for k in $(seq 0 $(( outliers - 1 ))); do
  m=$("$json_get" "$json" "ranks.outliers.$k.measure")
  [ "$m" = device_ns ] && continue
  named="$named $("$json_get" "$json" "ranks.outliers.$k.rank"):$m"
done
expect "outliers in bytes and findings" " 3:transfer_bytes 3:findings" "$named"
grep -q "rank 3 stands out: transfer bytes" "$work/run.err" || fail "the summary names no outlier"
grep -q "on 4 of 4 ranks" "$work/run.err" || fail "the summary shows no merged finding"
grep -q "MPI job: 4 ranks merged" "$work/out/report.md" || fail "report.md has no merged view"
grep -q 'id="ranks"' "$work/out/report.html" || fail "report.html has no merged view"
echo "ok ($form): 4 ranks, one report, rank 3 named, copies match LIBOMPTARGET_INFO=32"
