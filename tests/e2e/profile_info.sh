#!/usr/bin/env bash
# The directive profile (docs/findings-schema.md, version 4) against the
# runtime's own account: run each program under omplens with
# LIBOMPTARGET_INFO=33 (1: "Entering OpenMP kernel at FILE:LINE:COL", one a
# launch; 32: the copies, each after the line naming its directive), and
# compare per file:line the kernel launches and the host-to-device and
# device-to-host copies and bytes. The programs waste nothing, so every
# directive has a profile but no finding; the profiles add up to the totals;
# report.html lists every directive in its profile and its timeline.
# usage: profile_info.sh OMPLENS JSON_GET CC SOURCE WORKDIR [BINARY...]
set -uo pipefail
omplens=$1 json_get=$2 cc=$3 src=$4 work=$5
shift 5
rm -rf "$work" && mkdir -p "$work"
failed=0
fail() { echo "FAIL: $*"; failed=1; }

mkdir -p "$work/bin"
"$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g "$src" -o "$work/bin/profile_info" \
  -Wl,-rpath,/usr/lib/llvm-19/lib || exit 1

# "FILE:LINE kernels N", "FILE:LINE h2d N BYTES", "FILE:LINE d2h N BYTES"
# from the runtime's lines; the directive of a copy is the last one named.
runtime_view() {
  awk '
    / at [^ ]*:[0-9]+:[0-9]+ with / {
      match($0, / at [^ ]*:[0-9]+:[0-9]+ with /)
      where = substr($0, RSTART + 4, RLENGTH - 10)
      sub(/:[0-9]+$/, "", where)
      n = split(where, parts, "/"); where = parts[n]
      if ($0 ~ /Entering OpenMP kernel at/) kernels[where]++
    }
    /Copying data from host to device/ || /Copying data from device to host/ {
      dir = $0 ~ /from host to device/ ? "h2d" : "d2h"
      size = $0; sub(/.*Size=/, "", size); sub(/,.*/, "", size)
      count[where " " dir]++; bytes[where " " dir] += size
    }
    END {
      for (w in kernels) print w, "kernels", kernels[w]
      for (k in count) print k, count[k], bytes[k]
    }' "$1" | LC_ALL=C sort
}

# The same lines from findings.json, summed over the directives of a line.
profile_view() {
  local json=$1 n i d file
  n=$("$json_get" "$json" processes.0.directives.#) || return 1
  for ((i = 0; i < n; i++)); do
    d=processes.0.directives.$i
    file=$("$json_get" "$json" "$d.location.file") || file=unknown
    echo "${file##*/}:$("$json_get" "$json" "$d.location.line")" \
      "$("$json_get" "$json" "$d.profile.kernels.count")" \
      "$("$json_get" "$json" "$d.profile.h2d.count")" "$("$json_get" "$json" "$d.profile.h2d.bytes")" \
      "$("$json_get" "$json" "$d.profile.d2h.count")" "$("$json_get" "$json" "$d.profile.d2h.bytes")"
  done | awk '
    { k[$1] += $2; hc[$1] += $3; hb[$1] += $4; dc[$1] += $5; db[$1] += $6 }
    END {
      for (w in k) {
        if (k[w]) print w, "kernels", k[w]
        if (hc[w]) print w, "h2d", hc[w], hb[w]
        if (dc[w]) print w, "d2h", dc[w], db[w]
      }
    }' | LC_ALL=C sort
}

# The sum over the directives of profile.KIND.FIELD against totals.TOTAL.
check_sum() { # json kind field total
  local json=$1 n i sum=0 v
  n=$("$json_get" "$json" processes.0.directives.#)
  for ((i = 0; i < n; i++)); do
    v=$("$json_get" "$json" "processes.0.directives.$i.profile.$2.$3") && sum=$((sum + v))
  done
  [ "$sum" = "$("$json_get" "$json" "processes.0.totals.$4")" ] ||
    fail "$json: the profiles' $2.$3 add up to $sum, totals.$4 is $("$json_get" "$json" "processes.0.totals.$4")"
}

for bin in "$work/bin/profile_info" "$@"; do
  name=$(basename "$bin") out=$work/$(basename "$bin")
  LIBOMPTARGET_INFO=33 "$omplens" run -q -o "$out" -- "$bin" >/dev/null 2>"$out.err" ||
    { fail "$name: omplens run failed"; continue; }
  json=$out/findings.json
  [ "$("$json_get" "$json" schema_version)" = 6 ] || fail "$name: schema_version is not 6"
  [ "$("$json_get" "$json" processes.0.findings.#)" = 0 ] || fail "$name: findings in a program without waste"
  runtime_view "$out.err" >"$out.runtime.txt"
  profile_view "$json" >"$out.profile.txt"
  [ -s "$out.runtime.txt" ] || fail "$name: LIBOMPTARGET_INFO=33 printed no kernel or copy"
  diff -u "$out.runtime.txt" "$out.profile.txt" >"$out.diff" ||
    { fail "$name: profile and runtime disagree (- runtime, + profile)"; head -40 "$out.diff"; }
  n=$("$json_get" "$json" processes.0.directives.#)
  for ((i = 0; i < n; i++)); do
    [ "$("$json_get" "$json" "processes.0.directives.$i.profile.has_findings")" = false ] ||
      fail "$name: directive $i has findings"
  done
  check_sum "$json" kernels count kernels
  check_sum "$json" kernels ns kernel_ns
  check_sum "$json" allocs count allocations
  check_sum "$json" frees count frees
  check_sum "$json" frees ns free_ns
  check_sum "$json" host_waits count host_waits
  check_sum "$json" host_waits ns host_wait_ns
  grep -q '^## Where the time goes' "$out/report.md" || fail "$name: report.md has no \"Where the time goes\""
  # report.html answers it too, without findings: a profile row per
  # directive, and the timeline names every directive (colours, selection,
  # histograms).
  [ "$(grep -c 'class="profile-row' "$out/report.html")" = "$n" ] ||
    fail "$name: report.html's profile does not list the $n directives"
  sed -n 's|.*<script type="application/json" id="p0-timeline-data">\(.*\)</script>.*|\1|p' \
    "$out/report.html" >"$out.timeline-data.json"
  [ "$("$json_get" "$out.timeline-data.json" sites.#)" = "$n" ] ||
    fail "$name: report.html's timeline does not name the $n directives"
  [ "$failed" = 0 ] && echo "ok: $name: $(wc -l <"$out.runtime.txt") kernel and copy sums per directive match LIBOMPTARGET_INFO=33"
done
exit "$failed"
