#!/bin/bash -eu
# The build step of ClusterFuzzLite and OSS-Fuzz, run in the builder image (Dockerfile here) with
# their conventions: the compiler and its flags in $CC, $CXX, $CFLAGS, $CXXFLAGS (the sanitizer's,
# and -stdlib=libc++ for C++), the fuzzing engine in $LIB_FUZZING_ENGINE, the sources under $SRC,
# a scratch directory $WORK, and the fuzz targets, their seed corpora and dictionaries into $OUT.
# Out of the image, tests/fuzz/targets/clusterfuzzlite_build_test.sh runs it the same way.
#
#   .clusterfuzzlite/build.sh     # in the image: $SRC/build.sh, the sources in $SRC/duet
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/../tests/fuzz/targets/build.sh" ]; then
  duet=$(cd "$here/.." && pwd)
else
  duet=$SRC/duet
fi

# Boost.Context from the sources the Dockerfile unpacked, compiled with the builder's C++ library
# (the targets link it; a C++ library mismatch is a link error or worse) and linked statically:
# the fuzzers run in another image, which has no Boost. Where no such sources are (a Debian
# machine with libboost-context-dev), the system's static library is used.
if [ -d "$SRC/boost" ] && [ ! -f "$WORK/boost/include/boost/context/fiber.hpp" ]; then
  stdlib=$(printf '%s\n' $CXXFLAGS | grep -e '^-stdlib=' || true)
  (cd "$SRC/boost" &&
    ./bootstrap.sh --with-toolset=clang --with-libraries=context >"$WORK/boost-bootstrap.log" 2>&1 &&
    ./b2 -j"$(nproc)" toolset=clang cxxflags="-fPIC $stdlib" linkflags="$stdlib" link=static variant=release \
      --with-context --prefix="$WORK/boost" install >"$WORK/boost-build.log" 2>&1) || {
    tail -n 40 "$WORK/boost-build.log" "$WORK/boost-bootstrap.log" 2>/dev/null
    exit 1
  }
fi
if [ -d "$WORK/boost" ]; then
  export BOOST_ROOT=$WORK/boost
elif printf '%s\n' $CXXFLAGS | grep -q -e '^-stdlib=libc++$'; then
  echo "duet: \$CXXFLAGS asks for libc++, but no Boost sources are in \$SRC/boost: the system's Boost.Context" >&2
  echo "      is built with another C++ library and would not link (the Dockerfile unpacks them there)" >&2
  exit 1
fi

DUET_FUZZ_SET=continuous DUET_FUZZ_BUILD=$WORK/duet-fuzz "$duet/tests/fuzz/targets/build.sh"
