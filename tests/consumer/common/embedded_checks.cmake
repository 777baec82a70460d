# What a duet inside the user's source tree (add_subdirectory, FetchContent) must not do to the
# embedding project: set its build type or global output settings, or define duet's own tests,
# benchmarks, demo or command line.
if(CMAKE_BUILD_TYPE)
  message(FATAL_ERROR "duet set the embedding project's build type to ${CMAKE_BUILD_TYPE}")
endif()
foreach(t duet-check duet-merge-certificates duet-demo duet_unit_tests duet-bench)
  if(TARGET ${t})
    message(FATAL_ERROR "an embedded duet defined the target ${t}")
  endif()
endforeach()
foreach(v CMAKE_RUNTIME_OUTPUT_DIRECTORY CMAKE_EXPORT_COMPILE_COMMANDS)
  if(${v})
    message(FATAL_ERROR "an embedded duet set ${v}")
  endif()
endforeach()
