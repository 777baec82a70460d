# cmake -DCOMMAND="prog;args" [-DENV="VAR=value"] -DEXPECTED=file -P expect_output.cmake: the
# command must exit 0 and print exactly the file's text on stdout.
if(ENV)
  set(COMMAND ${CMAKE_COMMAND} -E env ${ENV} ${COMMAND})
endif()
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "`${COMMAND}` exited with ${status}:\n${err}")
endif()
file(READ ${EXPECTED} expected)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "`${COMMAND}` printed:\n${out}\nnot the text of ${EXPECTED}")
endif()
