#include "src/tracedat/tracedat_compress.h"

#include <zlib.h>
#include <zstd.h>

namespace kpp::tracedat {

Result<Compression> compression_from_name(const std::string &name) {
  if (name.empty() || name == "none") return Compression::None;
  if (name == "zstd") return Compression::Zstd;
  if (name == "zlib") return Compression::Zlib;
  return Error("unknown compression '" + name + "'", "use zstd, zlib or none");
}

std::string compression_name(Compression c) {
  switch (c) {
    case Compression::Zstd: return "zstd";
    case Compression::Zlib: return "zlib";
    case Compression::None: break;
  }
  return "none";
}

std::string compression_version(Compression c) {
  // Readers look the algorithm up by name; the version records what wrote it.
  switch (c) {
    case Compression::Zstd: return ZSTD_versionString();
    case Compression::Zlib: return zlibVersion();
    case Compression::None: break;
  }
  return "";
}

Result<std::string> compress_block(Compression c, std::string_view in) {
  std::string out;
  switch (c) {
    case Compression::None: return std::string(in);
    case Compression::Zstd: {
      out.resize(ZSTD_compressBound(in.size()));
      // Level 1: trace data compresses well even at the fastest level, and
      // record's finish should not keep a Ctrl-C'd user waiting.
      size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 1);
      if (ZSTD_isError(n)) return Error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
      out.resize(n);
      return out;
    }
    case Compression::Zlib: {
      uLongf n = compressBound(static_cast<uLong>(in.size()));
      out.resize(n);
      int rc = compress2(reinterpret_cast<Bytef *>(out.data()), &n, reinterpret_cast<const Bytef *>(in.data()),
                         static_cast<uLong>(in.size()), Z_BEST_SPEED);
      if (rc != Z_OK) return Error("zlib compression failed (" + std::to_string(rc) + ")");
      out.resize(n);
      return out;
    }
  }
  return Error("unknown compression");
}

Result<std::string> uncompress_block(Compression c, std::string_view in, size_t size) {
  std::string out(size, '\0');
  switch (c) {
    case Compression::None: return std::string(in);
    case Compression::Zstd: {
      size_t n = ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
      if (ZSTD_isError(n) || n != size) return Error("zstd block does not uncompress to " + std::to_string(size) + " bytes");
      return out;
    }
    case Compression::Zlib: {
      uLongf n = static_cast<uLongf>(size);
      int rc = uncompress(reinterpret_cast<Bytef *>(out.data()), &n, reinterpret_cast<const Bytef *>(in.data()),
                          static_cast<uLong>(in.size()));
      if (rc != Z_OK || n != size) return Error("zlib block does not uncompress to " + std::to_string(size) + " bytes");
      return out;
    }
  }
  return Error("unknown compression");
}

}  // namespace kpp::tracedat
