# elf/elf_image_test.cpp: the program's ELF image (dwarf/elf/elf_image.h) on a
# program with a build-id built here (fixtures/elf_image.c), and a copy
# stripped of every symbol whose .gnu_debuglink names its separate debug
# file beside it.
find_program(KPP_DWARF_OBJCOPY objcopy)
if(NOT KPP_DWARF_OBJCOPY)
  message(WARNING "tests/dwarf: objcopy not found, ELF image tests (elf_image_test) not built")
  return()
endif()
add_executable(kpp_elf_image_fixture fixtures/elf_image.c)
target_compile_options(kpp_elf_image_fixture PRIVATE -g -O0)
target_link_options(kpp_elf_image_fixture PRIVATE -Wl,--build-id=sha1)
set(elf_image_dir ${CMAKE_CURRENT_BINARY_DIR}/elf_image)
file(MAKE_DIRECTORY ${elf_image_dir})
set(elf_image_stripped ${elf_image_dir}/stripped)
add_custom_command(OUTPUT ${elf_image_stripped} ${elf_image_dir}/stripped.debug
  COMMAND ${KPP_DWARF_OBJCOPY} --only-keep-debug $<TARGET_FILE:kpp_elf_image_fixture> stripped.debug
  COMMAND ${KPP_DWARF_OBJCOPY} --strip-all --add-gnu-debuglink=stripped.debug
          $<TARGET_FILE:kpp_elf_image_fixture> stripped
  WORKING_DIRECTORY ${elf_image_dir}
  DEPENDS kpp_elf_image_fixture
  COMMENT "stripped ELF image fixture and its debug file"
  VERBATIM)
add_custom_target(kpp_elf_image_fixtures ALL DEPENDS ${elf_image_stripped})

add_executable(kpp_elf_image_tests elf/elf_image_test.cpp)
target_compile_definitions(kpp_elf_image_tests PRIVATE
  KPP_ELF_IMAGE_FIXTURE="$<TARGET_FILE:kpp_elf_image_fixture>"
  KPP_ELF_IMAGE_STRIPPED="${elf_image_stripped}")
add_dependencies(kpp_elf_image_tests kpp_elf_image_fixtures)
# ElfImage is a private header of dwarf/ (it names LLVM's object file):
# link LLVM and match its no-RTTI build, as dwarf/ does.
target_compile_options(kpp_elf_image_tests PRIVATE -fno-rtti)
target_link_libraries(kpp_elf_image_tests PRIVATE kpp_dwarf kpp_llvm kpp_util GTest::gtest_main)
gtest_discover_tests(kpp_elf_image_tests)
