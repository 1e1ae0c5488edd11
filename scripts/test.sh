#!/usr/bin/env bash
# README command 2: install what is missing, build, and run the whole test
# suite (unit, end-to-end, cross-check) with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j"$(nproc)"
