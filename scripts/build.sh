#!/usr/bin/env bash
# Configures and builds omplens into ${BUILD_DIR:-build}, with the test suite
# and benchmarks unless BUILD_TESTS=OFF (set on each call, so that a build
# directory the demo made builds the tests again for scripts/test.sh).
# Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} \
  -DOMPLENS_BUILD_TESTS="${BUILD_TESTS:-ON}" "$@" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
