#!/usr/bin/env bash
# Cross-check: the collector records exactly the copies (direction, host
# pointer, size, map-item name) that libomptarget itself prints with
# LIBOMPTARGET_INFO=32 (names need -g; without them both sides say "-").
# usage: crosscheck.sh OMPLENS BINARY WORKDIR
set -euo pipefail
omplens=$1 bin=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
LIBOMPTARGET_INFO=32 "$omplens" run -q -o "$work/report" -- "$bin" >/dev/null 2>"$work/info.err"

# Runtime's view: "Copying data from host to device, HstPtr=0x..., TgtPtr=..., Size=N"
# (the runtime pads pointers with zeros; omplens dump does not)
sed -n 's/.*Copying data from host to device, HstPtr=0x0*\([0-9a-f][0-9a-f]*\),.*Size=\([0-9]*\), Name=\(.*\)$/h2d 0x\1 \2 \3/p;
        s/.*Copying data from device to host, TgtPtr=0x[0-9a-f]*, HstPtr=0x0*\([0-9a-f][0-9a-f]*\), Size=\([0-9]*\), Name=\(.*\)$/d2h 0x\1 \2 \3/p' \
  "$work/info.err" | LC_ALL=C sort >"$work/runtime.txt"

trace=$(ls "$work"/report/traces/*/*.trace)
# Where the runtime knows no name (Name=unknown: the device memory API's
# copies), omplens may name the call's argument from the source: compare
# direction, pointer and size only.
awk '$4 == "unknown" { print $1, $2, $3 }' "$work/runtime.txt" >"$work/unnamed.txt"
"$omplens" dump "$trace" | awk -F'\t' '$3 == "h2d" || $3 == "d2h" { print $3, $6, $8, $14 }' \
  | awk 'FILENAME == ARGV[1] { unnamed[$0] = 1; next }
         ($1 " " $2 " " $3) in unnamed { $4 = "unknown" } 1' "$work/unnamed.txt" - \
  | LC_ALL=C sort >"$work/collector.txt"

# A pointer attached into a mapped struct (s.p[0:n], a member in a method, a
# declare target pointer) is an 8-byte copy from the runtime's own storage,
# which it names after the mapping that holds the pointer; omplens names no
# map item for it ("-"): such copies are compared by pointer and size.
awk '$3 == 8 && $4 == "-" { print $1, $2, $3 }' "$work/collector.txt" >"$work/attached.txt"
awk 'FILENAME == ARGV[1] { attached[$0] = 1; next }
     ($1 " " $2 " " $3) in attached { $0 = $1 " " $2 " " $3 " -" } 1' \
  "$work/attached.txt" "$work/runtime.txt" | LC_ALL=C sort >"$work/runtime.cmp"
mv "$work/runtime.cmp" "$work/runtime.txt"

if [ ! -s "$work/runtime.txt" ]; then
  echo "FAIL: LIBOMPTARGET_INFO=32 printed no copies (is libomptarget from LLVM 19?)"; exit 1
fi
if ! diff -u "$work/runtime.txt" "$work/collector.txt" >"$work/diff.txt"; then
  echo "FAIL: collector and runtime disagree on copies (- runtime, + collector)"; head -40 "$work/diff.txt"; exit 1
fi
echo "ok: $(basename "$bin"): $(wc -l <"$work/collector.txt") copies (pointer, size, name) match LIBOMPTARGET_INFO=32"
