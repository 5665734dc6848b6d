// From an SDT ProbeSpec (ProbePoint::sdt) to the uprobe definitions of its
// marker's sites, as perf probe makes them:
//
//   p:sdt_python/function__return /usr/bin/python3.11:0xc77ce(0x67dd42) arg1=%bp:u64 arg2=%r12:u64 arg3=%ax:s32
//
// group sdt_PROVIDER, event NAME, one site per note of that name (one
// multi-probe event), the semaphore as the uprobe's reference counter so
// that code guarded by it runs, and the note's operands as arg1..argN typed
// by their size and sign. No DWARF is read.
#pragma once

#include <string>
#include <vector>

#include "src/definition/probe_builder.h"
#include "src/sdt/sdt_notes.h"
#include "src/spec/probe_spec.h"
#include "util/result.h"

namespace kpp::sdt {

// Resolves `spec` against the markers of options.target_path. Arguments:
// none given means every operand (arg1..argN, those a fetch-arg cannot
// express left out with a warning); else each is argN, renamed by NAME= and
// cast by :TYPE (":string" reads the string the operand points to), or a
// raw %REG or $comm. Errors: no -x program, no such marker (the markers the
// file has are suggested), a name several providers use, a marker the
// binary contradicts (sdt_notes.h), an operand that cannot be fetched.
Result<ResolvedSpec> build_sdt_probe(const ProbeSpec &spec, const BuildOptions &options);

// Whether `specs` is not empty and every one of them parsed as an SDT spec:
// such a command reads no DWARF.
bool all_sdt_specs(const ParsedSpecs &specs);

// The lines `-F --sdt` prints for the markers of `path` whose
// "sdt_PROVIDER:NAME" matches `glob` (all when empty), sorted and unique:
// "sdt_python:function__entry". Errors: the file cannot be read.
Result<std::vector<std::string>> list_sdt_markers(const std::string &path, const std::string &glob);

}  // namespace kpp::sdt
