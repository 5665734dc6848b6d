// The compression algorithms a version 7 trace.dat may name: zstd and zlib,
// as trace-cmd's plugins ("zstd", "zlib") write them -- one zstd frame or
// one zlib stream per block. Internal to kpp_tracedat (and its tests).
#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace kpp::tracedat {

enum class Compression { None, Zstd, Zlib };

// "none", "zstd", "zlib" (also "" = none). Error names the accepted ones.
Result<Compression> compression_from_name(const std::string &name);
// The name and version a v7 file's compression header carries ("none", "").
std::string compression_name(Compression c);
std::string compression_version(Compression c);

// One compressed block. Errors only on library failure.
Result<std::string> compress_block(Compression c, std::string_view in);
// The inverse, for a block whose uncompressed size is known (tests).
Result<std::string> uncompress_block(Compression c, std::string_view in, size_t size);

}  // namespace kpp::tracedat
