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
#   - the `racy_threads` label runs isolated (DUET_FORK=1), as in the asan-racy preset;
#   - wall-clock expectations in tests are multiplied by DUET_TEST_TIME_SCALE (emulated code runs
#     10 to 40 times slower), and duet's own wall-clock limits (the case time limit, the shrink
#     budget, the fiber stall limit) by DUET_TIME_SCALE; the search's budget (DUET_TIME defaults)
#     is left as it is, so the negative tests on threads must find their races in their default
#     budgets under qemu.
set -euo pipefail
cd "$(dirname "$0")/../.."
ARCHS=${ARCHS:-"arm64 ppc64el s390x"}
OUT=${MULTIARCH_DIR:-build-multiarch}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
SCALE=${DUET_TEST_TIME_SCALE:-10}
DUET_SCALE=${DUET_TIME_SCALE:-10}
# MULTIARCH_CONFIGURE_ONLY=1: install and configure only (a minute or two an architecture).
CONFIGURE_ONLY=${MULTIARCH_CONFIGURE_ONLY:-}
# ctest's limit per test under emulation: a check on threads that takes 30 s natively took 841 s
# under qemu-aarch64 beside another test (its threads contend for the cores), which is not a hang.
TEST_TIMEOUT=${MULTIARCH_TEST_TIMEOUT:-2700}
# MULTIARCH_CTEST_ARGS: more ctest options for both runs (split at blanks, no quotes), to rerun a
# part of the suite after a fix; the build is incremental:
#   MULTIARCH_CTEST_ARGS='-R ^Replays\.' make multiarch ARCHS=arm64
read -r -a CTEST_ARGS <<< "${MULTIARCH_CTEST_ARGS:-}"

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

# The target's -dev packages duet builds on (installed as :<arch>, or unpacked; see below).
target_packages() { echo "libboost-context-dev libtbb-dev libgtest-dev libgmock-dev"; }
# Unpacked instead of installed: those, what they need at run time, and the C library.
root_packages() {
  echo "libc6 libc6-dev linux-libc-dev libstdc++6 libgcc-s1 libatomic1 libboost-context1.74.0 libboost-context1.74-dev" \
       "libboost1.74-dev libboost-context-dev libtbb12 libtbb-dev libtbbmalloc2 libtbbbind-2-5 libhwloc15 libudev1" \
       "libgtest-dev libgmock-dev"
}
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
as_root() { [ "$(id -u)" = 0 ]; }
updated=""
apt_update() {
  # A foreign architecture's index can lag the mirror (a size mismatch while it syncs): go on
  # with what is there, and let the install say whether it is enough.
  [ -n "$updated" ] && return 0
  apt-get update -qq || echo "multiarch: apt-get update reported errors; going on with the indexes it has"
  updated=1
}

