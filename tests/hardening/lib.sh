# shellcheck shell=bash
# Shared helpers of the hardening tests (sourced, not run).
# Assertions print what was expected and what came; `finish` exits 1 when
# any failed, so that one run shows every failure.

failures=0

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
  if [ "$2" != "$3" ]; then
    printf 'FAIL: %s\n  expected: %s\n  actual:   %s\n' "$1" "$2" "$3"
    failures=$((failures + 1))
  fi
}

# expect_match WHAT GREP-PATTERN FILE
expect_match() {
  if ! grep -q -- "$2" "$3"; then
    printf 'FAIL: %s: no line matches "%s" in %s:\n' "$1" "$2" "$3"
    head -20 "$3" | sed 's/^/  | /'
    failures=$((failures + 1))
  fi
}

# fail WHAT: an assertion that has no two values to show
fail() {
  printf 'FAIL: %s\n' "$1"
  failures=$((failures + 1))
}

# one_trace DIR: the path of the only *.trace under DIR (fails otherwise)
one_trace() {
  local found
  found=$(find "$1" -name '*.trace' -type f | sort)
  if [ "$(printf '%s\n' "$found" | grep -c .)" != 1 ]; then
    echo "FAIL: expected exactly one trace under $1, found: ${found:-none}" >&2
    return 1
  fi
  printf '%s\n' "$found"
}

# count_kinds OMPLENS TRACE: "alloc N h2d N kernel N d2h N delete N"
count_kinds() {
  "$1" dump "$2" | awk -F'\t' '
    !/^#/ { c[$3]++ }
    END { printf "alloc %d h2d %d kernel %d d2h %d delete %d\n",
                 c["alloc"], c["h2d"], c["kernel"], c["d2h"], c["delete"] }'
}

# finish NAME: the verdict line, and the exit status
finish() {
  if [ "$failures" -ne 0 ]; then
    echo "FAIL: $1: $failures check(s) failed"
    exit 1
  fi
  echo "ok: $1"
  exit 0
}
