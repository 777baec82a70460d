#!/bin/bash -eu
# OSS-Fuzz's projects/duet/build.sh: the repository's own build step, the one ClusterFuzzLite runs.
exec "$SRC/duet/.clusterfuzzlite/build.sh"
