# The values oracle (issue 28): fixtures in C, C++, Rust and Go at several
# optimization levels whose values kprobe-probe must show as gdb does at the
# same addresses, or refuse with a reason (values_oracle.py, cases.txt).
set(values_src ${CMAKE_CURRENT_LIST_DIR})
kpp_cxx_fixture(containers_gxx_O0 ${values_src}/containers.cpp -O0)
kpp_cxx_fixture(containers_gxx_O2 ${values_src}/containers.cpp -O2)
foreach(level 0 1 2)
  kpp_rust_fixture(values_rust_O${level} ${values_src}/values.rs OPT ${level})
endforeach()
kpp_go_fixture(values_go ${values_src}/values.go)
kpp_go_fixture(values_go_noopt ${values_src}/values.go NOOPT)
# C: float and double with gcc and clang.
find_program(KPP_VALUES_GCC gcc)
find_program(KPP_VALUES_CLANG NAMES clang clang-19 clang-16 clang-14)
foreach(cc gcc clang)
  string(TOUPPER ${cc} upper)
  if(NOT KPP_VALUES_${upper})
    continue()
  endif()
  foreach(opt O0 O2)
    kpp_lang_fixture_rule(floats_${cc}_${opt} ${values_src}/floats.c C COMMAND
      ${KPP_VALUES_${upper}} -g -${opt} -o @OUTPUT@ ${values_src}/floats.c)
  endforeach()
endforeach()

find_program(KPP_VALUES_PYTHON python3)
if(KPP_VALUES_PYTHON)
  add_test(NAME kpp_values_oracle
    COMMAND ${KPP_VALUES_PYTHON} ${values_src}/values_oracle.py --kpp $<TARGET_FILE:kprobe-probe>
            --bin-dir ${KPP_LANG_FIXTURE_DIR} --perf)
  set_tests_properties(kpp_values_oracle PROPERTIES LABELS "e2e;values" RUN_SERIAL TRUE TIMEOUT 900
                       SKIP_RETURN_CODE 77)
endif()
