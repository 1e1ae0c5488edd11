#!/usr/bin/env bash
# Proof of a corpus program's fixes.patch (docs/testing.md, "Realistic
# corpus"), the way a user would take it:
# 1. copies the program's source directory to WORKDIR/src and builds it with
#    its own build system (make or cmake) into WORKDIR/orig;
# 2. profiles it with `omplens run` (from WORKDIR) and requires a non-empty
#    fixes.patch and the command the terminal summary prints to apply it;
# 3. applies the patch with exactly that command (every file it names must
#    be in the copy), rebuilds the copy into WORKDIR/patched, with no more
#    compiler warnings than the original;
# 4. runs both binaries: stdout must be identical;
# 5. profiles the patched binary: no finding whose fix had a diff may remain
#    (same category, file, variable and device, at its line mapped through
#    the patch).
# Before that, the findings that carry a diff must be those SRC_DIR/NAME.fixed
# lists ("category file:line variable", sorted), and fixes.patch must hold
# every one of their diffs (no fix left out of it).
# usage: proof.sh OMPLENS JSON_GET SRC_DIR WORKDIR make|cmake TARGET [BUILD-ARG...] [-- RUN-OPTION...]
# BUILD-ARGs are make variables or cmake -D settings; in RUN-OPTIONs @BUILD@
# stands for the build directory of the binary profiled.
set -euo pipefail
omplens=$1 json_get=$2 src=$3 work=$4 kind=$5 target=$6
shift 6
build_args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do build_args+=("$1"); shift; done
[ $# -gt 0 ] && shift
run_options=("$@")
name=$(basename "$src")

fail() { echo "FAIL: $name: $*"; exit 1; }

# Builds $work/src into DIR with the program's own build system.
# Its compiler output goes to DIR.log (the warnings are compared).
build() {
  local dir=$1
  mkdir -p "$dir"
  case $kind in
  make) env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$work/src" OUT="$dir" "${build_args[@]}" \
          >"$dir.log" 2>&1 ;;
  cmake) cmake -S "$work/src" -B "$dir" "${build_args[@]}" >/dev/null &&
         env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL cmake --build "$dir" >"$dir.log" 2>&1 ;;
  *) fail "unknown build system $kind" ;;
  esac || { cat "$dir.log"; return 1; }
}

# omplens run on DIR's binary, from $work, into OUT; its summary in OUT.err.
profile() {
  local dir=$1 out=$2 options=("${run_options[@]/@BUILD@/$1}")
  (cd "$work" && "$omplens" run "${options[@]}" -o "$out" -- "$dir/$target" >/dev/null 2>"$out.err") ||
    { cat "$out.err"; fail "omplens run failed on $dir/$target"; }
}

