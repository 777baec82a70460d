# duet_use_rcu_and_ck(<target>): liburcu and Concurrency Kit for rcu_ck_test.cpp (Debian's
# liburcu-dev and libck-dev; make test installs them). liburcu is used through its shared objects
# (liburcu-memb.so), Concurrency Kit through its headers, compiled as C
# (instrumented/support/ck_subjects*.c: CK's headers are not C++). A library that is not found
# defines DUET_SKIP_<NAME>="<why>" on <target>, its tests skip and say why, and configure says so.
#
#   duet_use_rcu_and_ck(duet_instrumented_tests)

# The C compiler, for CK's headers (enable_language works at file scope only).
find_path(DUET_CK_INCLUDE ck_ring.h)
include(CheckLanguage)
check_language(C)
if(DUET_CK_INCLUDE AND CMAKE_C_COMPILER)
  enable_language(C)
endif()

function(duet_use_rcu_and_ck target)
  find_path(DUET_URCU_INCLUDE urcu/urcu-memb.h)
  find_library(DUET_URCU_MEMB urcu-memb)
  find_library(DUET_URCU_COMMON_LIB urcu-common)
  if(DUET_URCU_INCLUDE AND DUET_URCU_MEMB AND DUET_URCU_COMMON_LIB)
    target_compile_definitions(${target} PRIVATE DUET_HAVE_URCU=1)
    target_link_libraries(${target} PRIVATE ${DUET_URCU_MEMB} ${DUET_URCU_COMMON_LIB})
  else()
    set(_why "liburcu not installed (apt-get install liburcu-dev)")
    message(STATUS "duet: ${target}: liburcu's tests skip: ${_why}")
    target_compile_definitions(${target} PRIVATE "DUET_SKIP_URCU=\"${_why}\"")
  endif()
  if(DUET_CK_INCLUDE AND CMAKE_C_COMPILER)
    set(_dir ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/support)
    target_sources(${target} PRIVATE ${_dir}/ck_subjects.c ${_dir}/ck_subjects_assembly.c)
    target_compile_definitions(${target} PRIVATE DUET_HAVE_CK=1)
  else()
    set(_why "Concurrency Kit not installed (apt-get install libck-dev), or no C compiler")
    message(STATUS "duet: ${target}: Concurrency Kit's tests skip: ${_why}")
    target_compile_definitions(${target} PRIVATE "DUET_SKIP_CK=\"${_why}\"")
  endif()
endfunction()
