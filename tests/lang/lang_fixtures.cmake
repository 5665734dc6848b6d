# Fixture programs in Go, Rust and C++, built from sources in tests/ with
# Debian's own compilers (scripts/install-deps.sh --tests installs them):
# golang-go (Go 1.19), rustc (1.63, always /usr/bin/rustc: a rustup rustc
# first on PATH is not what a clean Debian machine has) and g++.
#
# Include this file from any tests/<area>/CMakeLists.txt, then:
#
#   kpp_go_fixture(NAME SOURCE [NOOPT] [STRIPPED])
#       One Go main package (a single file, standard library only) built with
#       `go build`: optimized as Go builds by default; NOOPT adds
#       -gcflags=all=-N -l (no optimization, no inlining: what delve uses);
#       STRIPPED links with -ldflags=-s -w (no symbol table, no DWARF: how
#       most Go services ship; only .gopclntab names the functions).
#       GOCACHE, GOPATH and GOENV stay under the build tree and GOPROXY=off:
#       the build never touches the network or $HOME.
#   kpp_rust_fixture(NAME SOURCE OPT LEVEL [V0])
#       `rustc -g -C opt-level=LEVEL` (0, 1, 2, 3, s, z); V0 adds
#       -C symbol-mangling-version=v0 (the default is legacy mangling).
#   kpp_cxx_fixture(NAME SOURCE FLAGS...)
#       `g++ -g FLAGS... -o NAME SOURCE`.
#   kpp_lang_fixture_rule(NAME SOURCE LANGUAGE COMMAND ARGS...)
#       Any other compiler: ARGS, with @OUTPUT@ for the program's path.
#
# Each writes ${KPP_LANG_FIXTURE_DIR}/NAME (one directory for every area, so
# that tests/<area> can use the programs another area declares) through a
# target lang_fixture_NAME built by default (ALL), and sets the CMake cache
# variable KPP_LANG_FIXTURE_<NAME> to the program's path; test executables
# take the path in a compile definition and add_dependencies() on the
# target. When the compiler is missing the function warns once and builds
# nothing: tests must then skip with a printed reason (a missing file).
# Tools found: KPP_GO, KPP_RUSTC, KPP_CXX_FIXTURE_COMPILER.
# Set before the guard: every directory that includes this file sees it.
set(KPP_LANG_FIXTURE_DIR ${PROJECT_BINARY_DIR}/tests/lang/fixtures)
include_guard(GLOBAL)

file(MAKE_DIRECTORY ${KPP_LANG_FIXTURE_DIR})
find_program(KPP_GO NAMES go PATHS /usr/lib/go-1.19/bin /usr/lib/go/bin NO_DEFAULT_PATH)
find_program(KPP_GO NAMES go)
find_program(KPP_RUSTC NAMES rustc PATHS /usr/bin NO_DEFAULT_PATH)
find_program(KPP_CXX_FIXTURE_COMPILER NAMES g++)

function(kpp_lang_missing tool)
  get_property(warned GLOBAL PROPERTY kpp_lang_warned_${tool})
  if(NOT warned)
    message(WARNING "tests/lang: ${tool} not found (scripts/install-deps.sh --tests), its fixtures are not built")
    set_property(GLOBAL PROPERTY kpp_lang_warned_${tool} TRUE)
  endif()
endfunction()

function(kpp_lang_fixture_target name output)
  add_custom_target(lang_fixture_${name} ALL DEPENDS ${output})
  set(KPP_LANG_FIXTURE_${name} ${output} CACHE INTERNAL "tests/lang fixture ${name}")
endfunction()

# The rule every language shares: ${KPP_LANG_FIXTURE_DIR}/NAME made from
# SOURCE by the command after COMMAND (in which @OUTPUT@ is the program's
# path), rebuilt when SOURCE changes, with its lang_fixture_NAME target.
function(kpp_lang_fixture_rule name source language)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "" "COMMAND")
  set(output ${KPP_LANG_FIXTURE_DIR}/${name})
  list(TRANSFORM arg_COMMAND REPLACE "@OUTPUT@" ${output})
  add_custom_command(OUTPUT ${output}
    COMMAND ${arg_COMMAND}
    DEPENDS ${source}
    COMMENT "${language} fixture ${name}"
    VERBATIM)
  kpp_lang_fixture_target(${name} ${output})
endfunction()

function(kpp_go_fixture name source)
  cmake_parse_arguments(PARSE_ARGV 2 arg "NOOPT;STRIPPED" "" "")
  if(NOT KPP_GO)
    kpp_lang_missing(go)
    return()
  endif()
  set(go_home ${PROJECT_BINARY_DIR}/tests/lang/go-home)
  set(flags "")
  if(arg_NOOPT)
    list(APPEND flags "-gcflags=all=-N -l")
  endif()
  if(arg_STRIPPED)
    list(APPEND flags "-ldflags=-s -w")
  endif()
  kpp_lang_fixture_rule(${name} ${source} Go COMMAND
    ${CMAKE_COMMAND} -E env GOCACHE=${go_home}/cache GOPATH=${go_home}/path GOENV=off GOPROXY=off
    GOFLAGS=-buildvcs=false GO111MODULE=off CGO_ENABLED=0 HOME=${go_home}
    ${KPP_GO} build ${flags} -o @OUTPUT@ ${source})
endfunction()

function(kpp_rust_fixture name source)
  cmake_parse_arguments(PARSE_ARGV 2 arg "V0" "OPT" "")
  if(NOT KPP_RUSTC)
    kpp_lang_missing(rustc)
    return()
  endif()
  if(NOT DEFINED arg_OPT)
    set(arg_OPT 0)
  endif()
  set(flags -g -C opt-level=${arg_OPT})
  if(arg_V0)
    list(APPEND flags -C symbol-mangling-version=v0)
  endif()
  kpp_lang_fixture_rule(${name} ${source} Rust COMMAND ${KPP_RUSTC} ${flags} -o @OUTPUT@ ${source})
endfunction()

function(kpp_cxx_fixture name source)
  if(NOT KPP_CXX_FIXTURE_COMPILER)
    kpp_lang_missing(g++)
    return()
  endif()
  kpp_lang_fixture_rule(${name} ${source} C++ COMMAND ${KPP_CXX_FIXTURE_COMPILER} -g ${ARGN} -o @OUTPUT@ ${source})
endfunction()
