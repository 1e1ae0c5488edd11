#!/bin/sh
# Browser test of report.html (registered by tests/browser/CMakeLists.txt):
#   run_browser_test.sh OMPLENS RENDER_REPORT PROGRAM WORKDIR [GEN_TRACE]
# Runs PROGRAM under `omplens run`, takes its report.html (or writes it with
# RENDER_REPORT when the CLI did not), and drives headless Chromium over it
# with playwright-core and axe-core (report.test.js). It also renders the
# run's trace with RENDER_REPORT, which gives the renderer the analysis, so
# that every wasteful operation is marked on the timeline. With GEN_TRACE it
# also renders a synthetic trace of a million events and checks the page
# stays responsive.
# The screenshots are left in WORKDIR. Exit 77 (CTest: skipped) only when
# node, npm's packages or Chromium cannot be had.
set -eu
SKIP=77
here=$(cd "$(dirname "$0")" && pwd)
omplens=$1 render=$2 program=$3 work=$4 gen=${5:-}
chromium=${OMPLENS_CHROMIUM:-/usr/bin/chromium}

if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed (Debian: apt-get install nodejs npm)"
  exit $SKIP
fi
if [ ! -x "$chromium" ]; then
  echo "SKIP: Chromium not found at $chromium (Debian: apt-get install chromium)"
  exit $SKIP
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)

# playwright-core and axe-core as pinned by package-lock.json, installed once into the
# work directory (node_modules never goes into the source tree).
npm_dir=$work/npm
if ! cmp -s "$here/package-lock.json" "$npm_dir/package-lock.json" ||
   [ ! -d "$npm_dir/node_modules/playwright-core" ] ||
   [ ! -f "$npm_dir/node_modules/axe-core/axe.min.js" ]; then
  rm -rf "$npm_dir"
  mkdir -p "$npm_dir"
  cp "$here/package.json" "$here/package-lock.json" "$npm_dir/"
  if ! command -v npm >/dev/null 2>&1 ||
     ! (cd "$npm_dir" && npm ci --no-audit --no-fund --loglevel=error >"$work/npm.log" 2>&1); then
    echo "SKIP: cannot install playwright-core and axe-core with npm (see $work/npm.log)"
    rm -rf "$npm_dir"
    exit $SKIP
  fi
fi

# The report of a real run.
rm -rf "$work/run" "$work/full" "$work/big"
"$omplens" run -q -o "$work/run" -- "$program" >"$work/program.out"
if [ ! -f "$work/run/report.html" ]; then
  "$render" "$work/run/traces"/*/ "$work/run"
fi
# The same run rendered with its analysis: every instance marked.
mkdir -p "$work/full"
"$render" "$work/run/traces"/*/ "$work/full"

# A million events, when the synthetic trace generator is built.
big=""
if [ -n "$gen" ] && [ -x "$gen" ]; then
  mkdir -p "$work/big"
  "$gen" -n 1000000 "$work/big/big.trace" >"$work/big/gen.out"
  "$render" "$work/big" "$work/big"
  big=$work/big/report.html
else
  echo "note: gen_trace not built: the million-event check is left out"
fi

NODE_PATH=$npm_dir/node_modules OMPLENS_CHROMIUM=$chromium \
  node "$here/report.test.js" "$work/run/report.html" "$work" "$work/full/report.html" $big
