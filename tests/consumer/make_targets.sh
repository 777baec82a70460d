#!/bin/sh
# `make package` and `make demo` in a fresh clone build only what they need: after each, no
# object file of a test or a benchmark exists in the build directory, and each did its job
# (a .deb; the demo's last line). Skips (77) where the source is not a git checkout.
#   make_targets.sh <duet source> <scratch directory>
set -u
src=$1
work=$2
command -v git >/dev/null 2>&1 && git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work" || exit 1
git clone -q "$src" "$work/duet" || exit 1
build="$work/build"

no_test_objects() {
  found=$(cd "$build" && find . -name '*.o' | grep -E '^\./(tests|bench)/' | head -5)
  if [ -n "$found" ]; then
    echo "make $1 compiled test or benchmark sources:"
    echo "$found"
    exit 1
  fi
}

start=$(date +%s)
make -C "$work/duet" --no-print-directory package BUILD="$build" JOBS=2 > "$work/package.log" 2>&1 || { tail -n 40 "$work/package.log"; exit 1; }
ls "$build"/package/*.deb >/dev/null 2>&1 || { echo "make package made no .deb"; cat "$work/package.log"; exit 1; }
no_test_objects package
echo "make package: $(( $(date +%s) - start )) s"

start=$(date +%s)
make -C "$work/duet" --no-print-directory demo BUILD="$build" JOBS=2 > "$work/demo.log" 2>&1 || { tail -n 40 "$work/demo.log"; exit 1; }
grep -q "demo ok" "$work/demo.log" || { echo "the demo did not finish"; tail -n 40 "$work/demo.log"; exit 1; }
no_test_objects demo
echo "make demo (after make package): $(( $(date +%s) - start )) s"
rm -rf "$work"
