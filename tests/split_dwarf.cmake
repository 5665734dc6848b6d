# kpp_split_dwarf_build(OUT COMPILER PACKAGE SOURCES... FLAGS...): builds the
# program OUT with -gsplit-dwarf, for the test areas that read split DWARF.
# The compiler runs in a directory of OUT's own (OUT.build/): clang writes
# each .dwo in its working directory, named after the source, and builds
# must not overwrite each other's; gcc writes them beside OUT. With PACKAGE
# true, llvm-dwp packs them into OUT.dwp and they are removed, so that only
# the package can serve. Arguments after SOURCES that start with '-' are
# flags. Sets kpp_split_dwarf_output in the caller to OUT (empty when
# PACKAGE is asked for and llvm-dwp is not installed).
#
# llvm-dwp 19 can spin forever on gcc's DWARF 5 .dwo files whose
# abbreviations use DW_FORM_implicit_const (llvm/llvm-project#203625, fixed
# after 19; whether a file trips it depends on its bytes): it runs under
# timeout, so that such a file fails the build instead of hanging it, and
# the corpus packs no gcc DWARF 5 build.
find_program(KPP_LLVM_DWP NAMES llvm-dwp-19 llvm-dwp)
find_program(KPP_TIMEOUT timeout)

function(kpp_split_dwarf_build out compiler package)
  set(sources "")
  set(flags "")
  foreach(arg IN LISTS ARGN)
    if(arg MATCHES "^-")
      list(APPEND flags ${arg})
    else()
      list(APPEND sources ${arg})
    endif()
  endforeach()
  set(kpp_split_dwarf_output "" PARENT_SCOPE)
  if(package AND NOT KPP_LLVM_DWP)
    return()
  endif()
  set(dir ${out}.build)
  file(MAKE_DIRECTORY ${dir})
  set(commands COMMAND ${compiler} ${flags} -gsplit-dwarf -o ${out} ${sources})
  if(package)
    set(dwos "")
    foreach(source IN LISTS sources)
      get_filename_component(stem ${source} NAME_WE)
      list(APPEND dwos ${out}-${stem}.dwo ${dir}/${stem}.dwo)
    endforeach()
    set(dwp ${KPP_LLVM_DWP})
    if(KPP_TIMEOUT)
      set(dwp ${KPP_TIMEOUT} 120 ${KPP_LLVM_DWP})
    endif()
    list(APPEND commands COMMAND ${dwp} -e ${out} -o ${out}.dwp COMMAND ${CMAKE_COMMAND} -E rm -f ${dwos})
  endif()
  get_filename_component(name ${out} NAME)
  add_custom_command(OUTPUT ${out} ${commands}
    WORKING_DIRECTORY ${dir}
    DEPENDS ${sources}
    COMMENT "split-DWARF build ${name}"
    VERBATIM)
  set(kpp_split_dwarf_output ${out} PARENT_SCOPE)
endfunction()