# Host tools: the cross compiler and qemu-user. Root installs them; otherwise they must be there.
host_tools() {
  local missing=""
  for p in qemu-user cmake make g++ "crossbuild-essential-$1"; do installed "$p" || missing="$missing $p"; done
  [ -z "$missing" ] && return 0
  if ! as_root; then
    echo "multiarch: missing Debian packages:$missing (install them as root)" >&2
    return 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt_update
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# The target's libraries: installed for <arch> (dpkg --add-architecture) when apt can, so the
# emulator's root is / ; otherwise unpacked into <dir>/root with dpkg-deb -x, which needs no
# consistent dependency closure (Debian's indexes for other architectures can lag the host's:
# libc6-dev:s390x then wants a linux-libc-dev:s390x version the mirror does not have yet).
# Prints the root to use.
target_root() {
  local a=$1 dir=$PWD/$2 missing=""
  for p in $(target_packages); do installed "$p:$a" || missing="$missing $p:$a"; done
  if [ -z "$missing" ]; then echo /; return 0; fi
  if as_root; then
    if ! dpkg --print-foreign-architectures | grep -qx "$a"; then
      dpkg --add-architecture "$a"
      updated=""  # an earlier update (for the host tools) fetched no index for $a
    fi
    apt_update >&2
    if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>"$dir/apt.log"; then
      echo /; return 0
    fi
    echo "multiarch: $a: apt cannot install$missing ($(grep -m1 -E '^E:|Depends' "$dir/apt.log" || true)); unpacking them into $dir/root instead" >&2
  elif ! dpkg --print-foreign-architectures | grep -qx "$a"; then
    echo "multiarch: $a: not a dpkg architecture here; as root: dpkg --add-architecture $a && apt-get update" >&2
    return 1
  fi
  rm -rf "$dir/root" "$dir/debs" && mkdir -p "$dir/root" "$dir/debs"
  local list=""
  for p in $(root_packages); do list="$list $p:$a"; done
  (cd "$dir/debs" && apt-get download $list >/dev/null 2>"$dir/download.log") || {
    echo "multiarch: $a: apt-get download failed: $(tail -n 1 "$dir/download.log")" >&2; return 1; }
  for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root"; done
  # A package's absolute symbolic links (libc6's /lib64/ld64.so.2 -> /lib/powerpc64le-linux-gnu/
  # ld64.so.2) point into the host's root: they are made to point into this one, where the
  # emulator and the cross linker look for what they name.
  local link target
  while IFS= read -r link; do
    target=$(readlink "$link")
    case "$target" in /*) ln -sfn "$dir/root$target" "$link" ;; esac
  done < <(find "$dir/root" -type l)
  echo "$dir/root"
}

for a in $ARCHS; do triple_of "$a" >/dev/null; done
mkdir -p "$OUT"
summary=""
status=0
for a in $ARCHS; do
  triple=$(triple_of "$a")
  dir="$OUT/$a"
  start=$(date +%s)
  mkdir -p "$dir"
  if ! host_tools "$a" || ! root=$(target_root "$a" "$dir"); then
    summary="$summary\n  $a: not built: its packages are missing (above)"
    status=1
    continue
  fi
  echo "multiarch: $a ($triple): building in $dir/ (log: $dir/build.log; target libraries from ${root})"
  if ! { cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/debian-cross.cmake" \
           -DDUET_CROSS_TRIPLE="$triple" -DCMAKE_BUILD_TYPE=Release \
           -DDUET_CROSS_ROOT="$([ "$root" = / ] || echo "$root")" \
           -DDUET_BUILD_BENCH=OFF -DDUET_BUILD_DEMO=OFF &&
         { [ -n "$CONFIGURE_ONLY" ] || cmake --build "$dir" -j "$JOBS"; }; } > "$dir/build.log" 2>&1; then
    tail -n 40 "$dir/build.log"
    summary="$summary\n  $a: build failed ($dir/build.log)"
    status=1
    continue
  fi
  built=$(date +%s)
  # What configure left out for this target (a library whose headers do not compile there, no
  # instrumentation): said here and in result.txt, next to the tests that skip for it.
  notes=$(grep -E '^-- duet: .*(skip|not built|not found)' "$dir/build.log" | sort -u | sed 's/^-- duet: /    /' || true)
  [ -n "$notes" ] && printf 'multiarch: %s: left out at configure time:\n%s\n' "$a" "$notes"
  if [ -n "$CONFIGURE_ONLY" ]; then
    summary="$summary\n  $a: configured ($((built - start)) s; not built: MULTIARCH_CONFIGURE_ONLY)"
    continue
  fi
  echo "multiarch: $a: running the suite under qemu-user (log: $dir/test.log)"
  set +e
  # The negative tests on real threads race on purpose: a racy std::unordered_map can corrupt
  # the heap before it gives a wrong answer (seen under qemu-s390x: a double free). As in the
  # asan-racy preset, they run isolated (DUET_FORK=1), where such a crash ends a child and is a
  # counterexample like any other; one at a time, as natively.
  # Both runs, whatever the first one's result: a failure there must not hide the second's.
  (cd "$dir" && DUET_TEST_TIME_SCALE=$SCALE DUET_TIME_SCALE=$DUET_SCALE ctest --output-on-failure -j "$JOBS" --timeout "$TEST_TIMEOUT" \
     -LE 'consumer|racy_threads' -E '^Timeline\.' "${CTEST_ARGS[@]}"; first=$?
   DUET_TEST_TIME_SCALE=$SCALE DUET_TIME_SCALE=$DUET_SCALE DUET_FORK=1 ctest --output-on-failure -j 1 --timeout "$TEST_TIMEOUT" -L racy_threads \
     "${CTEST_ARGS[@]}" && exit $first) > "$dir/test.log" 2>&1
  rc=$?
  set -e
  end=$(date +%s)
  line=$(grep -E "tests passed|No tests were found" "$dir/test.log" | tr '\n' ';' | sed 's/;$//')
  result="$a: ${line:-no summary} (build $((built - start)) s, tests $((end - built)) s, $(uname -m) host, $JOBS jobs)"
  { echo "$result"; [ -z "$notes" ] || printf 'left out at configure time:\n%s\n' "$notes"; } > "$dir/result.txt"
  sed -n '/The following tests FAILED/,$p' "$dir/test.log" >> "$dir/result.txt"
  summary="$summary\n  $result"
  if [ $rc -ne 0 ]; then
    status=1
    sed -n '/The following tests FAILED/,$p' "$dir/test.log"
  fi
done
printf "multiarch summary:%b\n" "$summary"
exit $status
