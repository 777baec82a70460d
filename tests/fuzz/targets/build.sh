#!/bin/sh
# Builds duet's fuzz targets the way OSS-Fuzz builds a project: the compiler and flags come from
# $CC, $CXX, $CFLAGS, $CXXFLAGS, the fuzzing engine from $LIB_FUZZING_ENGINE, and the binaries
# and their seed corpora (<target>_seed_corpus.zip) go to $OUT. Without those variables it
# builds for libFuzzer with Debian's clang, AddressSanitizer and UBSan, into build-fuzz/.
#
#   tests/fuzz/targets/build.sh                      # local: build-fuzz/out/duet-fuzz-*
#   CC=afl-clang-fast CXX=afl-clang-fast++ \
#   LIB_FUZZING_ENGINE=-fsanitize=fuzzer tests/fuzz/targets/build.sh   # AFL++ (its libFuzzer driver)
set -eu
SRC_DIR=$(cd "$(dirname "$0")/../../.." && pwd)
: "${CC:=clang}"
: "${CXX:=clang++}"
: "${CXXFLAGS:=-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer,address,undefined}"
BUILD=${DUET_FUZZ_BUILD:-$SRC_DIR/build-fuzz}
: "${OUT:=$BUILD/out}"
JOBS=$(nproc 2>/dev/null || echo 2)

cmake -S "$SRC_DIR" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DDUET_BUILD_TESTS=OFF -DDUET_BUILD_BENCH=OFF -DDUET_BUILD_DEMO=OFF \
  -DDUET_FUZZ_TARGETS=ON -DDUET_LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" >/dev/null
cmake --build "$BUILD" --target duet-fuzz-targets -j "$JOBS" >"$BUILD/fuzz-build.log" 2>&1 || {
  tail -n 40 "$BUILD/fuzz-build.log"
  exit 1
}
mkdir -p "$OUT"
for bin in "$BUILD"/bin/duet-fuzz-*; do
  name=$(basename "$bin")
  cp "$bin" "$OUT/"
  corpus="$SRC_DIR/tests/fuzz/targets/corpus/${name#duet-fuzz-}"
  if [ -d "$corpus" ] && command -v zip >/dev/null 2>&1; then
    rm -f "$OUT/${name}_seed_corpus.zip"
    (cd "$corpus" && zip -q -j "$OUT/${name}_seed_corpus.zip" ./*)
  fi
done
echo "duet: fuzz targets in $OUT:"
ls "$OUT"
