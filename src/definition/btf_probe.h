// Probes from BTF alone, for a kernel whose DWARF vmlinux is not at hand:
// a function's entry with its parameters by name (BTF FUNC_PROTO names them,
// the calling convention of arch/ says which register holds each), and its
// return with a typed $retval. A parameter's member chain ("file->f_pos")
// is left to the kernel where its probe events read BTF chains (6.6 on);
// lines, offsets, locals, and chains elsewhere need DWARF and are refused
// with that reason.
#pragma once

#include "arch/arch.h"
#include "src/btf/btf.h"
#include "src/definition/probe_builder.h"

namespace kpp {

Result<ResolvedSpec> build_btf_probe(const ProbeSpec &spec, const btf::Btf &btf, const arch::Registers &regs,
                                     const BuildOptions &options);

// The fetch type of a BTF scalar, as the DWARF path names it: u64 for size_t,
// s32 for int, x64 for pointers, u8 for bool; an error for a struct by value.
Result<std::string> btf_fetch_type(const btf::Scalar &scalar, const std::string &what);

}  // namespace kpp
