#!/bin/sh
# The cost of a change, before it lands: runs the benchmarks of two builds alternately (A B A B
# ..., so that a machine whose speed drifts slows both alike) and prints, per benchmark, each
# build's CPU time per round and the ratio NEW / BASE of the medians (above 1: NEW is slower).
#
#   bench/compare_trees.sh BASE NEW [-n ROUNDS] [-f FILTER]
#
# BASE and NEW are duet-bench binaries, or git revisions of this repository, each built in a
# worktree of its own under build-compare/ (Release, only the duet-bench target). ROUNDS
# defaults to 3, FILTER (a --benchmark_filter regex) to the sequential engine's hot path:
# 'BM_Throughput_(Duet|HandLoop)|BM_Shrink_RingBuffer_Duet'. For example, the cost of the last
# commit:
#
#   bench/compare_trees.sh HEAD~1 HEAD
set -eu

rounds=3
filter='BM_Throughput_(Duet|HandLoop)|BM_Shrink_RingBuffer_Duet'
base=''
new=''
while [ $# -gt 0 ]; do
  case "$1" in
    -n) rounds="$2"; shift 2 ;;
    -f) filter="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) if [ -z "$base" ]; then base="$1"; elif [ -z "$new" ]; then new="$1"; else echo "compare_trees.sh: unexpected argument: $1" >&2; exit 2; fi; shift ;;
  esac
done
if [ -z "$base" ] || [ -z "$new" ]; then
  echo "usage: bench/compare_trees.sh BASE NEW [-n ROUNDS] [-f FILTER] (binaries or git revisions)" >&2
  exit 2
fi
case "$rounds" in ''|*[!0-9]*) echo "compare_trees.sh: -n needs a number of rounds, not '$rounds'" >&2; exit 2 ;; esac

repo=$(cd "$(dirname "$0")/.." && pwd)
out="$repo/build-compare"
mkdir -p "$out"

# A binary as given, or the duet-bench of a revision, built once per commit.
binary_of() {
  if [ -x "$1" ] && [ -f "$1" ]; then
    echo "$1"
    return
  fi
  commit=$(git -C "$repo" rev-parse --verify --quiet "$1^{commit}") || {
    echo "compare_trees.sh: '$1' is neither an executable nor a git revision" >&2
    exit 2
  }
  tree="$out/$commit"
  if [ ! -x "$tree/build/bin/duet-bench" ]; then
    [ -d "$tree" ] || git -C "$repo" worktree add --detach "$tree" "$commit" >&2
    launcher=''
    command -v ccache >/dev/null 2>&1 && launcher='-DCMAKE_CXX_COMPILER_LAUNCHER=ccache'
    cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release $launcher >&2
    cmake --build "$tree/build" -j"$(nproc)" --target duet-bench >&2
  fi
  echo "$tree/build/bin/duet-bench"
}

a=$(binary_of "$base")
b=$(binary_of "$new")
results="$out/results.$$"
: >"$results"
trap 'rm -f "$results"' EXIT

i=1
while [ "$i" -le "$rounds" ]; do
  for side in A B; do
    if [ "$side" = A ]; then bin="$a"; else bin="$b"; fi
    # JSON, one field per line (CSV refuses benchmarks with different counters).
    "$bin" --benchmark_filter="$filter" --benchmark_format=json 2>/dev/null |
      awk -v side="$side" '
        function value(line) { sub(/^[^:]*: */, "", line); sub(/,$/, "", line); gsub(/"/, "", line); return line }
        /"name":/ { name = value($0) }
        /"cpu_time":/ { cpu = value($0) }
        /"time_unit":/ { printf "%s %s %.4g %s\n", side, name, cpu, value($0) }' >>"$results"
  done
  i=$((i + 1))
done

echo "BASE (A): $a"
echo "NEW  (B): $b"
echo "CPU time per round, A B alternating, $rounds rounds; ratio = median B / median A"
awk '
  function median(list,    n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  { key = $2; if (!(key in unit)) { order[++count] = key; unit[key] = $4 }
    if ($1 == "A") a[key] = a[key] " " $3; else b[key] = b[key] " " $3 }
  END {
    for (k = 1; k <= count; k++) {
      key = order[k]
      if (a[key] == "" || b[key] == "") { printf "%-34s missing in one build\n", key; continue }
      ma = median(a[key]); mb = median(b[key])
      printf "%-34s A:%s  B:%s %s  ratio %.3f\n", key, a[key], b[key], unit[key], (ma > 0 ? mb / ma : 0)
    }
  }' "$results"
