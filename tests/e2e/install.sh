#!/usr/bin/env bash
# omplens installed like a tool. `cmake --install` into a prefix gives
# bin/omplens, lib/libomplens-collector.so and share/man/man1/omplens.1; the
# installed omplens profiles a program with that prefix's collector, also
# through a symlink found on PATH and from a copy of the tree once the
# original is moved away; a lone copied binary says in one line where it
# looked; the man page names every option the --help texts print.
# usage: install.sh CMAKE BUILD_DIR OFFLOAD_BINARY WORKDIR
set -uo pipefail
cmake=$1 build=$2 program=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
failed=0
fail() { echo "FAIL: $*"; failed=1; }

prefix=$work/prefix
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
for f in bin/omplens lib/libomplens-collector.so share/man/man1/omplens.1; do
  [ -s "$prefix/$f" ] || fail "cmake --install did not install $f"
done
[ "$failed" = 0 ] || exit 1

# Profiles the program with OMPLENS into OUT; the program is started through
# sh, which notes the collector that omplens gave it (first in
# OMP_TOOL_LIBRARIES) in OUT.collector.
profile() { # omplens out
  "$1" run -q -o "$2" -- sh -c 'printf "%s\n" "${OMP_TOOL_LIBRARIES%%:*}" >"$1"; shift; exec "$@"' \
    sh "$2.collector" "$program" >/dev/null 2>"$2.err"
}
expect_profile() { # description omplens out collector
  local what=$1 out=$3 want=$4
  profile "$2" "$out" || { fail "$what: exit $?: $(cat "$out.err")"; return; }
  [ -s "$out/report.html" ] && [ -s "$out/findings.json" ] || fail "$what: no report written in $out"
  [ "$(cat "$out.collector")" = "$want" ] ||
    fail "$what: collector '$(cat "$out.collector")', expected '$want'"
}

expect_profile "installed" "$prefix/bin/omplens" "$work/installed" \
  "$(realpath "$prefix/lib/libomplens-collector.so")"

# /usr/local/bin/omplens -> /opt/omplens/bin/omplens, say.
mkdir -p "$work/links" && ln -s "$prefix/bin/omplens" "$work/links/omplens"
PATH="$work/links:$PATH" expect_profile "through a symlink on PATH" omplens "$work/symlink" \
  "$(realpath "$prefix/lib/libomplens-collector.so")"

# Nothing of the first tree may be needed by its copy.
cp -r "$prefix" "$work/copy" && mv "$prefix" "$work/prefix.moved"
expect_profile "from a copied tree" "$work/copy/bin/omplens" "$work/copied" \
  "$(realpath "$work/copy/lib/libomplens-collector.so")"
mv "$work/prefix.moved" "$prefix"
if command -v readelf >/dev/null; then
  for f in bin/omplens lib/libomplens-collector.so; do
    ! readelf -d "$prefix/$f" | grep -E 'R(UN)?PATH' | grep -qF "$build" ||
      fail "$f has the build directory in its RPATH"
  done
fi

# A binary without its tree: one line that says where it looked and what to do.
mkdir -p "$work/lone" && cp "$prefix/bin/omplens" "$work/lone/"
profile "$work/lone/omplens" "$work/lone-out"
rc=$?
[ "$rc" = 66 ] || fail "a lone binary: exit $rc, expected 66"
[ "$(wc -l <"$work/lone-out.err")" = 1 ] &&
  grep -qF "not found at $work/lone/../lib/libomplens-collector.so" "$work/lone-out.err" &&
  grep -q "OMPLENS_COLLECTOR" "$work/lone-out.err" ||
  { fail "a lone binary: expected one line naming where it looked and OMPLENS_COLLECTOR, got:"
    sed 's/^/  | /' "$work/lone-out.err"; }
collector=$(realpath "$prefix/lib/libomplens-collector.so")
OMPLENS_COLLECTOR=$collector expect_profile "a lone binary with OMPLENS_COLLECTOR" \
  "$work/lone/omplens" "$work/lone-env" "$collector"

# The man page names each option of each help text, as an item of its own.
man=$prefix/share/man/man1/omplens.1
options_of() { grep -E '^ {1,7}-' | tr ' ,' '\n\n' | grep -E '^--?[A-Za-z]' | sort -u; }
for cmd in "" run report diff; do
  "$prefix/bin/omplens" $cmd --help
done | options_of >"$work/help-options"
grep '^\\fB' "$man" | sed -e 's/\\-/-/g' -e 's/\\f[BR]//g' -e 's/^/  /' | options_of >"$work/man-options"
[ -s "$work/help-options" ] && grep -qx -- --compile-commands "$work/help-options" ||
  fail "no options read from --help"
missing=$(comm -23 "$work/help-options" "$work/man-options" | tr '\n' ' ')
[ -z "$missing" ] || fail "the man page lacks options that --help prints: $missing"
if command -v groff >/dev/null; then
  groff -man -Tutf8 -ww -z "$man" 2>"$work/groff.err" && [ ! -s "$work/groff.err" ] ||
    { fail "groff warns on the man page:"; sed 's/^/  | /' "$work/groff.err"; }
  groff -man -Tutf8 -P-cbou "$man" >"$work/man.txt" 2>/dev/null
  while read -r option; do
    grep -qE -- "(^| )$option([ ,]|\$)" "$work/man.txt" || fail "the rendered man page lacks $option"
  done <"$work/help-options"
fi

[ "$failed" = 0 ] && echo "ok: installed, through a symlink, copied, alone; man page matches --help"
exit "$failed"
