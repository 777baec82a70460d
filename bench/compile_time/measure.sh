#!/usr/bin/env bash
# Compile-time measurement for issue 8: how much longer a one-test file using duet takes to
# compile than the same file with plain GoogleTest.
#
#   bench/compile_time/measure.sh [-n N] [SOURCE_ROOT]
#   bench/compile_time/measure.sh -i [SOURCE_ROOT]
#
# SOURCE_ROOT is the duet tree whose headers are measured (its include/ and models/); default:
# this script's ../.. . The test files are the *.cpp next to this script, so the same cases can
# be measured against two trees (before and after a change). Each case is compiled N times
# (default 5, or $N), rounds interleaved (a, b, c, ..., a, b, c, ...) so that load on a shared
# machine falls on every case alike; the table gives medians and the ratio to case a (plain
# GoogleTest) from the same run.
#
# -i: instead of timing, compile each case once under valgrind's cachegrind (no cache
# simulation) and count the instructions the compiler runs (driver, compiler proper and
# assembler): a figure that does not depend on the machine's load and comes out the same on
# another day with the same compiler (about 40 s per case; needs valgrind).
#
# Environment: CXX (default g++), N, CXXFLAGS_EXTRA (appended to the flags),
# GTEST_INCLUDE (GoogleTest's include directory; Debian's libgtest-dev puts it in /usr/include,
# already on the default search path, so it is added only when it is another directory).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
n="${N:-5}"
instructions=0
while getopts "n:ih" opt; do
  case "$opt" in
    n) n="$OPTARG" ;;
    i) instructions=1 ;;
    h) sed -n '2,22p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
root="$(cd "${1:-$here/../..}" && pwd)"
cxx="${CXX:-g++}"
gtest_include="${GTEST_INCLUDE:-/usr/include}"

[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "measure.sh: N must be a positive integer, got '$n'" >&2; exit 2; }
[[ -f "$root/include/duet/duet.hpp" ]] || { echo "measure.sh: $root has no include/duet/duet.hpp" >&2; exit 2; }

flags=(-std=c++20 -O2 -I"$root/include" -I"$root/models")
case "$gtest_include" in
  /usr/include | /usr/local/include) ;;  # default search path; -I here would reorder system dirs
  *) flags+=(-I"$gtest_include") ;;
esac
# shellcheck disable=SC2206
[[ -n "${CXXFLAGS_EXTRA:-}" ]] && flags+=(${CXXFLAGS_EXTRA})

mapfile -t sources < <(find "$here" -maxdepth 1 -name '*.cpp' | LC_ALL=C sort)
[[ ${#sources[@]} -gt 0 ]] || { echo "measure.sh: no *.cpp in $here" >&2; exit 2; }
baseline="a_plain_gtest"
[[ -f "$here/$baseline.cpp" ]] || { echo "measure.sh: the baseline $baseline.cpp is missing" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

compile() {  # compile SRC OBJ: exits on a compile error, with the compiler's message
  if ! "$cxx" "${flags[@]}" -c "$1" -o "$2" 2>"$work/err"; then
    echo "measure.sh: $(basename "$1") does not compile against $root:" >&2
    cat "$work/err" >&2
    exit 1
  fi
}

echo "measure.sh: root $root, $("$cxx" --version | head -1), N=$n, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "flags: ${flags[*]} -c" >&2

# Warm-up (page cache, and a check that every case compiles), and the preprocessed sizes.
declare -A lines
for src in "${sources[@]}"; do
  name="$(basename "$src" .cpp)"
  compile "$src" "$work/$name.o"
  lines[$name]="$("$cxx" "${flags[@]}" -E "$src" | wc -l)"
done

if ((instructions)); then
  command -v valgrind >/dev/null || { echo "measure.sh: -i needs valgrind" >&2; exit 2; }
  count() {  # instructions of every process the compile runs, summed
    valgrind --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file=/dev/null \
      "$cxx" "${flags[@]}" -c "$1" -o "$work/counted.o" 2>&1 |
      awk '/I *refs:/ { gsub(",", "", $NF); total += $NF } END { printf "%.0f", total }'
  }
  declare -A counts
  for src in "${sources[@]}"; do
    name="$(basename "$src" .cpp)"
    counts[$name]="$(count "$src")"
    [[ "${counts[$name]}" -gt 0 ]] || { echo "measure.sh: valgrind counted nothing for $name" >&2; exit 1; }
  done
  echo "| case | instructions (G) | ratio to plain gtest | preprocessed lines |"
  echo "|---|---:|---:|---:|"
  for src in "${sources[@]}"; do
    name="$(basename "$src" .cpp)"
    awk -v name="$name" -v c="${counts[$name]}" -v b="${counts[$baseline]}" -v l="${lines[$name]}" \
      'BEGIN { printf "| %s | %.3f | %.3f | %d |\n", name, c / 1e9, c / b, l }'
  done
  exit 0
fi

# Timed rounds, interleaved. Wall-clock seconds (and user+sys CPU seconds, less sensitive to
# other processes competing for the cores) of each compile, appended to one file per case.
TIMEFORMAT='%R %U %S'
for ((round = 1; round <= n; round++)); do
  for src in "${sources[@]}"; do
    name="$(basename "$src" .cpp)"
    { time compile "$src" "$work/$name.o"; } 2>>"$work/$name.times"
  done
  echo "round $round/$n done" >&2
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

median() {  # median of column $1 (1 = wall, 2 = user+sys) of file $2
  awk -v c="$1" '{ print (c == 1 ? $1 : $2 + $3) }' "$2" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.3f", v[(NR + 1) / 2]; else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

base_wall="$(median 1 "$work/$baseline.times")"
base_cpu="$(median 2 "$work/$baseline.times")"
echo "| case | median s | ratio to plain gtest | median CPU s | CPU ratio | preprocessed lines |"
echo "|---|---:|---:|---:|---:|---:|"
for src in "${sources[@]}"; do
  name="$(basename "$src" .cpp)"
  wall="$(median 1 "$work/$name.times")"
  cpu="$(median 2 "$work/$name.times")"
  awk -v name="$name" -v w="$wall" -v c="$cpu" -v bw="$base_wall" -v bc="$base_cpu" -v l="${lines[$name]}" \
    'BEGIN { printf "| %s | %.2f | %.2f (%+.0f%%) | %.2f | %.2f | %d |\n", name, w, w / bw, (w / bw - 1) * 100, c, c / bc, l }'
done
