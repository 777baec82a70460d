# Install rules, the package configuration for find_package(duet), and the .deb (CPack).
#
#   find_package(duet 0.1 REQUIRED)                        # duet::duet, and what else is found
#   find_package(duet 0.1 REQUIRED COMPONENTS gtest history)
#   target_link_libraries(my_tests PRIVATE duet::gtest_main duet::history)
#
# Components: duet (the engine: Threads, Boost.Context), gtest (duet::gtest, duet::gtest_main:
# GoogleTest), history (duet::history: oneTBB), models (duet::models, the ready-made models,
# and duet::models_lockfree, the Boost.Lockfree bindings: nothing beyond the engine's Boost),
# models_tbb (duet::models_tbb, the oneTBB bindings: oneTBB). A component's dependency is
# searched only when the component is asked for, or quietly when none is named.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(DUET_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/duet)
install(TARGETS ${DUET_INSTALL_TARGETS} EXPORT duetTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(tool duet-check duet-merge-certificates)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
# What the install rules and the .deb hold, and nothing else (`make package` builds this, not
# the test suite).
add_custom_target(duet-installed)
add_dependencies(duet-installed ${DUET_INSTALL_TARGETS})
foreach(tool duet-check duet-merge-certificates)
  if(TARGET ${tool})
    add_dependencies(duet-installed ${tool})
  endif()
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/duet DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The ready-made models and bindings (duet::models, duet::models_lockfree, duet::models_tbb):
# #include <duet/models/queue.hpp>, as in the tutorial. Only correct ones: the buggy subjects
# duet's own tests find are in tests/support.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/duet/models DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/duet)
install(EXPORT duetTargets NAMESPACE duet:: DESTINATION ${DUET_CMAKE_DIR})

set(DUET_HAS_GTEST OFF)
set(DUET_HAS_HISTORY OFF)
set(DUET_HAS_MODELS_TBB OFF)
if(TARGET duet_gtest)
  set(DUET_HAS_GTEST ON)
endif()
if(TARGET duet_history)
  set(DUET_HAS_HISTORY ON)
endif()
if(TARGET duet_models_tbb)
  set(DUET_HAS_MODELS_TBB ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/duetConfig.cmake.in
  ${PROJECT_BINARY_DIR}/duetConfig.cmake INSTALL_DESTINATION ${DUET_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/duetConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/duetConfig.cmake ${PROJECT_BINARY_DIR}/duetConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/DuetInstrument.cmake DESTINATION ${DUET_CMAKE_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/cmake/ports/ck_pr.h DESTINATION ${DUET_CMAKE_DIR}/ports)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR})

# make package: a .deb of the above (headers, static libraries, CMake package, duet-check).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME duet)
set(CPACK_PACKAGE_VENDOR "the duet developers")
set(CPACK_PACKAGE_CONTACT "the duet developers <duet@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
# What a user of the package compiles against: the headers' and the CMake package's needs.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "g++ (>= 4:12), libboost-context-dev (>= 1.74), libgtest-dev, libgmock-dev, libtbb-dev")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/package)
include(CPack)
