# Cross-compiling on Debian with a crossbuild-essential-<arch> toolchain and the target
# architecture's multiarch -dev packages (dpkg --add-architecture). Set DUET_CROSS_TRIPLE to the
# GNU triple (aarch64-linux-gnu, powerpc64le-linux-gnu, s390x-linux-gnu); tests/multiarch/run.sh
# does. Tests run under qemu-user with -L / (the multiarch root: /lib/<triple> holds the target's
# loader and libraries); with the cross toolchain's own sysroot, thread creation hangs under
# Debian 12's qemu.
if(NOT DUET_CROSS_TRIPLE)
  set(DUET_CROSS_TRIPLE "$ENV{DUET_CROSS_TRIPLE}")
endif()
if(NOT DUET_CROSS_TRIPLE)
  message(FATAL_ERROR "debian-cross.cmake: set DUET_CROSS_TRIPLE (e.g. aarch64-linux-gnu)")
endif()
# DUET_CROSS_ROOT (optional): a directory holding the target's packages unpacked (dpkg-deb -x),
# laid out as / is, for when they cannot be installed (tests/multiarch/run.sh makes it when apt
# cannot install them: a foreign architecture's index behind the host's, say). The emulator and
# CMake's searches then use it instead of /.
if(NOT DUET_CROSS_ROOT)
  set(DUET_CROSS_ROOT "$ENV{DUET_CROSS_ROOT}")
endif()
# try_compile projects see the toolchain file anew: pass the triple and the root on.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES DUET_CROSS_TRIPLE DUET_CROSS_ROOT)

string(REGEX REPLACE "-.*" "" _duet_cpu "${DUET_CROSS_TRIPLE}")
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${_duet_cpu})
set(CMAKE_C_COMPILER ${DUET_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${DUET_CROSS_TRIPLE}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${DUET_CROSS_TRIPLE})

# qemu's name for the CPU differs from the triple's in one case.
set(_duet_qemu_cpu ${_duet_cpu})
if(_duet_cpu STREQUAL "powerpc64le")
  set(_duet_qemu_cpu ppc64le)
endif()
if(DUET_CROSS_ROOT)
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-${_duet_qemu_cpu};-L;${DUET_CROSS_ROOT})
  # Packages, libraries and headers from the unpacked root only; the compiler keeps its own
  # sysroot for the C library, and the linker finds the libraries' own dependencies there.
  set(CMAKE_FIND_ROOT_PATH ${DUET_CROSS_ROOT})
  set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
  set(_duet_link "-Wl,-rpath-link,${DUET_CROSS_ROOT}/usr/lib/${DUET_CROSS_TRIPLE}:${DUET_CROSS_ROOT}/lib/${DUET_CROSS_TRIPLE}")
  set(CMAKE_EXE_LINKER_FLAGS_INIT "${_duet_link}")
  set(CMAKE_SHARED_LINKER_FLAGS_INIT "${_duet_link}")
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-${_duet_qemu_cpu};-L;/)
  # Packages and libraries from the target architecture's multiarch directories only; programs
  # (the compiler, cmake's helpers) from the host.
  set(CMAKE_FIND_ROOT_PATH /usr/lib/${DUET_CROSS_TRIPLE} /usr/${DUET_CROSS_TRIPLE})
  set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
  set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
  set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
