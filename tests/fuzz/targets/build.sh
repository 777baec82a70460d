#!/bin/sh
# Builds duet's fuzz targets the way OSS-Fuzz builds a project: the compiler and flags come from
# $CC, $CXX, $CFLAGS, $CXXFLAGS, the fuzzing engine from $LIB_FUZZING_ENGINE, and the binaries,
# their seed corpora (<target>_seed_corpus.zip) and dictionaries (<target>.dict) go to $OUT.
# Without those variables it builds for libFuzzer with Debian's clang, AddressSanitizer and
# UBSan, into build-fuzz/. ClusterFuzzLite and OSS-Fuzz run it through .clusterfuzzlite/build.sh.
#
#   tests/fuzz/targets/build.sh                      # local: build-fuzz/out/duet-fuzz-*
#   CC=afl-clang-fast CXX=afl-clang-fast++ \
#   LIB_FUZZING_ENGINE=-fsanitize=fuzzer tests/fuzz/targets/build.sh   # AFL++ (its libFuzzer driver)
set -eu
SRC_DIR=$(cd "$(dirname "$0")/../../.." && pwd -P)
: "${CC:=clang}"
: "${CXX:=clang++}"
: "${CXXFLAGS:=-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer,address,undefined}"
BUILD=${DUET_FUZZ_BUILD:-$SRC_DIR/build-fuzz}
: "${OUT:=$BUILD/out}"
JOBS=$(nproc 2>/dev/null || echo 2)

mkdir -p "$BUILD"
# Boost.Context linked statically: a fuzzing service runs the binaries in another image, which
# has no Boost (BOOST_ROOT, when set, names a Boost built for these flags: .clusterfuzzlite/).
cmake -S "$SRC_DIR" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_FLAGS="${CFLAGS:-}" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DDUET_BUILD_TESTS=OFF -DDUET_BUILD_BENCH=OFF -DDUET_BUILD_DEMO=OFF -DDUET_BUILD_CLI=OFF -DDUET_INSTALL=OFF \
  -DBoost_USE_STATIC_LIBS=ON ${BOOST_ROOT:+-DBoost_ROOT="$BOOST_ROOT"} \
  -DDUET_FUZZ_TARGETS=ON -DDUET_LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" >"$BUILD/configure.log" 2>&1 || {
  tail -n 40 "$BUILD/configure.log"
  exit 1
}
cmake --build "$BUILD" --target duet-fuzz-targets -j "$JOBS" >"$BUILD/fuzz-build.log" 2>&1 || {
  tail -n 40 "$BUILD/fuzz-build.log"
  exit 1
}

# seed_corpus ZIP DIR...: every file under the DIRs into ZIP, named by its path (two files of one
# name in different folders both kept), as <target>_seed_corpus.zip wants it.
seed_corpus() {
  zip_file=$1
  shift
  rm -f "$zip_file"
  if command -v python3 >/dev/null 2>&1; then
    python3 - "$zip_file" "$@" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for top in sys.argv[2:]:
        for root, _, files in sorted(os.walk(top)):
            for f in sorted(files):
                path = os.path.join(root, f)
                z.write(path, os.path.relpath(path, os.path.dirname(top)).replace(os.sep, "_"))
PY
  elif command -v zip >/dev/null 2>&1; then
    zip -q -r "$zip_file" "$@"
  else
    echo "duet: no seed corpus for $(basename "$zip_file"): neither python3 nor zip is installed" >&2
  fi
}

# DUET_FUZZ_SET=continuous: only the targets of continuous.txt go to $OUT (a fuzzing service's
# build: the seed examples' planted bugs left out); otherwise every target.
mkdir -p "$OUT"
for bin in "$BUILD"/bin/duet-fuzz-*; do
  name=$(basename "$bin")
  if [ "${DUET_FUZZ_SET:-all}" = continuous ] && ! grep -qx "$name" "$SRC_DIR/tests/fuzz/targets/continuous.txt"; then
    continue
  fi
  cp "$bin" "$OUT/"
  case $name in
    duet-fuzz-history-parse)
      seed_corpus "$OUT/${name}_seed_corpus.zip" "$SRC_DIR/tests/data/histories" "$SRC_DIR/tests/checker/data"
      cp "$SRC_DIR/tests/fuzz/edn.dict" "$OUT/$name.dict" ;;
    *)
      # A correct twin starts from its example's corpus: the same spec's choices.
      example=${name#duet-fuzz-}
      example=${example#fixed-}
      [ "$example" = atomic-counter ] && example=racy-counter
      corpus="$SRC_DIR/tests/fuzz/targets/corpus/$example"
      [ -d "$corpus" ] && seed_corpus "$OUT/${name}_seed_corpus.zip" "$corpus" ;;
  esac
done
echo "duet: fuzz targets in $OUT:"
ls "$OUT"
