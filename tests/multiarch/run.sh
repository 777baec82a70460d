#!/usr/bin/env bash
# make multiarch [ARCHS="arm64 ppc64el s390x"]: cross-builds duet and its test suite for each
# Debian architecture and runs the suite under qemu-user. As root on Debian 12 it installs what
# it needs (crossbuild-essential-<arch>, qemu-user, the <arch> -dev packages duet builds on);
# otherwise it says what to install. Results: build-multiarch/<arch>/result.txt and a summary
# on stdout; docs/multiarch.md records them.
#
# What runs and what does not (docs/multiarch.md):
#   - every label but `consumer` (projects built natively against duet; nothing to learn from
#     an emulated compiler run) and the timeline browser test (Chromium on the host reads the
#     page; the page is not architecture-specific);
#   - wall-clock expectations in tests are multiplied by DUET_TEST_TIME_SCALE (emulated code runs
#     10 to 40 times slower); duet's own budgets (DUET_TIME defaults) are left as they are, so
#     the negative tests on threads must find their races in their default budgets under qemu.
set -euo pipefail
cd "$(dirname "$0")/../.."
ARCHS=${ARCHS:-"arm64 ppc64el s390x"}
OUT=${MULTIARCH_DIR:-build-multiarch}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
SCALE=${DUET_TEST_TIME_SCALE:-10}

triple_of() {
  case "$1" in
    arm64) echo aarch64-linux-gnu ;;
    ppc64el) echo powerpc64le-linux-gnu ;;
    s390x) echo s390x-linux-gnu ;;
    armhf) echo arm-linux-gnueabihf ;;
    riscv64) echo riscv64-linux-gnu ;;
    *) echo "multiarch: unknown architecture '$1' (known: arm64 ppc64el s390x armhf riscv64)" >&2; exit 2 ;;
  esac
}

packages_for() {
  local a=$1
  echo "crossbuild-essential-$a libboost-context-dev:$a libtbb-dev:$a libgtest-dev:$a libgmock-dev:$a"
}

install_packages() {
  local missing="" want="qemu-user cmake make g++"
  for a in $ARCHS; do want="$want $(packages_for "$a")"; done
  for p in $want; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "multiarch: missing Debian packages:$missing" >&2
    echo "  as root: dpkg --add-architecture <arch> for each of: $ARCHS; apt-get update; apt-get install$missing" >&2
    exit 1
  fi
  echo "multiarch: installing$missing"
  for a in $ARCHS; do dpkg --add-architecture "$a"; done
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

for a in $ARCHS; do triple_of "$a" >/dev/null; done
install_packages
mkdir -p "$OUT"
summary=""
status=0
for a in $ARCHS; do
  triple=$(triple_of "$a")
  dir="$OUT/$a"
  start=$(date +%s)
  echo "multiarch: $a ($triple): building in $dir/ (log: $dir/build.log)"
  mkdir -p "$dir"
  if ! { cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/debian-cross.cmake" \
           -DDUET_CROSS_TRIPLE="$triple" -DCMAKE_BUILD_TYPE=Release \
           -DDUET_BUILD_BENCH=OFF -DDUET_BUILD_DEMO=OFF &&
         cmake --build "$dir" -j "$JOBS"; } > "$dir/build.log" 2>&1; then
    tail -n 40 "$dir/build.log"
    summary="$summary\n  $a: build failed ($dir/build.log)"
    status=1
    continue
  fi
  built=$(date +%s)
  echo "multiarch: $a: running the suite under qemu-user (log: $dir/test.log)"
  set +e
  (cd "$dir" && DUET_TEST_TIME_SCALE=$SCALE ctest --output-on-failure -j "$JOBS" --timeout 900 \
     -LE consumer -E '^Timeline\.') > "$dir/test.log" 2>&1
  rc=$?
  set -e
  end=$(date +%s)
  line=$(grep -E "tests passed|No tests were found" "$dir/test.log" | tail -n 1)
  result="$a: ${line:-no summary} (build $((built - start)) s, tests $((end - built)) s, $(uname -m) host, $JOBS jobs)"
  echo "$result" > "$dir/result.txt"
  sed -n '/The following tests FAILED/,$p' "$dir/test.log" >> "$dir/result.txt"
  summary="$summary\n  $result"
  if [ $rc -ne 0 ]; then
    status=1
    sed -n '/The following tests FAILED/,$p' "$dir/test.log"
  fi
done
printf "multiarch summary:%b\n" "$summary"
exit $status
