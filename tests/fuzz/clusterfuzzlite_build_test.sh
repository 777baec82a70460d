#!/usr/bin/env bash
# Fuzz.ClusterFuzzLiteBuild: .clusterfuzzlite/build.sh run as ClusterFuzzLite's and OSS-Fuzz's
# builder runs it (their variables, AddressSanitizer's and libFuzzer's flags as the builder sets
# them, the sources at $SRC/duet and the script at $SRC/build.sh), outside the image; then the
# checks their "bad build check" makes, and more. Each target of continuous.txt is in $OUT, and
# only those, with a seed corpus (the parsers' with their dictionary), instrumented for coverage
# and ASan, loading no Boost library at run time (the runner image has none); each runs its seed
# corpus and 500 fuzzed inputs without a failure (a correct twin that fails is a false report of
# duet's). Then OSS-Fuzz's build.sh (tests/fuzz/oss-fuzz/) gives the same $OUT. Exit 77
# (skipped) where clang cannot build libFuzzer targets.
#
#   tests/fuzz/clusterfuzzlite_build_test.sh SOURCE_DIR SCRATCH_DIR
set -euo pipefail
src=$(cd "${1:?usage: clusterfuzzlite_build_test.sh SOURCE_DIR SCRATCH_DIR}" && pwd)
scratch=${2:?usage: clusterfuzzlite_build_test.sh SOURCE_DIR SCRATCH_DIR}
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)

skip() { echo "skipped: $*"; exit 77; }
command -v clang++ >/dev/null 2>&1 || skip "clang++ is not installed (Debian: apt-get install clang)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (it packs and unpacks the seed corpora)"
probe=$scratch/probe
mkdir -p "$probe"
printf '%s\n' '#include <cstddef>' '#include <cstdint>' \
  'extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }' >"$probe/t.cpp"
clang++ -fsanitize=fuzzer,address "$probe/t.cpp" -o "$probe/t" >"$probe/log" 2>&1 ||
  skip "clang++ cannot link a libFuzzer target: $(head -n 1 "$probe/log") (Debian: apt-get install libclang-rt-14-dev)"

# The builder's variables (OSS-Fuzz's infra/base-images: base-builder, SANITIZER=address,
# FUZZING_ENGINE=libfuzzer), but for -stdlib=libc++, which the builder adds for C++: it builds
# Boost.Context from sources with that library (the Dockerfile), while here the targets link
# Debian's, built with libstdc++ (build.sh refuses that mix and says why).
# $SRC holds a link to the sources: outside them (a scratch directory in a build tree inside the
# sources would put a link to the sources within them, which CMake's globs then follow).
SRC=$(mktemp -d "${TMPDIR:-/tmp}/duet-cflite-src.XXXXXX")
trap 'rm -rf "$SRC"' EXIT
export SRC WORK=$scratch/work OUT=$scratch/out
export CC=clang CXX=clang++ SANITIZER=address FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64 FUZZING_LANGUAGE=c++
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS=$CFLAGS
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
# $WORK from scratch too, as the services build: its CMake cache names the last run's $SRC, a
# temporary directory that is gone (a second run in one build tree failed on it).
rm -rf "$OUT" "$WORK" "$scratch/src"
mkdir -p "$WORK" "$OUT"
ln -s "$src" "$SRC/duet"                       # the image's layout: COPY . $SRC/duet
cp "$src/.clusterfuzzlite/build.sh" "$SRC/"    # COPY .clusterfuzzlite/build.sh $SRC/
(cd "$SRC/duet" && "$SRC/build.sh") >"$scratch/build.log" 2>&1 || { tail -n 60 "$scratch/build.log"; exit 1; }

failed=0
fail() { echo "FAILED: $*"; failed=1; }
mapfile -t expected < <(grep -v -e '^#' -e '^$' "$src/tests/fuzz/targets/continuous.txt")
for bin in "$OUT"/duet-fuzz-*; do
  case $bin in *.zip | *.dict) continue ;; esac
  printf '%s\n' "${expected[@]}" | grep -qx "$(basename "$bin")" || fail "$(basename "$bin") is in \$OUT but not in continuous.txt"
done
for target in "${expected[@]}"; do
  bin=$OUT/$target
  [ -x "$bin" ] || { fail "$target is not in \$OUT"; continue; }
  [ -s "${bin}_seed_corpus.zip" ] || { fail "$target has no seed corpus (${target}_seed_corpus.zip)"; continue; }
  grep -q __sanitizer_cov "$bin" || fail "$target is not instrumented for coverage"
  grep -q __asan_report "$bin" || fail "$target is not built with AddressSanitizer"
  if ldd "$bin" | grep -i boost; then fail "$target loads a Boost library at run time"; fi
  corpus=$scratch/corpus/$target
  rm -rf "$corpus" && mkdir -p "$corpus"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "${bin}_seed_corpus.zip" "$corpus"
  inputs=$(find "$corpus" -type f | wc -l)
  dict=()
  [ -f "$bin.dict" ] && dict=(-dict="$bin.dict")
  # The seed corpus, then 500 inputs libFuzzer makes from it (seed 1: the same inputs each run),
  # new ones kept out of the corpus (a scratch directory first).
  rm -rf "$scratch/new/$target" && mkdir -p "$scratch/new/$target"
  if ! (cd "$scratch" && "$bin" -runs=500 -seed=1 -timeout=25 -rss_limit_mb=2560 "${dict[@]}" \
          -artifact_prefix="$scratch/$target-" "$scratch/new/$target" "$corpus" >"$scratch/$target.log" 2>&1); then
    tail -n 40 "$scratch/$target.log"
    fail "$target failed on its seed corpus or on a fuzzed input (log: $scratch/$target.log)"
  elif ! grep -qE 'INITED cov: [1-9]' "$scratch/$target.log"; then
    fail "$target ran without coverage: $(grep -m1 INITED "$scratch/$target.log")"
  else
    echo "$target: $inputs seed inputs and 500 fuzzed, passed; $(grep -oE 'INITED cov: [0-9]+' "$scratch/$target.log" | head -n 1)"
  fi
done
[ -s "$OUT/duet-fuzz-history-parse.dict" ] || fail "the parsers' dictionary is not in \$OUT"

# OSS-Fuzz's project: its build.sh is the same step (so the same targets, rebuilt incrementally).
before=$(cd "$OUT" && ls | sort)
(cd "$SRC/duet" && "$src/tests/fuzz/oss-fuzz/build.sh") >"$scratch/oss-fuzz-build.log" 2>&1 ||
  { tail -n 40 "$scratch/oss-fuzz-build.log"; fail "tests/fuzz/oss-fuzz/build.sh failed"; }
[ "$(cd "$OUT" && ls | sort)" = "$before" ] || fail "OSS-Fuzz's build.sh gives other files in \$OUT than ClusterFuzzLite's"
[ "$failed" = 0 ] && echo "the ClusterFuzzLite and OSS-Fuzz builds give the ${#expected[@]} targets of continuous.txt, each passing its seed corpus and 500 fuzzed inputs"
exit "$failed"
