#!/bin/sh
# A newcomer's timings, from a fresh clone, without a compiler cache (the figures of
# docs/benchmarks.md, "A newcomer's first hour"; the Debian packages must be installed):
#   - `make demo`: seconds to the demo's first check, and to its last line;
#   - each of README.md's routes: seconds from configuring a project of one's own to its first
#     red test (tests/consumer/first_red, through run_consumer.cmake with ONLY_FIRST_RED). The
#     installed routes first need duet's installed targets built (timed apart); the embedded ones
#     compile the duet libraries the test links.
#   tests/consumer/measure_routes.sh <duet checkout> <scratch directory> [c++ compiler]
set -u
src=$(cd "$1" && pwd)
work=$2
cxx=${3:-g++}
export CCACHE_DISABLE=1
rm -rf "$work" && mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd)
git clone -q "$src" "$work/duet" || exit 1
build="$work/build"

now() { date +%s.%N; }
since() { echo "$(now) $1" | awk '{ printf "%.0f", $1 - $2 }'; }

# make demo: the time to each line is taken as the line arrives.
start=$(now)
first=""
make -C "$work/duet" --no-print-directory demo BUILD="$build" JOBS=2 2>&1 | while IFS= read -r line; do
  printf '%s\n' "$line" >> "$work/demo.log"
  case $line in
    "duet: building"*) echo "make demo: the build starts after $(since "$start") s: $line" ;;
    "-- 1."*) [ -z "$first" ] && first=1 && echo "make demo: first check after $(since "$start") s" ;;
    *"demo ok") echo "make demo: last line after $(since "$start") s" ;;
  esac
done
grep -q "demo ok" "$work/demo.log" || { echo "the demo did not finish"; tail -n 30 "$work/demo.log"; exit 1; }

start=$(now)
cmake --build "$build" -j 2 --target duet-installed > "$work/installed.log" 2>&1 || { tail -n 30 "$work/installed.log"; exit 1; }
echo "installed targets built (after make demo): $(since "$start") s"

for route in find_package deb add_subdirectory fetch_content; do
  start=$(now)
  out=$(cmake -DKIND=$route -DCXX="$cxx" -DDUET_SOURCE="$work/duet" -DDUET_BUILD="$build" \
          -DWORK="$work/$route" -DONLY_FIRST_RED=ON -P "$work/duet/tests/consumer/run_consumer.cmake" 2>&1) \
    || { echo "$out"; exit 1; }
  echo "$route: $(since "$start") s to the first red test (install or unpack included); $(echo "$out" | grep -o 'first red test [0-9]* s from configure to report')"
done
rm -rf "$work"
