# Takes duet by one of README.md's four routes, with compiler CXX and warnings as errors, in WORK
# (wiped first), as a user would:
#   cmake -DKIND=find_package|deb|add_subdirectory|fetch_content -DCXX=g++ -DDUET_SOURCE=...
#         -DDUET_BUILD=... -DWORK=... [-DONLY_FIRST_RED=ON] -P run_consumer.cmake
#   find_package      installs DUET_BUILD into WORK/prefix (cmake --install)
#   deb               packs DUET_BUILD into a .deb (cpack) and unpacks it into WORK/root
#   add_subdirectory  duet's source tree inside the project
#   fetch_content     FetchContent from the file:// URL of DUET_SOURCE's git checkout, at its
#                     HEAD commit (what is committed: uncommitted changes are not fetched);
#                     prints "skipped: ..." where DUET_SOURCE is not a git checkout
# Then builds and runs the consumer project (tests/consumer/<project>: a test binary, a checker
# of the user's own, instrumented std:: code), and a newcomer's first red test linking
# duet::gtest_main and duet::models (tests/consumer/first_red), which must fail with duet's
# report; an embedded duet must have built none of the libraries that test does not link.
# ONLY_FIRST_RED skips the consumer project (tests/consumer/measure_routes.sh times the first
# red test).
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

# ---- the route: how each project is configured ----
set(route_args "")
if(KIND STREQUAL "find_package")
  run(${CMAKE_COMMAND} --install ${DUET_BUILD} --prefix ${WORK}/prefix)
  set(prefix ${WORK}/prefix)
elseif(KIND STREQUAL "deb")
  get_filename_component(cmake_bin ${CMAKE_COMMAND} DIRECTORY)
  find_program(CPACK NAMES cpack HINTS ${cmake_bin} NO_DEFAULT_PATH)
  if(NOT CPACK)
    find_program(CPACK NAMES cpack)
  endif()
  find_program(DPKG_DEB dpkg-deb)
  if(NOT CPACK OR NOT DPKG_DEB)
    message("skipped: cpack or dpkg-deb is missing")
    return()
  endif()
  run(${CPACK} -G DEB -B ${WORK}/package --config ${DUET_BUILD}/CPackConfig.cmake)
  file(GLOB debs ${WORK}/package/*.deb)
  list(LENGTH debs n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "cpack made ${n} .deb files in ${WORK}/package, expected one")
  endif()
  run(${DPKG_DEB} -x ${debs} ${WORK}/root)
  set(prefix ${WORK}/root/usr)
elseif(KIND STREQUAL "add_subdirectory")
  list(APPEND route_args -DDUET_SOURCE=${DUET_SOURCE})
elseif(KIND STREQUAL "fetch_content")
  find_program(GIT git)
  if(GIT)
    execute_process(COMMAND ${GIT} -C ${DUET_SOURCE} rev-parse HEAD RESULT_VARIABLE status
                    OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  if(NOT GIT OR NOT status EQUAL 0)
    message("skipped: ${DUET_SOURCE} is not a git checkout (or git is missing)")
    return()
  endif()
  list(APPEND route_args -DDUET_GIT_URL=file://${DUET_SOURCE} -DDUET_GIT_TAG=${commit})
else()
  message(FATAL_ERROR "KIND=${KIND}: expected find_package, deb, add_subdirectory or fetch_content")
endif()
if(DEFINED prefix)
  foreach(f lib/cmake/duet/duetConfig.cmake lib/cmake/duet/duetConfigVersion.cmake lib/libduet_gtest.a include/duet/models/queue.hpp
            include/duet/history_model.hpp include/duet/detail/history_search.hpp
            include/duet/version.hpp bin/duet-check bin/duet-merge-certificates lib/cmake/duet/DuetInstrument.cmake)
    if(NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "the ${KIND} route did not install ${f}")
    endif()
  endforeach()
  list(APPEND route_args -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
endif()
if(KIND STREQUAL "deb")
  set(project find_package)  # the same project as after cmake --install
else()
  set(project ${KIND})
endif()
set(embedded FALSE)
if(KIND STREQUAL "add_subdirectory" OR KIND STREQUAL "fetch_content")
  set(embedded TRUE)
endif()

# Nothing of duet's outside its own binary directory in an embedding project's build tree.
function(expect_nothing_outside_duet build)
  file(GLOB top RELATIVE ${build} ${build}/*)
  list(REMOVE_ITEM top duet _deps CMakeFiles CMakeCache.txt Makefile cmake_install.cmake CTestTestfile.cmake
       consumer_tests lock_check instrumented_tests first_test
       DartConfiguration.tcl build.ninja .ninja_deps .ninja_log Testing)
  if(top)
    message(FATAL_ERROR "an embedded duet wrote outside its binary directory: ${top}")
  endif()
endfunction()

# ---- the consumer project ----
if(NOT ONLY_FIRST_RED)
  run(${CMAKE_COMMAND} -S ${DUET_SOURCE}/tests/consumer/${project} -B ${WORK}/build
      -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_CXX_FLAGS=${flags}" ${route_args})
  run(${CMAKE_COMMAND} --build ${WORK}/build -j 2)
  if(embedded)
    expect_nothing_outside_duet(${WORK}/build)
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
endif()

# ---- a newcomer's first red test, linking duet::gtest_main and duet::models ----
string(TIMESTAMP start "%s")
run(${CMAKE_COMMAND} -S ${DUET_SOURCE}/tests/consumer/first_red -B ${WORK}/first -DROUTE=${project}
    -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_CXX_FLAGS=${flags}" ${route_args})
run(${CMAKE_COMMAND} --build ${WORK}/first -j 2)
execute_process(COMMAND ${WORK}/first/first_test RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(TIMESTAMP end "%s")
math(EXPR seconds "${end} - ${start}")
if(NOT status EQUAL 1 OR NOT out MATCHES "duet: [^\n]*SmallQueueBinding[^\n]*: failed after" OR NOT out MATCHES "replay: +DUET_REPLAY=duet1")
  message(FATAL_ERROR "the first red test: status ${status}, expected 1 and duet's report:\n${out}")
endif()
if(embedded)
  expect_nothing_outside_duet(${WORK}/first)
  # Built: the engine and the GoogleTest main. Not built: what first_test does not link.
  file(GLOB_RECURSE built RELATIVE ${WORK}/first ${WORK}/first/*.a)
  foreach(lib libduet.a libduet_gtest.a libduet_gtest_main.a)
    if(NOT built MATCHES "(^|;|/)${lib}(;|$)")
      message(FATAL_ERROR "${lib} was not built for first_test, which links it (built: ${built})")
    endif()
  endforeach()
  foreach(lib libduet_history.a libduet_instrument.a)
    if(built MATCHES "(^|;|/)${lib}(;|$)")
      message(FATAL_ERROR "an embedded duet built ${lib}, which first_test does not link")
    endif()
  endforeach()
endif()
message(STATUS "consumer ${KIND} with ${CXX}: built with ${flags} and passed; first red test ${seconds} s from configure to report")
