# Every example line of the public headers' doc comments must be in the doc examples test.
#
#   cmake -DHEADERS_DIR=include/duet -DTEST_FILE=tests/unit/doc_examples_test.cpp -P doc_examples_check.cmake
#
# An example line is a doc-comment line `///` followed by at least three spaces, in
# HEADERS_DIR/*.hpp or HEADERS_DIR/testing/*.hpp. Its code (without the `///`, leading and
# trailing spaces, runs of spaces collapsed to one) must be a whole line of TEST_FILE (compared
# the same way): the test file compiles every example, so the docs cannot drift from the API.
# Fails listing each missing line with its header and line number.
cmake_minimum_required(VERSION 3.22)

foreach(var HEADERS_DIR TEST_FILE)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "doc_examples_check: -D${var}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${TEST_FILE}")
  message(FATAL_ERROR "doc_examples_check: no test file ${TEST_FILE}")
endif()

# The text is handled as a CMake list of lines (../docs/text_lines.cmake), in the headers and
# the test file alike, so lines compare as written.
include(${CMAKE_CURRENT_LIST_DIR}/../docs/text_lines.cmake)

# The lines of `path`, encoded, in `out`.
function(read_lines path out)
  file(READ "${path}" text)
  duet_text_lines("${text}" lines)
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

# `line` without leading and trailing spaces, runs of spaces collapsed.
function(normalize line out)
  string(STRIP "${line}" line)
  string(REGEX REPLACE "  +" " " line "${line}")
  set(${out} "${line}" PARENT_SCOPE)
endfunction()


read_lines("${TEST_FILE}" test_lines)
set(known "")
foreach(line IN LISTS test_lines)
  normalize("${line}" line)
  if(NOT line STREQUAL "")
    list(APPEND known "${line}")
  endif()
endforeach()
list(REMOVE_DUPLICATES known)

file(GLOB headers "${HEADERS_DIR}/*.hpp" "${HEADERS_DIR}/testing/*.hpp")
list(SORT headers)
if(headers STREQUAL "")
  message(FATAL_ERROR "doc_examples_check: no headers in ${HEADERS_DIR}")
endif()
get_filename_component(root "${HEADERS_DIR}/../.." ABSOLUTE)

set(examples 0)
set(missing "")
foreach(header IN LISTS headers)
  file(RELATIVE_PATH name "${root}" "${header}")
  read_lines("${header}" lines)
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(NOT line MATCHES "^ *///   ")
      continue()
    endif()
    string(REGEX REPLACE "^ *///" "" code "${line}")
    normalize("${code}" code)
    if(code STREQUAL "")
      continue()
    endif()
    math(EXPR examples "${examples} + 1")
    list(FIND known "${code}" at)
    if(at EQUAL -1)
      duet_decode_line("${code}" shown)
      string(APPEND missing "\n  ${name}:${number}: ${shown}")
    endif()
  endforeach()
endforeach()

if(examples EQUAL 0)
  message(FATAL_ERROR "doc_examples_check: no example lines (`///   code`) found under ${HEADERS_DIR}")
endif()
if(NOT missing STREQUAL "")
  message(FATAL_ERROR
    "doc_examples_check: header example lines missing from ${TEST_FILE} (each must be a whole line "
    "there, in a context that compiles it; runs of spaces may differ):${missing}")
endif()
message(STATUS "doc_examples_check: all ${examples} example lines of the headers are in ${TEST_FILE}")
