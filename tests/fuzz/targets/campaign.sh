#!/bin/sh
# make fuzz: a short bounded campaign with libFuzzer on the seed examples' fuzz targets. Each
# target runs until it finds its bug or for SECONDS; a crash file it writes is replayed through
# the ordinary test binary (DUET_REPLAY_FILE), which must print the same report. Prints a table;
# fails when Ed's persistent array is not found within 60 s or a replay's report differs.
#
#   tests/fuzz/targets/campaign.sh BUILD_DIR FUZZ_OUT_DIR [SECONDS]
set -u
BUILD=$(cd "$1" && pwd)
OUT=$(cd "$2" && pwd)
SECONDS_EACH=${3:-30}
WORK=$(mktemp -d /tmp/duet-fuzz-campaign.XXXXXX)
REPLAY_BIN=$BUILD/bin/duet_fuzz_targets_tests
SRC_DIR=$(cd "$(dirname "$0")/../../.." && pwd)
status=0

# The report a run printed: from "duet: NAME: failed" to the line before the time line.
report_of() {
  # Without the timing line and the replay's own line ("  replayed:   DUET_REPLAY_FILE=...: failed").
  sed -n '/^duet: [^ ].*: failed/,/^  time:/p' "$1" | grep -v -e '^  time:' -e '^  replayed:'
}

printf '| target | found | seconds | inputs run | shrunk to | replay gives the same report |\n|---|---|---|---|---|---|\n'
# DUET_CAMPAIGN_SHARDS=n DUET_CAMPAIGN_SHARD=i (make fuzz SHARDS=n SHARD=i): the i-th of every n
# targets of this list, for one job of a CI matrix.
index=0
for name in persistent-array ring-buffer patricia patricia-uniform racy-counter; do
  index=$((index + 1))
  [ $(((index - 1) % ${DUET_CAMPAIGN_SHARDS:-1})) = "${DUET_CAMPAIGN_SHARD:-0}" ] || continue
  bin=$OUT/duet-fuzz-$name
  test=$(echo "$name" | sed -E 's/(^|-)([a-z])/\U\2/g')
  dir=$WORK/$name
  mkdir -p "$dir/corpus"
  cp "$SRC_DIR/tests/fuzz/targets/corpus/$name/"* "$dir/corpus/"
  limit=$SECONDS_EACH
  [ "$name" = persistent-array ] && [ "$limit" -lt 60 ] && limit=60
  start=$(date +%s.%N)
  (cd "$dir" && "$bin" -max_total_time="$limit" -seed=1 -timeout=20 -rss_limit_mb=4096 -artifact_prefix="$dir/" corpus \
     >"$dir/fuzz.log" 2>&1)
  end=$(date +%s.%N)
  secs=$(echo "$end - $start" | bc)
  runs=$(grep -oE '^#[0-9]+' "$dir/fuzz.log" | tail -n 1 | tr -d '#')
  crash=$(ls "$dir"/crash-* 2>/dev/null | head -n 1)
  if [ -z "$crash" ]; then
    printf '| %s | no | %.1f | %s | | |\n' "$name" "$secs" "${runs:-?}"
    if [ "$name" = persistent-array ]; then status=1; fi
    continue
  fi
  report_of "$dir/fuzz.log" >"$dir/fuzz.report"
  (cd "$dir" && DUET_REPLAY_FILE="$crash" "$REPLAY_BIN" --gtest_filter="FuzzReplay.$test" >"$dir/replay.log" 2>&1)
  report_of "$dir/replay.log" >"$dir/replay.report"
  steps=$(head -n 1 "$dir/fuzz.report" | grep -oE 'shrunk to [0-9]+ [a-z]+' | sed 's/shrunk to //')
  if [ -s "$dir/fuzz.report" ] && cmp -s "$dir/fuzz.report" "$dir/replay.report"; then same=yes; else same=NO; status=1; fi
  printf '| %s | yes | %.1f | %s | %s | %s |\n' "$name" "$secs" "${runs:-?}" "$steps" "$same"
  if [ "$same" = NO ]; then
    echo "--- the fuzzer's report:"; cat "$dir/fuzz.report"; echo "--- the replay's:"; cat "$dir/replay.log"
  fi
done
echo "(logs and crash files in $WORK)"
exit $status
