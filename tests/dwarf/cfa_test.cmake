# expr/cfa_test.cpp: call-frame information read one FDE at a time (dwarf/expr/cfa.cpp): at every
# address of fixture programs built here, the CFA rule agrees with LLVM's
# parse of the whole section (the oracle). Fixtures cover gcc and clang at
# -O0 and -O2 with .eh_frame, .debug_frame alone (-fno-asynchronous-unwind-tables,
# the crt objects still bring a small .eh_frame), and 64-bit DWARF lengths.
# With KPP_TEST_VMLINUX (or the guest tests' cache) the kernel is checked too.
find_program(KPP_CFA_GCC gcc)
find_program(KPP_CFA_CLANG NAMES clang clang-19 clang-16 clang-14)
if(NOT KPP_CFA_GCC)
  message(WARNING "tests/dwarf: gcc not found, call-frame tests (cfa_test) not built")
  return()
endif()

set(cfa_fixture_dir ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
file(MAKE_DIRECTORY ${cfa_fixture_dir})
set(cfa_source ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/frames.c)
set(cfa_fixtures "")
function(kpp_cfa_fixture name compiler)
  add_custom_command(OUTPUT ${cfa_fixture_dir}/${name}
    COMMAND ${compiler} ${ARGN} -o ${cfa_fixture_dir}/${name} ${cfa_source}
    DEPENDS ${cfa_source}
    COMMENT "cfa fixture ${name}"
    VERBATIM)
  set(cfa_fixtures ${cfa_fixtures} ${cfa_fixture_dir}/${name} PARENT_SCOPE)
endfunction()
kpp_cfa_fixture(frames_gcc_O0 ${KPP_CFA_GCC} -O0 -g)
kpp_cfa_fixture(frames_gcc_O2 ${KPP_CFA_GCC} -O2 -g)
kpp_cfa_fixture(frames_gcc_debug_frame ${KPP_CFA_GCC} -O2 -g -fno-asynchronous-unwind-tables)
kpp_cfa_fixture(frames_gcc_O0_debug_frame ${KPP_CFA_GCC} -O0 -g -fno-asynchronous-unwind-tables)
if(KPP_CFA_CLANG)
  kpp_cfa_fixture(frames_clang_O0 ${KPP_CFA_CLANG} -O0 -g)
  kpp_cfa_fixture(frames_clang_O2 ${KPP_CFA_CLANG} -O2 -g)
  kpp_cfa_fixture(frames_clang_debug_frame ${KPP_CFA_CLANG} -O2 -g -fno-asynchronous-unwind-tables)
  kpp_cfa_fixture(frames_clang_dwarf64 ${KPP_CFA_CLANG} -O2 -g -gdwarf64 -fno-asynchronous-unwind-tables)
endif()
add_custom_target(kpp_cfa_fixtures ALL DEPENDS ${cfa_fixtures})

add_executable(kpp_cfa_tests expr/cfa_test.cpp)
add_dependencies(kpp_cfa_tests kpp_cfa_fixtures)
target_compile_definitions(kpp_cfa_tests PRIVATE KPP_CFA_FIXTURE_DIR="${cfa_fixture_dir}")
# The test reads dwarf/'s private headers (the oracle is LLVM's own parse):
# link LLVM and match its no-RTTI build, as dwarf/ does.
target_compile_options(kpp_cfa_tests PRIVATE -fno-rtti)
target_link_libraries(kpp_cfa_tests PRIVATE kpp_dwarf kpp_llvm kpp_util GTest::gtest_main)
gtest_discover_tests(kpp_cfa_tests)
