# Every ```cpp block of README.md and docs/*.md, extracted into one C++ file per Markdown file
# (its blocks in order, so a later block may use what an earlier one defines), for the test
# binary duet_doc_blocks: docs whose code stops compiling fail the build, and their TEST blocks
# run. Read at configure time; editing a Markdown file re-runs the extraction.
#
# The words after `cpp` on the fence line say how a block is compiled (docs/reference.md,
# "Code blocks in the docs"):
#   ```cpp            declarations at namespace scope (types, functions, TESTs); TESTs run
#   ```cpp body       statements: compiled inside a function that is never called
#   ```cpp norun      as plain, but its TESTs are compiled and not run (a test that fails on
#                     purpose, or runs for its whole default budget); their suites are renamed
#                     Doc<suite>, so that ctest's DISABLED property, which goes by name, does not
#                     also disable another binary's test of the same name
#   ```cpp program    a program of its own (a `main`, a fuzz target): compiled apart, in a
#                     namespace of its own, and not linked
#   ```cpp fragment   deliberately partial (an elision, names defined elsewhere): not compiled
#
# duet_doc_blocks(OUT_DIR out_dir SOURCES_VAR var PROGRAMS_VAR pvar FILES md...): writes
# out_dir/<name>.cpp for each Markdown file with at least one compiled block and sets `var` to
# their list; writes every program block into out_dir/programs.cpp and sets `pvar` to it.
include(${CMAKE_CURRENT_LIST_DIR}/text_lines.cmake)
function(duet_doc_blocks)
  cmake_parse_arguments(D "" "OUT_DIR;SOURCES_VAR;PROGRAMS_VAR;ROOT" "FILES" ${ARGN})
  set(sources "")
  set(programs "// Generated from the docs' program blocks by tests/docs/doc_blocks.cmake: do not edit.\n#include \"docs/doc_blocks_prelude.hpp\"\n")
  foreach(md IN LISTS D_FILES)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${md}")
    file(RELATIVE_PATH shown "${D_ROOT}" "${md}")
    get_filename_component(stem "${md}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${stem}" id)
    # The text as a list of lines (text_lines.cmake), decoded as each line is written out.
    file(READ "${md}" text)
    duet_text_lines("${text}" lines)
    set(out "// Generated from ${shown} by tests/docs/doc_blocks.cmake: do not edit.\n#include \"docs/doc_blocks_prelude.hpp\"\nnamespace doc_${id} {\n")
    set(in_block FALSE)
    set(kind "")
    set(number 0)
    set(compiled 0)
    foreach(line IN LISTS lines)
      math(EXPR number "${number} + 1")
      if(NOT in_block)
        if(line MATCHES "^[ ]*```cpp[ ]*(.*)$")
          set(in_block TRUE)
          string(STRIP "${CMAKE_MATCH_1}" kind)
          math(EXPR first "${number} + 1")
          if(kind STREQUAL "")
            string(APPEND out "#line ${first} \"${shown}\"\n")
          elseif(kind STREQUAL "body")
            string(APPEND out "[[maybe_unused]] void block_${first}() {\n#line ${first} \"${shown}\"\n")
          elseif(kind STREQUAL "norun")
            string(APPEND out "#undef TEST\n#define TEST(suite, name) GTEST_TEST(Doc##suite, DISABLED_##name)\n#line ${first} \"${shown}\"\n")
          elseif(kind STREQUAL "program")
            string(APPEND programs "namespace doc_${id}_${first} {\n#line ${first} \"${shown}\"\n")
          elseif(NOT kind STREQUAL "fragment")
            message(FATAL_ERROR "${shown}:${number}: unknown code block kind `${kind}` (plain, body, norun, program or fragment)")
          endif()
        endif()
        continue()
      endif()
      if(line MATCHES "^[ ]*```[ ]*$")
        set(in_block FALSE)
        if(kind STREQUAL "body")
          string(APPEND out "}\n")
        elseif(kind STREQUAL "norun")
          string(APPEND out "#undef TEST\n#define TEST(suite, name) GTEST_TEST(suite, name)\n")
        elseif(kind STREQUAL "program")
          string(APPEND programs "}\n")
        endif()
        if(NOT kind STREQUAL "fragment" AND NOT kind STREQUAL "program")
          math(EXPR compiled "${compiled} + 1")
        endif()
        continue()
      endif()
      if(NOT kind STREQUAL "fragment")
        duet_decode_line("${line}" line)
        if(kind STREQUAL "program")
          string(APPEND programs "${line}\n")
        else()
          string(APPEND out "${line}\n")
        endif()
      endif()
    endforeach()
    if(in_block)
      message(FATAL_ERROR "${shown}: a ```cpp block is not closed")
    endif()
    if(compiled EQUAL 0)
      continue()
    endif()
    string(APPEND out "}  // namespace doc_${id}\n")
    # Written only when changed, so that a configure run does not rebuild every file.
    set(path "${D_OUT_DIR}/${id}.cpp")
    file(WRITE "${path}.new" "${out}")
    file(COPY_FILE "${path}.new" "${path}" ONLY_IF_DIFFERENT)
    file(REMOVE "${path}.new")
    list(APPEND sources "${path}")
  endforeach()
  set(path "${D_OUT_DIR}/programs.cpp")
  file(WRITE "${path}.new" "${programs}")
  file(COPY_FILE "${path}.new" "${path}" ONLY_IF_DIFFERENT)
  file(REMOVE "${path}.new")
  set(${D_SOURCES_VAR} "${sources}" PARENT_SCOPE)
  set(${D_PROGRAMS_VAR} "${path}" PARENT_SCOPE)
endfunction()
