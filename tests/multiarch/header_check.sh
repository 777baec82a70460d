#!/usr/bin/env bash
# header_check.sh <duet source dir> <work dir> [triple]: compiles, for another architecture
# (default aarch64-linux-gnu) and with -fsyntax-only, the sources that include third-party or
# system-specific headers (tests/multiarch/header_check/CMakeLists.txt says which). A ctest test
# of `make test` (Multiarch.HeadersCompileForArm64); exit 77 (skipped) without the cross compiler.
set -uo pipefail
src=$(cd "$1" && pwd) work=$2 triple=${3:-aarch64-linux-gnu}
if ! command -v "$triple-g++" >/dev/null 2>&1; then
  echo "skipped: no $triple-g++ here, so nothing was compiled for $triple" \
       "(Debian: apt-get install g++-$triple; make test installs it as root)"
  exit 77
fi
mkdir -p "$work"
if ! cmake -S "$src/tests/multiarch/header_check" -B "$work" -G "Unix Makefiles" \
       -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/debian-cross.cmake" -DDUET_CROSS_TRIPLE="$triple" \
       -DDUET_SOURCE_ROOT="$src" -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" 2>&1; then
  cat "$work/configure.log"
  echo "FAILED: configuring the $triple cross build"
  exit 1
fi
grep "^-- duet:" "$work/configure.log"
# -k: every source that does not compile is named, not only the first.
if ! cmake --build "$work" -j "${JOBS:-2}" -- -k > "$work/build.log" 2>&1; then
  grep -E "error|Error" "$work/build.log" | head -n 40
  echo "FAILED: sources above do not compile for $triple (log: $work/build.log)"
  exit 1
fi
checked=$(find "$work/CMakeFiles" -name '*.o' | wc -l)
echo "passed: $checked sources compile for $triple ($(grep -c 'Building CXX' "$work/build.log") checked again now)"
