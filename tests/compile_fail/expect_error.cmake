# One compile-failure case: compiles SOURCE with -fsyntax-only and passes only when the
# compiler rejects it, its output matches EXPECT and, when given, TYPES (the instantiation that
# names the types involved); with AT_LINE, the instantiation context reaches that line of
# SOURCE (the user's line); with ONE_ERROR, exactly one error is printed (no cascade); FLAGS
# (a list) are added to the compiler's command line.
#   cmake -DCXX=... -DINCLUDE=... -DSOURCE=... -DEXPECT=regex [-DTYPES=regex] [-DAT_LINE=n]
#         [-DONE_ERROR=ON] [-DFLAGS=-Werror] -P expect_error.cmake
execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only ${FLAGS} -I${INCLUDE} ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
get_filename_component(file "${SOURCE}" NAME)
set(problems "")
if(rc EQUAL 0)
  string(APPEND problems "\n  it compiled")
endif()
if(NOT out MATCHES "${EXPECT}")
  string(APPEND problems "\n  no message matching: ${EXPECT}")
endif()
if(DEFINED TYPES AND NOT out MATCHES "${TYPES}")
  string(APPEND problems "\n  no instantiation naming the types: ${TYPES}")
endif()
if(DEFINED AT_LINE AND NOT out MATCHES "${file}:${AT_LINE}:[0-9]+:[ ]+(required from here|note: in instantiation)")
  string(APPEND problems "\n  the errors do not reach ${file}:${AT_LINE}")
endif()
if(ONE_ERROR)
  string(REGEX MATCHALL "error:" errors "${out}")
  list(LENGTH errors n)
  if(NOT n EQUAL 1)
    string(APPEND problems "\n  ${n} errors, not one")
  endif()
endif()
if(problems)
  message(FATAL_ERROR "${file}:${problems}\n--- compiler output ---\n${out}")
endif()
