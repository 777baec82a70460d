# Writes a C++ header holding files of the source tree as string constants, so that the report
# pages' style and scripts are edited as CSS and JavaScript and still travel inside the library:
#   cmake -DOUT=assets.hpp -DDIR=src/report/assets -DFILES=page.css,timeline.js -P embed_assets.cmake
# Each file becomes `duet::detail::assets::<file name as an identifier>` (page_css, timeline_js).
string(REPLACE "," ";" files "${FILES}")
set(text "// Generated from ${DIR} by cmake/embed_assets.cmake: edit those files, not this one.\n")
string(APPEND text "#pragma once\n\n#include <string_view>\n\nnamespace duet::detail::assets {\n\n")
foreach(file IN LISTS files)
  file(READ "${DIR}/${file}" content)
  string(FIND "${content}" ")duet_asset\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${DIR}/${file} contains the raw string's end )duet_asset\"")
  endif()
  string(MAKE_C_IDENTIFIER "${file}" id)
  string(APPEND text "inline constexpr std::string_view ${id} = R\"duet_asset(${content})duet_asset\";\n\n")
endforeach()
string(APPEND text "}  // namespace duet::detail::assets\n")
file(WRITE "${OUT}" "${text}")
