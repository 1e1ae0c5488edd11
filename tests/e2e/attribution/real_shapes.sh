#!/usr/bin/env bash
# Shapes of real programs that the attribution must get right (sources in
# shapes/, each built as its kind of project builds it). For every directive
# with findings: the kind is known, the confidence is exact, the source is
# not called changed, and the file is absolute, whatever directory omplens
# runs in. CASE is one of:
#   member_template  a member of a class template in a header found through
#                    -I. ("./solver.hpp" at run time), -O0 and -O2, reported
#                    from another directory
#   line_breaks      CRLF line ends and one lone CR, which clang counts as a
#                    line break
#   ifdef            offload code under #ifdef USE_OFFLOAD, no
#                    compile_commands.json: one note says how to give the
#                    build's flags, and with --compile-commands none does
#   ifdef_recorded   the same built with -grecord-command-line: the flags
#                    DWARF recorded are the build's, no note, no directive
#                    left out; without -grecord-command-line the note is back
#   cxx_as_c         a .c file built by clang++ -std=c++11, with its
#                    compile_commands.json: parsed as C++, not partially
#   namespace_inline a function template inlined (always_inline) into a
#                    solver, both in a namespace, -O0 and -O2: the call path
#                    holds the inlined call (line 24), the solver's name and
#                    the loop around the call (line 23)
#   included_c       a .c file #include'd by a .c file #include'd by the
#                    one source compiled (clang++, C++ in .c files, as
#                    HeCBench's myocyte): parsed through that unit, never
#                    alone, as C++ with the command DWARF recorded, and
#                    without it (DW_AT_language says C++); no note, a diff
#   inlined_launch   a kernel's function inlined into main's time loop at
#                    -O3 and unrolled, -O0 and -O3: every finding's call
#                    path is the call at line 21, in the loop at line 20
#                    (clang leaves the first copy's launch outside the
#                    inlined instance, line 0; the others nest the entry
#                    points clang made, which are no calls of the program)
#   header_unit      a class template in a header that does not compile
#                    alone (smoother.hpp), no compile_commands.json: parsed
#                    through DWARF's compile unit (header_unit.cpp), fully
# usage: real_shapes.sh OMPLENS JSON_GET CC CXX SHAPES_DIR WORKDIR CASE
set -euo pipefail
omplens=$1 json_get=$2 cc=$3 cxx=$4 shapes=$5 work=$6 case=$7
flags=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -Wl,-rpath,/usr/lib/llvm-19/lib)
note="sources were parsed without the build's flags"
rm -rf "$work" && mkdir -p "$work/src" "$work/elsewhere"

fail() { echo "FAIL: $case: $*"; exit 1; }

# Every directive of OUT/findings.json: kind, exact, not stale, absolute file.
check_directives() {
  local json=$1/findings.json n i d
  n=$("$json_get" "$json" processes.0.directives.#)
  [ "$n" -gt 0 ] || fail "$1: no directive with findings"
  for ((i = 0; i < n; i++)); do
    d=processes.0.directives.$i.location
    local where kind confidence stale file
    where="$("$json_get" "$json" "$d.file"):$("$json_get" "$json" "$d.line")"
    kind=$("$json_get" "$json" "$d.directive.kind") || fail "$1: $where: no directive kind"
    confidence=$("$json_get" "$json" "$d.directive.confidence")
    stale=$("$json_get" "$json" "$d.directive.stale")
    file=$("$json_get" "$json" "$d.directive.file")
    [ "$confidence" = exact ] || fail "$1: $where ($kind): confidence $confidence, expected exact"
    [ "$stale" = false ] || fail "$1: $where ($kind): called stale"
    [ "${file#/}" != "$file" ] || fail "$1: $where: file $file is not absolute"
    [ "$("$json_get" "$json" "$d.directive.line")" = "$("$json_get" "$json" "$d.line")" ] ||
      fail "$1: $where: the directive is on another line than the runtime's"
  done
}

run_in_elsewhere() { # name binary [report options]
  local name=$1 bin=$2
  shift 2
  (cd "$work/elsewhere" && "$omplens" run -q "$@" -o "$name" -- "$bin" >/dev/null) ||
    fail "omplens run failed for $name"
}

case $case in
member_template)
  cp "$shapes/solver.hpp" "$shapes/member_template.cpp" "$work/src/"
  for opt in O0 O2; do
    (cd "$work/src" && "$cxx" "${flags[@]}" "-$opt" -I. member_template.cpp -o "$work/prog-$opt")
    run_in_elsewhere "out-$opt" "$work/prog-$opt"
    check_directives "$work/elsewhere/out-$opt"
    grep -q '"file": "'"$work"'/src/solver.hpp"' "$work/elsewhere/out-$opt/findings.json" ||
      fail "out-$opt: ./solver.hpp not resolved against the build's directory"
  done
  ;;
