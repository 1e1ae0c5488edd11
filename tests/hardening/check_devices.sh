#!/usr/bin/env bash
# Several devices: devices.c uses host-offload devices 0-3 with a known
# pattern per device. The events of each device, and the findings of each
# device, must be those of devices.expected (no source lines here: the
# e2e goldens check attribution).
# usage: check_devices.sh OMPLENS JSON_GET BINARY EXPECTED WORKDIR
set -euo pipefail
omplens=$1 json_get=$2 bin=$3 expected=$4 work=$5
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work"

status=0
"$omplens" run -q -o "$work/report" -- "$bin" >"$work/stdout" 2>"$work/stderr" || status=$?
expect_eq "exit status" 0 "$status"
trace=$(one_trace "$work/report/traces") || { fail "no single trace"; finish devices; }

# Expected: `event KIND DEVICE COUNT` and `finding CATEGORY DEVICE COUNT` lines.
awk '{ sub(/#.*/, "") } $1 == "event" || $1 == "finding" { print $1, $2, $3, $4 }' "$expected" \
  | LC_ALL=C sort >"$work/expected.txt"
{
  "$omplens" dump "$trace" | awk -F'\t' '!/^#/ { c[$3 " " $4]++ } END { for (k in c) print "event", k, c[k] }'
  # findings.json: instances per (category, device), summed over directives
  json=$work/report/findings.json
  for i in $(seq 0 $(($("$json_get" "$json" processes.0.findings.#) - 1))); do
    echo "$("$json_get" "$json" "processes.0.findings.$i.category")" \
         "$("$json_get" "$json" "processes.0.findings.$i.device")" \
         "$("$json_get" "$json" "processes.0.findings.$i.count")"
  done | awk '{ c[$1 " " $2] += $3 } END { for (k in c) print "finding", k, c[k] }'
} | LC_ALL=C sort >"$work/actual.txt"
if ! diff -u "$work/expected.txt" "$work/actual.txt" >"$work/diff.txt"; then
  fail "events or findings per device differ from $(basename "$expected") (- expected, + actual)"
  sed 's/^/  /' "$work/diff.txt"
fi
# The summary names the devices' types and the ones the run used.
header=$(head -1 "$work/report/summary.txt")
case $header in
  *", 4 devices (generic-64bit), 4 used: devices 0, 1, 2, 3") ;;
  *) fail "summary line: expected '..., 4 devices (generic-64bit), 4 used: devices 0, 1, 2, 3', got '$header'" ;;
esac
finish "devices: $(grep -c '^event' "$work/actual.txt") (kind, device) event counts and $(grep -c '^finding' "$work/actual.txt") findings as expected"
