#!/usr/bin/env bash
# Every negative test on threads, RUNS times each (default 20), with a busy loop on every CPU
# for the whole run (the loops stop when the script ends, however it ends). Each run must find
# its counterexample within the test's default budget. Prints a Markdown table: runs found,
# trials (median, max) and seconds per run (median, max).
#
#   tests/soak/negative_under_load.sh build/bin/duet_negative_tests [RUNS] [LOOPS]
#   make soak-loaded
#   DUET_EXECUTOR=fibers tests/soak/negative_under_load.sh build/bin/duet_negative_fiber_tests 20 0
#     (the same suite on fibers, no busy loop: docs/parallel.md's table of it)
#   GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=0 tests/soak/negative_under_load.sh ...   (a quarter)
set -u
binary=${1:?usage: negative_under_load.sh TEST_BINARY [RUNS] [LOOPS]}
runs=${2:-20}
loops=${3:-$(nproc)}
[ -x "$binary" ] || { echo "negative_under_load.sh: $binary: not an executable" >&2; exit 2; }

pids=()
stop_loops() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap stop_loops EXIT INT TERM
for _ in $(seq "$loops"); do (while :; do :; done) & pids+=($!); done

# Thread negatives only: fiber negatives are deterministic and do not care about load.
# GoogleTest's sharding variables pick this run's tests as GoogleTest would (the i-th listed test
# goes to shard i modulo the count); each test then runs alone, unsharded.
shards=${GTEST_TOTAL_SHARDS:-1} shard=${GTEST_SHARD_INDEX:-0}
unset GTEST_TOTAL_SHARDS GTEST_SHARD_INDEX
tests=$("$binary" --gtest_list_tests | awk '/^[^ ]/ {suite=$1} /^  / {print suite $1}' |
        grep -v -e '^FiberUnsafe' -e DISABLED_ | awk -v n="$shards" -v i="$shard" '(NR - 1) % n == i')
log=$(mktemp)
failed=0
echo "| test | found | trials (median / max) | seconds (median / max) |"
echo "|---|---|---|---|"
for t in $tests; do
  "$binary" --gtest_filter="$t" --gtest_repeat="$runs" --gtest_brief=0 >"$log" 2>&1
  if grep -q "\[  SKIPPED \] $t" "$log"; then continue; fi
  found=$(grep -c "^\[       OK \] $t" "$log")
  trials=$(grep -o "unsafe, as expected: a counterexample after [0-9,]* programs\?, [0-9,]* trials\?" "$log" |
           sed 's/.*, \([0-9,]*\) trials\?$/\1/; s/,//g' | sort -n)
  ms=$(grep -o "^\[ *\(OK\|FAILED\) *\] $t ([0-9]* ms)" "$log" | sed 's/.*(\([0-9]*\) ms)/\1/' | sort -n)
  med() { awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }
  mx() { awk 'END {if (NR) print $1; else print "-"}'; }
  printf '| %s | %s/%s | %s / %s | %s / %s |\n' "$t" "$found" "$runs" \
    "$(echo "$trials" | grep . | med)" "$(echo "$trials" | grep . | mx)" \
    "$(echo "$ms" | grep . | awk '{printf "%.1f\n", $1/1000}' | med)" "$(echo "$ms" | grep . | awk '{printf "%.1f\n", $1/1000}' | mx)"
  [ "$found" = "$runs" ] || { failed=1; grep -B2 -A20 "FAILED\|expected a counterexample" "$log" | head -40 >&2; }
done
rm -f "$log"
exit $failed
