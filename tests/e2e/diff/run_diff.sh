#!/usr/bin/env bash
# End-to-end test of `omplens diff`: runs an example and its fixed twin under
# omplens, diffs the two runs, and checks the comparison (diff_check).
# usage: run_diff.sh OMPLENS DIFF_CHECK BEFORE_BINARY AFTER_BINARY GONE WORKDIR
#   GONE: comma-separated categories that must be gone after the fix
set -euo pipefail
omplens=$1 check=$2 before=$3 after=$4 gone=$5 work=$6
rm -rf "$work" && mkdir -p "$work"

for side in before after; do
  bin=${!side}
  if ! "$omplens" run -q -o "$work/$side" -- "$bin" >"$work/$side.out" 2>"$work/$side.err"; then
    echo "FAIL: omplens run $bin failed"; cat "$work/$side.err"; exit 1
  fi
done

# Output directories, trace directories and trace files are all accepted.
trace_dir=$(dirname "$(ls "$work"/after/traces/*/*.trace)")
"$omplens" diff --json "$work/diff.json" "$work/before" "$work/after" >"$work/diff.txt"
"$omplens" diff "$work/before" "$trace_dir" >"$work/diff-dir.txt"
"$omplens" diff "$work/before/findings.json" "$(ls "$trace_dir"/*.trace)" >"$work/diff-file.txt"
if ! cmp -s <(sed 1,4d "$work/diff.txt") <(sed 1,4d "$work/diff-dir.txt"); then
  echo "FAIL: diffing a trace directory differs from diffing the output directory"
  diff <(sed 1,4d "$work/diff.txt") <(sed 1,4d "$work/diff-dir.txt") | head; exit 1
fi
findings_line() { sed -n '/^Findings: /p' "$1"; }
if [ "$(findings_line "$work/diff.txt")" != "$(findings_line "$work/diff-file.txt")" ]; then
  echo "FAIL: from findings.json: '$(findings_line "$work/diff-file.txt")'," \
       "from traces: '$(findings_line "$work/diff.txt")'"; exit 1
fi
"$check" "$work/diff.json" "$gone"

# A findings.json of an older version is read the same (version 4 wrote
# instances as objects, which diff does not read); only version 1 had
# other categories, so only it gets the note.
mkdir -p "$work/v4" "$work/v1"
sed 's/^  "schema_version": [0-9]*,$/  "schema_version": 4,/' "$work/before/findings.json" >"$work/v4/findings.json"
sed 's/^  "schema_version": [0-9]*,$/  "schema_version": 1,/' "$work/before/findings.json" >"$work/v1/findings.json"
grep -q '^  "schema_version": 4,$' "$work/v4/findings.json" || { echo "FAIL: no schema_version line"; exit 1; }
"$omplens" diff "$work/v4" "$work/after" >"$work/diff-v4.txt"
"$omplens" diff "$work/v1" "$work/after" >"$work/diff-v1.txt"
if [ "$(findings_line "$work/diff.txt")" != "$(findings_line "$work/diff-v4.txt")" ] ||
   grep -q 'categories changed' "$work/diff-v4.txt"; then
  echo "FAIL: from a version-4 findings.json:"; cat "$work/diff-v4.txt"; exit 1
fi
grep -q 'categories changed' "$work/diff-v1.txt" ||
  { echo "FAIL: no note on the categories of a version-1 findings.json"; cat "$work/diff-v1.txt"; exit 1; }

# Exit codes: 64 usage, 66 missing input, 65 unreadable trace.
expect_status() {
  local want=$1; shift
  set +e; "$omplens" diff "$@" >/dev/null 2>"$work/status.err"; local got=$?; set -e
  if [ "$got" != "$want" ]; then
    echo "FAIL: omplens diff $*: exit status $got, expected $want"; cat "$work/status.err"; exit 1
  fi
  if [ "$want" != 0 ] && ! grep -q '^omplens: ' "$work/status.err"; then
    echo "FAIL: omplens diff $*: no 'omplens: ' error line"; cat "$work/status.err"; exit 1
  fi
}
printf 'not a trace' >"$work/garbage.trace"
expect_status 64 "$work/before"
expect_status 64 --no-such-option "$work/before" "$work/after"
expect_status 66 "$work/before" "$work/missing"
expect_status 65 "$work/before" "$work/garbage.trace"
expect_status 0 --help
echo "ok: $(basename "$before") -> $(basename "$after"): $(sed -n 's/^Findings: //p' "$work/diff.txt")"
