#!/bin/sh
# Time for libFuzzer to find the Patricia tree's signed-mask union with keys drawn without edge
# bias (the target duet-fuzz-patricia-uniform), ten runs (-seed=1..10), each at most
# MAX_SECONDS; prints each run and the median. Build the targets first:
#   tests/fuzz/targets/build.sh && bench/fuzz_patricia.sh [TARGET] [MAX_SECONDS]
set -u
SRC_DIR=$(cd "$(dirname "$0")/.." && pwd)
TARGET=$(realpath "${1:-$SRC_DIR/build-fuzz/out/duet-fuzz-patricia-uniform}")
MAX_SECONDS=${2:-120}
WORK=$(mktemp -d /tmp/duet-fuzz-patricia.XXXXXX)
times=""
for seed in 1 2 3 4 5 6 7 8 9 10; do
  dir=$WORK/$seed
  mkdir -p "$dir/corpus"
  cp "$SRC_DIR/tests/fuzz/targets/corpus/patricia-uniform/"* "$dir/corpus/"
  start=$(date +%s.%N)
  (cd "$dir" && "$TARGET" -seed="$seed" -max_total_time="$MAX_SECONDS" -artifact_prefix="$dir/" corpus >"$dir/log" 2>&1)
  end=$(date +%s.%N)
  if ls "$dir"/crash-* >/dev/null 2>&1; then t=$(echo "$end - $start" | bc); else t=missed; fi
  echo "seed $seed: $t"
  times="$times $t"
done
echo "$times" | tr ' ' '\n' | grep -v '^$' | grep -v missed | sort -n | awk -v all=10 '
  { v[NR] = $1 } END {
    if (NR == 0) { print "median: none found"; exit }
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "found %d of %d; median %.1f s (of those found); max %.1f s\n", NR, all, m, v[NR] }'
echo "(logs in $WORK)"
