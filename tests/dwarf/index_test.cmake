# The name index and its cache (dwarf/die_scan, name_index, index_cache) and
# the byte search of --no-cache lookups (name_search): the
# cached and uncached paths agree on fixture programs built here (two units,
# a static inline helper inlined in both, same-named statics), damaged and
# stale cache files are rebuilt, concurrent builders both succeed.
find_program(KPP_INDEX_GCC gcc)
find_program(KPP_INDEX_CLANG NAMES clang clang-19 clang-16 clang-14)
if(NOT KPP_INDEX_GCC)
  message(WARNING "tests/dwarf: gcc not found, index tests not built")
  return()
endif()

set(index_fixture_dir ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
file(MAKE_DIRECTORY ${index_fixture_dir})
set(index_sources ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/index_a.c ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/index_b.c)
set(index_fixtures "")
# kpp_index_fixture(NAME COMPILER "SOURCES" FLAGS...)
function(kpp_index_fixture name compiler sources)
  add_custom_command(OUTPUT ${index_fixture_dir}/${name}
    COMMAND ${compiler} ${ARGN} -o ${index_fixture_dir}/${name} ${sources}
    DEPENDS ${sources} ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/index_helpers.h
    COMMENT "index fixture ${name}"
    VERBATIM)
  set(index_fixtures ${index_fixtures} ${index_fixture_dir}/${name} PARENT_SCOPE)
endfunction()
kpp_index_fixture(index_gcc_O2 ${KPP_INDEX_GCC} "${index_sources}" -O2 -g)
kpp_index_fixture(index_gcc_O2_dwarf4 ${KPP_INDEX_GCC} "${index_sources}" -O2 -gdwarf-4)
kpp_index_fixture(index_gcc_O0 ${KPP_INDEX_GCC} "${index_sources}" -O0 -g)
# LTO, as Debian builds python3.11: the inlined copies lie in the link-time
# unit, their abstract origins in the units of the sources (DW_FORM_ref_addr),
# so the index's copies are read raw (dwarf/raw/raw_inlined_copy.h).
kpp_index_fixture(index_gcc_O2_lto ${KPP_INDEX_GCC} "${index_sources}" -O2 -g -flto)
# Its DWARF compressed, as Debian's -dbg packages ship it: read through an
# inflated copy (dwarf/elf/inflated_image.h), cached as a .dwarf file.
find_program(KPP_INDEX_OBJCOPY objcopy)
if(KPP_INDEX_OBJCOPY)
  add_custom_command(OUTPUT ${index_fixture_dir}/index_gcc_O2_zlib
    COMMAND ${KPP_INDEX_OBJCOPY} --compress-debug-sections=zlib ${index_fixture_dir}/index_gcc_O2
            ${index_fixture_dir}/index_gcc_O2_zlib
    DEPENDS ${index_fixture_dir}/index_gcc_O2
    COMMENT "index fixture index_gcc_O2_zlib")
  add_custom_command(OUTPUT ${index_fixture_dir}/index_gcc_O2_zstd
    COMMAND ${KPP_INDEX_OBJCOPY} --compress-debug-sections=zstd ${index_fixture_dir}/index_gcc_O2
            ${index_fixture_dir}/index_gcc_O2_zstd
    DEPENDS ${index_fixture_dir}/index_gcc_O2
    COMMENT "index fixture index_gcc_O2_zstd")
  list(APPEND index_fixtures ${index_fixture_dir}/index_gcc_O2_zlib ${index_fixture_dir}/index_gcc_O2_zstd)
endif()
if(KPP_INDEX_CLANG)
  kpp_index_fixture(index_clang_O2 ${KPP_INDEX_CLANG} "${index_sources}" -O2 -g)
endif()
# Split DWARF (tests/split_dwarf.cmake): the index follows the skeleton units
# into .dwo files (gcc) and a .dwp package (clang, gcc's DWARF 4).
include(${PROJECT_SOURCE_DIR}/tests/split_dwarf.cmake)
kpp_split_dwarf_build(${index_fixture_dir}/index_gcc_O2_split ${KPP_INDEX_GCC} 0 ${index_sources} -O2 -g)
list(APPEND index_fixtures ${kpp_split_dwarf_output})
kpp_split_dwarf_build(${index_fixture_dir}/index_gcc_O2_dwarf4_splitdwp ${KPP_INDEX_GCC} 1 ${index_sources} -O2 -gdwarf-4)
list(APPEND index_fixtures ${kpp_split_dwarf_output})
if(KPP_INDEX_CLANG)
  kpp_split_dwarf_build(${index_fixture_dir}/index_clang_O2_splitdwp ${KPP_INDEX_CLANG} 1 ${index_sources} -O2 -g)
  list(APPEND index_fixtures ${kpp_split_dwarf_output})
  # clang can leave copies of inlined functions in DWARF 4 skeletons too.
  kpp_split_dwarf_build(${index_fixture_dir}/index_clang_O2_dwarf4_split_inlining ${KPP_INDEX_CLANG} 0 ${index_sources}
                        -O2 -gdwarf-4 -fsplit-dwarf-inlining)
  list(APPEND index_fixtures ${kpp_split_dwarf_output})
endif()
# Return types read raw (dwarf/query/return_type.cpp) and through LLVM (the raw path
# finds the unit by .debug_aranges, which clang writes only when asked).
set(return_sources ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/return_types.c)
kpp_index_fixture(return_types_gcc_O2 ${KPP_INDEX_GCC} "${return_sources}" -O2 -g)
kpp_index_fixture(return_types_gcc_O0_dwarf4 ${KPP_INDEX_GCC} "${return_sources}" -O0 -gdwarf-4)
if(KPP_INDEX_CLANG)
  kpp_index_fixture(return_types_clang_O2_dwarf4 ${KPP_INDEX_CLANG} "${return_sources}" -O2 -gdwarf-4 -gdwarf-aranges)
endif()
add_custom_target(kpp_index_fixtures ALL DEPENDS ${index_fixtures})

add_executable(kpp_index_tests raw/die_stream_check_test.cpp index/index_cache_test.cpp elf/inflated_image_test.cpp index/name_search_test.cpp
                               query/return_type_test.cpp)
add_dependencies(kpp_index_tests kpp_index_fixtures kprobe-probe)
target_compile_definitions(kpp_index_tests PRIVATE KPP_INDEX_FIXTURE_DIR="${index_fixture_dir}"
                                                   KPP_BIN="$<TARGET_FILE:kprobe-probe>")
target_link_libraries(kpp_index_tests PRIVATE kpp_dwarf kpp_util kpp_test_common GTest::gtest_main)
gtest_discover_tests(kpp_index_tests)

# The cache makes answers faster, never different: thousands of damaged cache
# files compared with --no-cache (issue 12 item 3). A binary of its own: it
# needs the definition builder, and runs a minute or two.
add_executable(kpp_cache_damage_tests index/index_cache_damage_test.cpp)
add_dependencies(kpp_cache_damage_tests kpp_index_fixtures)
target_compile_definitions(kpp_cache_damage_tests PRIVATE KPP_INDEX_FIXTURE_DIR="${index_fixture_dir}")
target_link_libraries(kpp_cache_damage_tests PRIVATE kpp_definition kpp_spec kpp_dwarf kpp_util GTest::gtest_main)
gtest_discover_tests(kpp_cache_damage_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 900)
