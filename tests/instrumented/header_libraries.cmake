# duet_use_header_libraries(<target>): the real header-only libraries the instrumented tests run
# unmodified (Debian packages; make test installs them). A library is used (DUET_HAVE_<NAME>=1
# on <target>) only where the headers its tests include compile for this build's target with
# the instrumentation's flags: its header in /usr/include is architecture-independent and found
# for any target, but may not compile there (xenium's utils.hpp reads the cycle counter on
# x86-64 and SPARC only, an #error elsewhere). Otherwise DUET_SKIP_<NAME>="<why>" tells its
# tests why they skip, and the configure output says so.
#
#   duet_use_header_libraries(duet_instrumented_tests)
#
# Each entry: NAME|name in messages|Debian package|headers the tests include (comma-separated).
set(DUET_HEADER_LIBRARIES
  "ATOMIC_QUEUE|atomic_queue|libatomic-queue-dev|atomic_queue/atomic_queue.h"
  "LIBCUCKOO|libcuckoo|libcuckoo-dev|libcuckoo/cuckoohash_map.hh"
  "XENIUM|xenium|libxenium-dev|xenium/chase_work_stealing_deque.hpp,xenium/harris_michael_hash_map.hpp,xenium/michael_scott_queue.hpp,xenium/policy.hpp,xenium/ramalhete_queue.hpp,xenium/reclamation/generic_epoch_based.hpp"
  "CONCURRENTQUEUE|moodycamel::ConcurrentQueue|libconcurrentqueue-dev|concurrentqueue/concurrentqueue.h")

# Sets <out> to "" when <headers> compile for the target, else to the compiler's first error.
# Compiled, not linked (the instrumentation's runtime is duet's, not in this try_compile).
function(_duet_headers_compile out name headers)
  set(_source "")
  foreach(h IN LISTS headers)
    string(APPEND _source "#include <${h}>\n")
  endforeach()
  string(APPEND _source "int duet_header_probe() { return 0; }\n")
  set(_dir ${CMAKE_BINARY_DIR}/CMakeFiles/duet_header_libraries/${name})
  file(WRITE ${_dir}/probe.cpp "${_source}")
  set(_flags -fsanitize=thread)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND _flags -Wno-tsan)
  endif()
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  try_compile(_ok ${_dir}/build SOURCES ${_dir}/probe.cpp COMPILE_DEFINITIONS ${_flags}
    CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON OUTPUT_VARIABLE _log)
  set(_why "")
  if(NOT _ok)
    string(REGEX MATCH "[^\n]*error[^\n]*" _why "${_log}")
    string(REGEX REPLACE "^.*/include/" "" _why "${_why}")   # the header's own path
    # It becomes a string literal on the command line: quotes as ', nothing a shell or make reads.
    string(REGEX REPLACE "\"" "'" _why "${_why}")
    string(REGEX REPLACE "[^A-Za-z0-9 _.,:;'()/+=-]" "" _why "${_why}")
    string(STRIP "${_why}" _why)
    if(NOT _why)
      set(_why "the compiler failed (${_dir})")
    endif()
  endif()
  set(${out} "${_why}" PARENT_SCOPE)
endfunction()

function(duet_use_header_libraries target)
  foreach(_entry IN LISTS DUET_HEADER_LIBRARIES)
    string(REPLACE "|" ";" _entry "${_entry}")
    list(GET _entry 0 _name)
    list(GET _entry 1 _label)
    list(GET _entry 2 _package)
    list(GET _entry 3 _headers)
    string(REPLACE "," ";" _headers "${_headers}")
    list(GET _headers 0 _first)
    # Also outside a cross build's private root (an unpacked one, make multiarch): the package is
    # architecture-independent, and the compile below decides.
    find_path(DUET_${_name}_INCLUDE ${_first} CMAKE_FIND_ROOT_PATH_BOTH)
    set(_why "")
    if(NOT DUET_${_name}_INCLUDE)
      set(_why "${_label} not installed (apt-get install ${_package})")
    else()
      # Compiled again only when the compiler, the flags, the headers or their package change
      # (the cache keeps the verdict).
      file(TIMESTAMP "${DUET_${_name}_INCLUDE}/${_first}" _stamp)
      set(_key "${DUET_${_name}_INCLUDE}|${_stamp}|${_headers}|${CMAKE_CXX_COMPILER}|${CMAKE_CXX_FLAGS}")
      if(NOT DUET_${_name}_COMPILES_KEY STREQUAL _key)
        _duet_headers_compile(_error ${_name} "${_headers}")
        set(DUET_${_name}_COMPILE_ERROR "${_error}" CACHE INTERNAL "")
        set(DUET_${_name}_COMPILES_KEY "${_key}" CACHE INTERNAL "")
      endif()
      if(DUET_${_name}_COMPILE_ERROR)
        set(_why "${_label}'s headers do not compile for ${CMAKE_SYSTEM_PROCESSOR}: ${DUET_${_name}_COMPILE_ERROR}")
      endif()
    endif()
    if(_why)
      message(STATUS "duet: ${target}: ${_label}'s tests skip: ${_why}")
      target_compile_definitions(${target} PRIVATE "DUET_SKIP_${_name}=\"${_why}\"")
    else()
      target_compile_definitions(${target} PRIVATE DUET_HAVE_${_name}=1)
    endif()
  endforeach()
endfunction()
