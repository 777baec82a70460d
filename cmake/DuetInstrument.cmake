# duet_instrument(<target> [SOURCES <file>...])
#
# Compiles <target>'s sources (or only the listed ones) with the compiler's thread-sanitizer
# instrumentation and links duet::instrument, the runtime that receives it, instead of the
# sanitizer's: code written with std::atomic, std::mutex, std::condition_variable and
# std::thread then runs on duet's fiber scheduler when a check uses duet::fibers(...), and at
# nearly full speed everywhere else.
#
#   add_executable(queue_tests queue_tests.cpp)
#   target_link_libraries(queue_tests PRIVATE duet::gtest_main)
#   duet_instrument(queue_tests)
#
# A dependency built from its sources is instrumented the same way, in one line: its atomics and
# locks are then steps of the schedule, where a library that was not instrumented is a black box
# (docs/real-libraries.md). A shared library must be loaded by an executable that holds the
# runtime (an instrumented one, or one linking duet::instrument).
#
#   FetchContent_MakeAvailable(mylib)   # or add_subdirectory(third_party/mylib)
#   duet_instrument(mylib)
#
# Instrument the files that hold the code under test and the specs that call it (header-only
# libraries are compiled where they are included). A build with -fsanitize=thread or
# -fsanitize=address in its flags is refused: the instrumentation cannot be combined with them.
# duet's headers that replace a library's inline-assembly atomics with the compiler's atomics,
# which the instrumentation sees (ports/ck_pr.h: Concurrency Kit). Put before the system's
# headers of every instrumented target: a header only a library's code includes.
set(DUET_INSTRUMENT_PORTS ${CMAKE_CURRENT_LIST_DIR}/ports CACHE INTERNAL "duet_instrument's port headers")

function(duet_instrument target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "duet_instrument(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS} (usage: duet_instrument(<target> [SOURCES <file>...]))")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "duet_instrument(${target}): no such target")
  endif()
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "duet_instrument(${target}): needs g++ or clang++ (their -fsanitize=thread instrumentation); ${CMAKE_CXX_COMPILER_ID} has none")
  endif()
  string(TOUPPER "${CMAKE_BUILD_TYPE}" _duet_config)
  set(_duet_flags "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_duet_config}}")
  get_target_property(_duet_options ${target} COMPILE_OPTIONS)
  if(_duet_options)
    string(APPEND _duet_flags " ${_duet_options}")
  endif()
  if(_duet_flags MATCHES "-fsanitize=[^ ]*(thread|address)")
    message(FATAL_ERROR "duet_instrument(${target}): this build already uses -fsanitize=${CMAKE_MATCH_1}; "
      "duet's instrumentation is the thread sanitizer's without its runtime and cannot be combined with it. "
      "Instrument a build without sanitizers.")
  endif()
  # -g: reports name the subject's file:line. -fno-optimize-sibling-calls: a call in tail
  # position stays a call, so the caller's line stays on the stack (a wait that ends a lambda
  # would otherwise be reported at the library's line). -Wno-tsan: g++ warns that fences are not
  # instrumented, which duet handles. No function entry and exit calls: duet does not use them,
  # and they cost a call each way on every function.
  set(_duet_compile -fsanitize=thread -g -fno-optimize-sibling-calls
    $<$<CXX_COMPILER_ID:GNU>:-Wno-tsan --param=tsan-instrument-func-entry-exit=0>
    $<$<CXX_COMPILER_ID:Clang>:-fno-sanitize-thread-func-entry-exit>)
  if(ARG_SOURCES)
    set_property(SOURCE ${ARG_SOURCES} TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS ${_duet_compile})
    set_property(SOURCE ${ARG_SOURCES} TARGET_DIRECTORY ${target} APPEND PROPERTY INCLUDE_DIRECTORIES ${DUET_INSTRUMENT_PORTS})
  else()
    target_compile_options(${target} PRIVATE ${_duet_compile})
    target_include_directories(${target} BEFORE PRIVATE ${DUET_INSTRUMENT_PORTS})
  endif()
  # One runtime per process: the executable holds it. A shared library (a dependency built from
  # its sources) is compiled with the instrumentation only, and its calls reach the runtime of the
  # executable that loads it (duet::instrument exports them); a static or object library passes
  # the runtime on to whatever links it.
  get_target_property(_duet_type ${target} TYPE)
  if(_duet_type STREQUAL "EXECUTABLE")
    target_link_libraries(${target} PRIVATE duet::instrument)
  elseif(_duet_type STREQUAL "STATIC_LIBRARY" OR _duet_type STREQUAL "OBJECT_LIBRARY")
    target_link_libraries(${target} INTERFACE duet::instrument)
  elseif(_duet_type STREQUAL "SHARED_LIBRARY" OR _duet_type STREQUAL "MODULE_LIBRARY")
    # The runtime's entry points stay undefined here, resolved when the library is loaded.
  else()
    message(FATAL_ERROR "duet_instrument(${target}): a ${_duet_type} target has no code to instrument")
  endif()
endfunction()
