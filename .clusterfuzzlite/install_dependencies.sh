#!/bin/bash -eu
# What duet needs in the fuzzing services' builder image (gcr.io/oss-fuzz-base/base-builder) that
# its Ubuntu does not have: CMake 3.22 or later, and Boost.Context 1.74 or later, whose sources
# go to $SRC/boost (build.sh compiles them with the builder's flags and C++ library). Run by
# .clusterfuzzlite/Dockerfile and by the OSS-Fuzz project's (tests/fuzz/oss-fuzz/Dockerfile).
apt-get update
apt-get install -y --no-install-recommends python3-pip zip
python3 -m pip install --no-cache-dir 'cmake>=3.22,<4'
curl -fsSL -o /tmp/boost.tar.bz2 https://archives.boost.io/release/1.83.0/source/boost_1_83_0.tar.bz2
echo '6478edfe2f3305127cffe8caf73ea0176c53769f4bf1585be237eb30798c3b8e  /tmp/boost.tar.bz2' | sha256sum -c -
mkdir -p "$SRC/boost"
tar -xjf /tmp/boost.tar.bz2 --strip-components=1 -C "$SRC/boost"
rm /tmp/boost.tar.bz2
