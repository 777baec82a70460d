# Text as a CMake list of lines, for the scripts that read source and Markdown files line by
# line (doc_blocks.cmake, check_outputs.cmake, ../unit/doc_examples_check.cmake): the characters
# that mean something in a list (`;`, and `[` `]`, which keep a `;` between them from splitting)
# are swapped for control characters, so that lines compare and print as written once decoded.
include_guard(GLOBAL)
string(ASCII 1 kSemi)
string(ASCII 2 kOpen)
string(ASCII 3 kClose)

# The lines of `text` (carriage returns dropped), encoded, in `out`.
function(duet_text_lines text out)
  string(REPLACE "\r" "" text "${text}")
  string(REPLACE ";" "${kSemi}" text "${text}")
  string(REPLACE "[" "${kOpen}" text "${text}")
  string(REPLACE "]" "${kClose}" text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# `line` (or a list of lines, joined by newlines) as written.
function(duet_decode_line line out)
  string(REPLACE ";" "\n" line "${line}")
  string(REPLACE "${kSemi}" ";" line "${line}")
  string(REPLACE "${kOpen}" "[" line "${line}")
  string(REPLACE "${kClose}" "]" line "${line}")
  set(${out} "${line}" PARENT_SCOPE)
endfunction()
