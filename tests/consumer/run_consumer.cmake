# Builds and runs one consumer project (tests/consumer/<KIND>) with compiler CXX, warnings as
# errors, in WORK (wiped first):
#   cmake -DKIND=find_package|add_subdirectory -DCXX=g++ -DDUET_SOURCE=... -DDUET_BUILD=...
#         -DWORK=... -P run_consumer.cmake
# find_package: installs DUET_BUILD into WORK/prefix first (cmake --install), as a user would.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(flags "-Wall -Wextra -Werror")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    string(JOIN " " command ${ARGN})
    message(FATAL_ERROR "`${command}` failed (${status}):\n${out}")
  endif()
endfunction()

set(configure ${CMAKE_COMMAND} -S ${DUET_SOURCE}/tests/consumer/${KIND} -B ${WORK}/build
    -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_CXX_FLAGS=${flags}")
if(KIND STREQUAL "find_package")
  run(${CMAKE_COMMAND} --install ${DUET_BUILD} --prefix ${WORK}/prefix)
  foreach(f lib/cmake/duet/duetConfig.cmake lib/cmake/duet/duetConfigVersion.cmake include/duet/models/queue.hpp
            include/duet/history_model.hpp include/duet/detail/history_search.hpp
            include/duet/version.hpp bin/duet-check lib/cmake/duet/DuetInstrument.cmake)
    if(NOT EXISTS ${WORK}/prefix/${f})
      message(FATAL_ERROR "cmake --install did not install ${f}")
    endif()
  endforeach()
  list(APPEND configure -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release)
else()
  list(APPEND configure -DDUET_SOURCE=${DUET_SOURCE})
endif()
run(${configure})
run(${CMAKE_COMMAND} --build ${WORK}/build -j 2)
if(KIND STREQUAL "add_subdirectory")
  # Nothing of duet's outside its own binary directory (WORK/build/duet).
  file(GLOB top RELATIVE ${WORK}/build ${WORK}/build/*)
  list(REMOVE_ITEM top duet CMakeFiles CMakeCache.txt Makefile cmake_install.cmake CTestTestfile.cmake consumer_tests lock_check
       instrumented_tests
       DartConfiguration.tcl build.ninja .ninja_deps .ninja_log Testing)
  if(top)
    message(FATAL_ERROR "an embedded duet wrote outside its binary directory: ${top}")
  endif()
endif()
run(${WORK}/build/consumer_tests)
# duet_instrument: plain std:: code on the fiber scheduler.
run(${WORK}/build/instrumented_tests)
# The user's checker: its own model through cli_main, on histories with known verdicts (exit
# status 0: all linearizable, 1: some not).
set(histories ${DUET_SOURCE}/tests/consumer/common/histories)
execute_process(COMMAND ${WORK}/build/lock_check ${histories}/lock-ok.duet RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0 OR NOT out MATCHES "lock-ok.duet\tlinearizable")
  message(FATAL_ERROR "lock_check on lock-ok.duet: status ${status}, expected 0 and linearizable:\n${out}")
endif()
execute_process(COMMAND ${WORK}/build/lock_check ${histories}/lock-bad.duet RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 1 OR NOT out MATCHES "lock-bad.duet\tnot-linearizable" OR NOT out MATCHES "in state: { \"a\":1 }")
  message(FATAL_ERROR "lock_check on lock-bad.duet: status ${status}, expected 1, not-linearizable and the state:\n${out}")
endif()
message(STATUS "consumer ${KIND} with ${CXX}: built with ${flags} and passed")