# One line per finding of findings.json FILE: "category file line variable
# has-diff device" (has-diff 1 when its fix carries a diff; device: the
# receiving side, which tells a copy back from the copy in).
findings() {
  local json=$1 n i f fix diff
  n=$("$json_get" "$json" processes.0.findings.#)
  for ((i = 0; i < n; i++)); do
    f=processes.0.findings.$i
    fix=$("$json_get" "$json" "$f.fix" 2>/dev/null || true) # its place in the fixes (schema 6)
    diff=$([ -n "$fix" ] && "$json_get" "$json" "processes.0.fixes.$fix.diff" 2>/dev/null || true)
    echo "$("$json_get" "$json" "$f.category") $("$json_get" "$json" "$f.location.file" 2>/dev/null || echo -)" \
         "$("$json_get" "$json" "$f.location.line" 2>/dev/null || echo 0)" \
         "$("$json_get" "$json" "$f.variable.name" 2>/dev/null || echo -) $([ -n "$diff" ] && echo 1 || echo 0)" \
         "$("$json_get" "$json" "$f.device" 2>/dev/null || echo -)"
  done
}

# The lines "LO HI" that old line LINE of FILE became under PATCH: a line
# the patch keeps maps to one line, a line it removes to its hunk's new
# lines, a line outside every hunk moves by the lines added and removed
# above it. Patch paths match FILE by their end (b/ dropped).
map_line() {
  awk -v file="$2" -v L="$3" '
    function ends_with(s, t) { return length(s) >= length(t) && substr(s, length(s) - length(t) + 1) == t }
    ro > 0 || rn > 0 {
      ch = substr($0, 1, 1)
      if (ch == "\\") next
      if (mine && ch != "+" && old == L) {
        if (ch == " ") print new, new; else print c, (d > 0 ? c + d - 1 : c)
        found = 1; exit
      }
      if (ch != "+") { old++; ro-- }
      if (ch != "-") { new++; rn-- }
      next
    }
    /^\+\+\+ / { p = $2; sub(/^b\//, "", p); mine = ends_with(file, "/" p) || file == p; next }
    /^@@ / {
      split($2, o, ","); split($3, n, ",")
      a = -o[1]; b = (2 in o) ? o[2] + 0 : 1; c = n[1] + 0; d = (2 in n) ? n[2] + 0 : 1
      old = a; new = c; ro = b; rn = d
      if (mine && ((b == 0 && L > a) || (b > 0 && L >= a + b))) shift += d - b
      next
    }
    END { if (!found) print L + shift, L + shift }' "$1"
}

# Whether every file PATCH names is in the copy ($work/src), read from the
# directory the printed command applies it in (DIR): the patch must never
# reach the project's sources.
inside_copy() {
  local p dir=$2
  while read -r p _; do
    p=${p#b/}
    case $p in *..*) return 1 ;; esac
    case ${dir%/}/$p in "$work/src/"*) continue ;; esac
    return 1
  done < <(sed -n 's/^+++ //p' "$1")
}

rm -rf "$work" && mkdir -p "$work"
cp -r "$src" "$work/src"
build "$work/orig" || fail "the original does not build"
"$work/orig/$target" >"$work/orig.out" || fail "the original exits with $?"
profile "$work/orig" "$work/report"

patch_file=$work/report/fixes.patch
[ -s "$patch_file" ] ||
  fail "fixes.patch is empty: take $name off OMPLENS_CORPUS_PROOFS (tests/e2e/corpus/CMakeLists.txt)"
findings "$work/report/findings.json" >"$work/findings.txt"
awk '$5 == 1 { n = split($2, p, "/"); print $1, p[n] ":" $3, $4 }' "$work/findings.txt" |
  LC_ALL=C sort >"$work/fixed.txt"
if [ -f "$src/$name.fixed" ]; then
  grep -v '^#' "$src/$name.fixed" | diff - "$work/fixed.txt" ||
    fail "the findings with a diff are not those $name.fixed lists (above: < expected, > now)"
fi
if grep -q '^# Not in this patch' "$patch_file"; then
  head -3 "$patch_file"
  fail "fixes.patch leaves out a fix that has a diff"
fi
cmd=$(sed -n 's/^  apply the suggested changes: //p' "$work/report.err")
[ -n "$cmd" ] || { cat "$work/report.err"; fail "the summary does not say how to apply fixes.patch"; }
patch_dir=$(sed -n 's/^patch -p1 -d \([^ ]*\) < .*/\1/p' <<<"$cmd")
[ -n "$patch_dir" ] || fail "the printed command '$cmd' names no directory to apply the patch in"
inside_copy "$patch_file" "$patch_dir" ||
  { cat "$patch_file"; fail "the patch edits a file outside the copy"; }
echo "applying: $cmd"
(cd "$work" && sh -c "$cmd") || fail "'$cmd' does not apply"

build "$work/patched" || fail "the patched program does not build"
[ "$(grep -c 'warning:' "$work/patched.log")" -le "$(grep -c 'warning:' "$work/orig.log")" ] ||
  { grep 'warning:' "$work/patched.log"; fail "the patched program builds with new warnings"; }
"$work/patched/$target" >"$work/patched.out" || fail "the patched program exits with $?"
cmp -s "$work/orig.out" "$work/patched.out" ||
  { diff "$work/orig.out" "$work/patched.out" || true; fail "the output changed"; }

profile "$work/patched" "$work/report-patched"
findings "$work/report-patched/findings.json" >"$work/findings-patched.txt"
fixed=0
while read -r category file line variable has_diff device; do
  [ "$has_diff" = 1 ] || continue
  fixed=$((fixed + 1))
  read -r lo hi < <(map_line "$patch_file" "$file" "$line")
  while read -r c2 f2 l2 v2 _ d2; do
    if [ "$c2" = "$category" ] && [ "$f2" = "$file" ] && [ "$v2" = "$variable" ] &&
       [ "$d2" = "$device" ] && [ "$l2" -ge "$lo" ] && [ "$l2" -le "$hi" ]; then
      fail "$category of $variable at $(basename "$file"):$line (now line $l2) is still reported after the patch"
    fi
  done <"$work/findings-patched.txt"
done <"$work/findings.txt"
[ "$fixed" -gt 0 ] || fail "no finding has a diff, yet fixes.patch is not empty"
echo "ok: $name: fixes.patch applied with '$cmd', rebuilt with $kind, same output, $fixed fixed findings gone"
