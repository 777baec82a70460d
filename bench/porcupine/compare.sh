#!/usr/bin/env bash
# duet-check against Porcupine, in the same run, on the histories both read: Jepsen's etcd logs
# and Porcupine's kv logs, from a Porcupine checkout (its test_data/). Porcupine is built from
# that checkout's sources with bench/porcupine/main.go (Go needed; without it this says so and
# exits 0). The two tools take turns, ROUNDS times; each file's best time per tool is kept:
#
#   bench/porcupine/compare.sh PORCUPINE_DIR [DUET_CHECK] [ROUNDS]
#   bench/porcupine/compare.sh ~/src/porcupine build/bin/duet-check 3
#
# Prints a row per file (both verdicts, which must agree, the times and Porcupine's time over
# duet's), then the rows both took more than 20 ms to decide, and how many of those duet decided
# at least twice as fast. Exit status: 0, or 1 when a verdict differs.
set -euo pipefail
porcupine=${1:?usage: compare.sh PORCUPINE_DIR [DUET_CHECK] [ROUNDS]}
here=$(cd "$(dirname "$0")" && pwd)
duet_check=${2:-$here/../../build/bin/duet-check}
rounds=${3:-3}
if ! command -v go >/dev/null 2>&1; then
  echo "compare.sh: skipped: Go is not installed (Debian: apt-get install golang-go); Porcupine is built from its sources"
  exit 0
fi
[ -x "$duet_check" ] || { echo "compare.sh: no duet-check at $duet_check (build it: cmake --build build --target duet-check)" >&2; exit 2; }
[ -d "$porcupine/test_data" ] || { echo "compare.sh: $porcupine has no test_data/ (a Porcupine checkout?)" >&2; exit 2; }
porcupine=$(cd "$porcupine" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/main.go" "$here/go.mod" "$work/"
(cd "$work" && go mod edit -replace "github.com/anishathalye/porcupine=$porcupine" &&
  GOFLAGS=-mod=mod GOPROXY=off go build -o porcupine-times .)
# The histories (an empty file is unreadable to duet-check and linearizable to Porcupine: left out).
files=()
for f in "$porcupine"/test_data/jepsen/*.log "$porcupine"/test_data/kv/*.txt; do
  [ -s "$f" ] && files+=("$f")
done
for r in $(seq 1 "$rounds"); do
  "$duet_check" --quiet "${files[@]}" | grep -P '\t' > "$work/duet.$r" || true
  "$work/porcupine-times" "${files[@]}" > "$work/porcupine.$r"
done
python3 - "$work" "$rounds" "$porcupine/test_data/" <<'PY'
import sys
work, rounds, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def best(tool):
    rows = {}
    for r in range(1, rounds + 1):
        for line in open(f"{work}/{tool}.{r}"):
            name, verdict, ms = line.rstrip("\n").split("\t")
            v, t = rows.get(name, (verdict, float("inf")))
            rows[name] = (verdict if v == verdict else "DISAGREE", min(t, float(ms)))
    return rows
duet, porc = best("duet"), best("porcupine")
differ, slow, ahead = 0, [], 0
print(f"{'file':<22} {'verdict':<17} {'duet ms':>9} {'Porcupine ms':>13} {'Porcupine/duet':>15}")
for name in sorted(duet):
    dv, dt = duet[name]
    pv, pt = porc.get(name, ("missing", float("nan")))
    mark = "" if dv == pv else f"  VERDICTS DIFFER: Porcupine {pv}"
    differ += dv != pv
    ratio = pt / dt if dt > 0 else float("inf")
    print(f"{name.replace(prefix, ''):<22} {dv:<17} {dt:>9.1f} {pt:>13.1f} {ratio:>14.1f}×{mark}")
    if dt > 20 and pt > 20:
        slow.append((name.replace(prefix, ""), ratio))
        ahead += ratio >= 2
print(f"\n{len(duet)} files, {rounds} rounds (best time of each tool per file)")
print(f"rows both decided in more than 20 ms: {len(slow)}; duet at least 2× faster on {ahead}")
for name, ratio in slow:
    print(f"  {name}: {ratio:.1f}×")
sys.exit(1 if differ else 0)
PY
