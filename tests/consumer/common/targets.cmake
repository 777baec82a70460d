# The targets of a user's project, whichever way it takes duet (included by each consumer's
# CMakeLists.txt after duet's targets exist): a test binary on duet's GoogleTest main with a
# ready-made model and the history checker, a checker of the user's own on duet-check's command
# line, and plain std:: code on the fiber scheduler through duet_instrument.
enable_testing()
add_executable(consumer_tests ${CMAKE_CURRENT_LIST_DIR}/consumer_test.cpp)
target_link_libraries(consumer_tests PRIVATE duet::gtest_main duet::models duet::history)
target_compile_definitions(consumer_tests PRIVATE DUET_EXPECTED_VERSION="${duet_VERSION}")
add_test(NAME consumer_tests COMMAND consumer_tests)

# A checker of the user's own, duet-check's command line with a model of theirs (cli_main).
add_executable(lock_check ${CMAKE_CURRENT_LIST_DIR}/lock_check.cpp)
target_link_libraries(lock_check PRIVATE duet::history)

# Plain std:: code on the fiber scheduler (docs/instrumented.md).
add_executable(instrumented_tests ${CMAKE_CURRENT_LIST_DIR}/instrumented_test.cpp)
target_link_libraries(instrumented_tests PRIVATE duet::gtest_main)
duet_instrument(instrumented_tests)
add_test(NAME instrumented_tests COMMAND instrumented_tests)
