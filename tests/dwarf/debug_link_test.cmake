# source/debug_link_test.cpp: separate debug information for programs (dwarf/debug_link, dwarf/separate_debug):
# a program stripped with `strip -g` whose DWARF is in a build-id tree
# (KPP_DEBUG_ROOT) or named by .gnu_debuglink gives the same -D definitions
# as the unstripped program; a debug file with the wrong CRC is refused; a
# program with neither lists the paths it tried. The programs are built here
# and stripped by the test itself, in a temporary directory.
find_program(KPP_DEBUGLINK_GCC gcc)
find_program(KPP_DEBUGLINK_OBJCOPY objcopy)
find_program(KPP_DEBUGLINK_STRIP strip)
if(NOT KPP_DEBUGLINK_GCC OR NOT KPP_DEBUGLINK_OBJCOPY OR NOT KPP_DEBUGLINK_STRIP)
  message(WARNING "tests/dwarf: gcc, objcopy or strip not found, separate-debug tests (debug_link_test) not built")
  return()
endif()

set(debuglink_fixture_dir ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
file(MAKE_DIRECTORY ${debuglink_fixture_dir})
set(debuglink_source ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/linked.c)
set(debuglink_fixtures "")
foreach(variant IN ITEMS "O0;-O0" "O2;-O2" "nobuildid;-O2;-Wl,--build-id=none")
  list(GET variant 0 name)
  list(SUBLIST variant 1 -1 flags)
  add_custom_command(OUTPUT ${debuglink_fixture_dir}/linked_${name}
    COMMAND ${KPP_DEBUGLINK_GCC} -g ${flags} -o ${debuglink_fixture_dir}/linked_${name} ${debuglink_source}
    DEPENDS ${debuglink_source}
    COMMENT "debuglink fixture linked_${name}"
    VERBATIM)
  list(APPEND debuglink_fixtures ${debuglink_fixture_dir}/linked_${name})
endforeach()
add_custom_target(kpp_debuglink_fixtures ALL DEPENDS ${debuglink_fixtures})

add_executable(kpp_debuglink_tests source/debug_link_test.cpp)
add_dependencies(kpp_debuglink_tests kpp_debuglink_fixtures kprobe-probe)
target_compile_definitions(kpp_debuglink_tests PRIVATE
  KPP_DEBUGLINK_FIXTURE_DIR="${debuglink_fixture_dir}"
  KPP_OBJCOPY="${KPP_DEBUGLINK_OBJCOPY}"
  KPP_STRIP="${KPP_DEBUGLINK_STRIP}"
  KPP_BINARY="$<TARGET_FILE:kprobe-probe>")
target_link_libraries(kpp_debuglink_tests PRIVATE kpp_dwarf kpp_util kpp_test_common GTest::gtest_main)
gtest_discover_tests(kpp_debuglink_tests)