line_breaks)
  awk '{ printf "%s%s", $0, (index($0, "LONE-CR") ? "\r" : "\r\n") }' "$shapes/line_breaks.c" \
    >"$work/src/line_breaks.c"
  (cd "$work/src" && "$cc" "${flags[@]}" line_breaks.c -o "$work/prog")
  run_in_elsewhere out "$work/prog"
  check_directives "$work/elsewhere/out"
  ;;
ifdef)
  cp "$shapes/ifdef_offload.c" "$work/src/"
  (cd "$work/src" && "$cc" "${flags[@]}" -DUSE_OFFLOAD ifdef_offload.c -o "$work/prog")
  run_in_elsewhere without "$work/prog"
  check_directives "$work/elsewhere/without"
  [ "$("$json_get" "$work/elsewhere/without/findings.json" processes.0.directives.#)" -ge 2 ] ||
    fail "expected two directives with findings"
  # Once: on one directive (its findings repeat their directive's location).
  count=0
  for ((i = 0; i < $("$json_get" "$work/elsewhere/without/findings.json" processes.0.directives.#); i++)); do
    text=$("$json_get" "$work/elsewhere/without/findings.json" \
           "processes.0.directives.$i.location.directive.note" || true)
    case $text in "$note"*--compile-commands*) count=$((count + 1)) ;; esac
  done
  [ "$count" = 1 ] || fail "the note on the build's flags is on $count directives, expected one"
  cat >"$work/elsewhere/compile_commands.json" <<JSON
[{"directory": "$work/src", "file": "ifdef_offload.c",
  "command": "$cc -fopenmp -DUSE_OFFLOAD -c ifdef_offload.c"}]
JSON
  (cd "$work/elsewhere" && "$omplens" report -q -o with \
     --compile-commands "$work/elsewhere/compile_commands.json" without/traces/*/) ||
    fail "omplens report --compile-commands failed"
  check_directives "$work/elsewhere/with"
  ! grep -q "$note" "$work/elsewhere/with/findings.json" || fail "the note is given with the build's flags"
  ;;
ifdef_recorded)
  cp "$shapes/ifdef_offload.c" "$work/src/"
  for rec in recorded plain; do
    record=(); [ $rec = recorded ] && record=(-grecord-command-line)
    (cd "$work/src" && "$cc" "${flags[@]}" "${record[@]}" -DUSE_OFFLOAD ifdef_offload.c -o "$work/prog-$rec")
    run_in_elsewhere "$rec" "$work/prog-$rec"
    check_directives "$work/elsewhere/$rec"
  done
  json=$work/elsewhere/recorded/findings.json
  ! grep -q "$note" "$json" || fail "the note is given although DWARF recorded the build's flags"
  ! grep -q 'branch that the parse' "$json" || fail "a directive is left out of the parse"
  grep -q "$note" "$work/elsewhere/plain/findings.json" ||
    fail "no note without -grecord-command-line"
  ;;
cxx_as_c)
  cp "$shapes/cxx_as_c.c" "$work/src/"
  (cd "$work/src" && "$cxx" "${flags[@]}" -std=c++11 cxx_as_c.c -o "$work/prog" 2>/dev/null)
  cat >"$work/src/compile_commands.json" <<JSON
[{"directory": "$work/src", "file": "cxx_as_c.c",
  "command": "$cxx -std=c++11 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -c cxx_as_c.c"}]
JSON
  run_in_elsewhere out "$work/prog"
  check_directives "$work/elsewhere/out"
  [ "$("$json_get" "$work/elsewhere/out/findings.json" processes.0.directives.0.location.directive.partial_parse)" = false ] ||
    fail "parsed partially: not in the language its command compiles"
  ;;
namespace_inline)
  cp "$shapes/namespace_inline.cpp" "$work/src/"
  for opt in O0 O2; do
    (cd "$work/src" && "$cxx" "${flags[@]}" "-$opt" namespace_inline.cpp -o "$work/prog-$opt")
    run_in_elsewhere "out-$opt" "$work/prog-$opt"
    check_directives "$work/elsewhere/out-$opt"
    json=$work/elsewhere/out-$opt/findings.json
    [ "$("$json_get" "$json" processes.0.findings.0.call_path.0.line)" = 24 ] ||
      fail "out-$opt: the call path misses the inlined call at line 24"
    case $("$json_get" "$json" processes.0.findings.0.call_path.0.function) in
      solve*) ;;
      *) fail "out-$opt: the inlined call's function is not lab::solve" ;;
    esac
    [ "$("$json_get" "$json" processes.0.findings.0.call_path.0.loop_line)" = 23 ] ||
      fail "out-$opt: the loop around the call (line 23) is not named"
  done
  ;;
included_c)
  cp "$shapes"/included_*.c "$work/src/"
  for rec in recorded plain; do
    record=(); [ $rec = recorded ] && record=(-grecord-command-line)
    (cd "$work/src" && "$cxx" "${flags[@]}" "${record[@]}" included_unit.c -o "$work/prog-$rec" 2>/dev/null)
    run_in_elsewhere "$rec" "$work/prog-$rec"
    check_directives "$work/elsewhere/$rec"
    json=$work/elsewhere/$rec/findings.json
    for ((i = 0; i < $("$json_get" "$json" processes.0.directives.#); i++)); do
      [ "$("$json_get" "$json" "processes.0.directives.$i.location.directive.partial_parse")" = false ] ||
        fail "$rec: directive $i: parsed partially: not through its unit, or not as C++"
    done
    ! grep -q "$note" "$json" || fail "$rec: the note is given although the parse went well"
    grep -q '^+++ b/included_solver.c' "$work/elsewhere/$rec/fixes.patch" ||
      fail "$rec: no diff around the solver's loop in included_solver.c"
  done
  ;;
inlined_launch)
  cp "$shapes/inlined_launch.c" "$work/src/"
  for opt in O0 O3; do
    (cd "$work/src" && "$cc" "${flags[@]}" "-$opt" inlined_launch.c -o "$work/prog-$opt")
    run_in_elsewhere "out-$opt" "$work/prog-$opt"
    check_directives "$work/elsewhere/out-$opt"
    json=$work/elsewhere/out-$opt/findings.json
    n=$("$json_get" "$json" processes.0.findings.#)
    [ "$n" -gt 0 ] || fail "out-$opt: no finding"
    for ((i = 0; i < n; i++)); do
      path=processes.0.findings.$i.call_path
      where="$("$json_get" "$json" "$path.0.function" 2>/dev/null || echo -):$("$json_get" "$json" "$path.0.line" 2>/dev/null || echo -)"
      [ "$where" = main:21 ] || fail "out-$opt: finding $i: call path starts at $where, expected main:21"
      [ "$("$json_get" "$json" "$path.#")" = 1 ] || fail "out-$opt: finding $i: more than the call at main:21"
      [ "$("$json_get" "$json" "$path.0.loop_line")" = 20 ] ||
        fail "out-$opt: finding $i: the loop around the call (line 20) is not named"
    done
  done
  ;;
header_unit)
  cp "$shapes/field.hpp" "$shapes/smoother.hpp" "$shapes/header_unit.cpp" "$work/src/"
  (cd "$work/src" && "$cxx" "${flags[@]}" -I. header_unit.cpp -o "$work/prog")
  run_in_elsewhere out "$work/prog"
  check_directives "$work/elsewhere/out"
  json=$work/elsewhere/out/findings.json
  for ((i = 0; i < $("$json_get" "$json" processes.0.directives.#); i++)); do
    [ "$("$json_get" "$json" "processes.0.directives.$i.location.directive.partial_parse")" = false ] ||
      fail "directive $i: parsed partially: the header was not read through its unit"
  done
  ;;
*)
  fail "unknown case"
  ;;
esac
echo "ok: $case: every directive exact, unchanged source, absolute file"
