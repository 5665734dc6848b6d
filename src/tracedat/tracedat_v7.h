// trace.dat version 7 (REFERENCE.md section 2; trace-cmd.dat.v7(5)), as
// trace-cmd 3.1 reads it: after the initial header, the compression header
// and the offset of the first options section, a set of sections, each
// "2-byte id, 2-byte flags (1 = compressed), 4-byte string id, 8-byte size".
// We write, in this order:
//   sections 16..21   header info, ftrace formats, event formats, kallsyms,
//                     printk formats, cmdlines (bodies as in v6; compressed
//                     as "4-byte size, 4-byte size uncompressed, blob")
//   section 3         the flyrecord data of one buffer, the top instance "":
//                     per CPU, page-aligned, raw pages, or compressed as
//                     "4-byte chunk count, then per chunk 4-byte size,
//                     4-byte size uncompressed (whole pages), blob"
//   section 0         the only options section: offsets of 16..21, trace
//                     clock, uname, CPU count, BUFFER (offset of section 3,
//                     name, clock, page size, CPUs, per CPU id/offset/size),
//                     DONE with 0 (no further options section)
//   section 15        the strings the section headers name, for dump tools
// Internal to kpp_tracedat.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/tracedat/tracedat_compress.h"
#include "src/tracedat/tracedat_metadata.h"
#include "util/result.h"

namespace kpp::tracedat {

// Writes the whole file to `out_fd` (empty, at offset 0). CPU c's raw pages
// are the first cpu_bytes[c] bytes of cpu_fds[c]. `what` names the file in errors.
// `release`: the CPU files' bytes are given back as they are copied (a full
// disk, copy_block(release)).
Status write_v7(int out_fd, const std::string &what, const Metadata &meta, int page_size,
                const std::vector<int> &cpu_fds, const std::vector<uint64_t> &cpu_bytes, Compression compression,
                bool release = false);

// Pages per compressed chunk of CPU data: big enough to compress well, small
// enough that a reader decompresses little to reach one page.
constexpr int kPagesPerChunk = 16;

}  // namespace kpp::tracedat
