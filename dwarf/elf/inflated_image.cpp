#include "dwarf/elf/inflated_image.h"

#include "dwarf/elf_reader.h"

#include "dwarf/index/index_cache.h"
#include "dwarf/index/name_index.h"

#include <elf.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace kpp::dwarf {

namespace {

constexpr uint32_t kCompressZstd = 2;  // ELFCOMPRESS_ZSTD (glibc's elf.h names it from 2.37 on)

// A section's place in the source file and in the image.
struct ImagePiece {
  uint64_t from = 0, from_size = 0;  // in the source: the data (after the compression header)
  uint64_t to = 0, to_size = 0;      // in the image
  uint32_t compression = 0;          // ELFCOMPRESS_*; 0: copied as it is
};

struct Plan {
  InflatedLayout layout;
  std::vector<ImagePiece> pieces;
};

uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

// Alignments as the image lays sections out: a power of two up to 64 KiB
// (a crafted one cannot make the image huge).
uint64_t usable_alignment(uint64_t alignment) {
  if (alignment <= 1 || (alignment & (alignment - 1)) != 0) return 1;
  return std::min<uint64_t>(alignment, 64 << 10);
}

// An ELF64 little-endian file's header and section headers (as the image
// rewrites them), or nullopt when `elf` is not one or its section headers
// lie out of the file (the one ELF header reader's checks).
struct SectionHeaders {
  Elf64_Ehdr header;
  std::vector<Elf64_Shdr> sections;
};
std::optional<SectionHeaders> section_headers_of(std::string_view elf) {
  if constexpr (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) return std::nullopt;
  auto reader = ElfReader::of(elf);
  if (!reader || !reader->is64() || !reader->is_little_endian()) return std::nullopt;
  SectionHeaders out;
  std::memcpy(&out.header, elf.data(), sizeof out.header);  // the reader read its fields: it is all there
  // Extended numbering (e_shnum 0) is left to LLVM, as is a file without sections.
  if (out.header.e_shnum == 0) return std::nullopt;
  for (const ElfSectionHeader &s : reader->sections())
    out.sections.push_back(Elf64_Shdr{s.name_offset, s.type, s.flags, s.address, s.offset, s.size,
                                      static_cast<Elf64_Word>(s.link), static_cast<Elf64_Word>(s.info), s.alignment,
                                      s.entry_size});
  return out;
}

// Whether section `s` is named in `leave_out`, by the section name table
// `names` (empty when it is compressed or out of the file: nothing is).
bool is_left_out(const Elf64_Shdr &s, std::string_view names, const std::vector<std::string> &leave_out) {
  if (s.sh_name >= names.size()) return false;
  std::string_view name = names.substr(s.sh_name);
  name = name.substr(0, name.find('\0'));
  return std::find(leave_out.begin(), leave_out.end(), name) != leave_out.end();
}

// Section `s`'s piece of the image, its header rewritten as the image has it
// (inflated: no longer compressed, its inflated size and alignment), or
// nullopt when its compression header is out of the section or unknown.
std::optional<ImagePiece> piece_of(std::string_view elf, Elf64_Shdr &s, uint64_t &alignment) {
  alignment = s.sh_addralign;
  if (!(s.sh_flags & SHF_COMPRESSED)) return ImagePiece{s.sh_offset, s.sh_size, 0, s.sh_size, 0};
  Elf64_Chdr chdr;
  if (s.sh_size < sizeof chdr) return std::nullopt;
  std::memcpy(&chdr, elf.data() + s.sh_offset, sizeof chdr);
  if (chdr.ch_type != ELFCOMPRESS_ZLIB && chdr.ch_type != kCompressZstd) return std::nullopt;
  ImagePiece piece{s.sh_offset + sizeof chdr, s.sh_size - sizeof chdr, 0, chdr.ch_size, chdr.ch_type};
  alignment = chdr.ch_addralign;
  s.sh_flags &= ~static_cast<uint64_t>(SHF_COMPRESSED);
  s.sh_size = chdr.ch_size;
  s.sh_addralign = chdr.ch_addralign;
  return piece;
}

// The image's layout, or nullopt when `elf` is not a file this unit handles
// (not ELF64 little-endian, a header out of the file, nothing compressed):
// LLVM then reads it as it is.
std::optional<Plan> plan(std::string_view elf, const std::vector<std::string> &leave_out = {}) {
  std::optional<SectionHeaders> headers = section_headers_of(elf);
  if (!headers) return std::nullopt;
  auto &[header, sections] = *headers;
  // The section names, for leave_out (an uncompressed string table inside the file).
  std::string_view names;
  if (!leave_out.empty() && header.e_shstrndx < sections.size()) {
    const Elf64_Shdr &t = sections[header.e_shstrndx];
    if (!(t.sh_flags & SHF_COMPRESSED) && t.sh_offset <= elf.size() && t.sh_size <= elf.size() - t.sh_offset)
      names = elf.substr(t.sh_offset, t.sh_size);
  }
  Plan out;
  uint64_t at = sizeof header, compressed_bytes = 0, inflated_bytes = 0;
  bool any = false;
  for (Elf64_Shdr &s : sections) {
    if (s.sh_type == SHT_NOBITS || s.sh_type == SHT_NULL || s.sh_size == 0) continue;
    if (s.sh_offset > elf.size() || s.sh_size > elf.size() - s.sh_offset) return std::nullopt;
    if (is_left_out(s, names, leave_out)) {
      s.sh_flags &= ~static_cast<uint64_t>(SHF_COMPRESSED);
      s.sh_size = 0;
      s.sh_offset = at;
      continue;
    }
    uint64_t alignment = 0;
    std::optional<ImagePiece> piece = piece_of(elf, s, alignment);
    if (!piece) return std::nullopt;
    if (piece->compression != 0) {
      compressed_bytes += piece->from_size;
      inflated_bytes += piece->to_size;
      any = true;
    }
    at = align_up(at, usable_alignment(alignment));
    piece->to = s.sh_offset = at;
    at += piece->to_size;
    out.pieces.push_back(*piece);
  }
  // Real DWARF inflates 3-10 times; the image lives in memory (a memfd) or
  // the cache: a file claiming more is left to LLVM and check_elf_bounds().
  if (!any || inflated_bytes > 64 * compressed_bytes + (1 << 20) || inflated_bytes > (uint64_t{4} << 30)) return std::nullopt;
  header.e_phoff = 0;  // the program headers place the program's bytes, not the image's
  header.e_phnum = 0;
  header.e_shoff = align_up(at, 8);
  out.layout.section_headers_offset = header.e_shoff;
  out.layout.size = header.e_shoff + sections.size() * sizeof(Elf64_Shdr);
  out.layout.headers.assign(reinterpret_cast<const char *>(&header), sizeof header);
  out.layout.headers.append(reinterpret_cast<const char *>(sections.data()), sections.size() * sizeof(Elf64_Shdr));
  return out;
}

Status write_all(int fd, const char *data, uint64_t size, uint64_t offset) {
  while (size > 0) {
    ssize_t n = ::pwrite(fd, data, std::min<uint64_t>(size, 1 << 30), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error(std::string("cannot write the inflated DWARF: ") + std::strerror(n < 0 ? errno : ENOSPC));
    data += n;
    size -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return Ok{};
}

constexpr size_t kChunk = 1 << 20;  // inflated a megabyte at a time, written, then reused

// Inflates one zlib-compressed piece into the image.
Status inflate_zlib(std::string_view elf, const ImagePiece &p, int fd, std::vector<char> &chunk) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return Error("cannot start zlib");
  z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(elf.data() + p.from));
  uint64_t in_left = p.from_size, done = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef *>(chunk.data());
    z.avail_out = static_cast<uInt>(chunk.size());
    if (z.avail_in == 0) {
      z.avail_in = static_cast<uInt>(std::min<uint64_t>(in_left, 1u << 30));
      in_left -= z.avail_in;
    }
    rc = inflate(&z, Z_NO_FLUSH);
    size_t produced = chunk.size() - z.avail_out;
    if ((rc != Z_OK && rc != Z_STREAM_END) || (rc == Z_OK && produced == 0 && z.avail_in == 0 && in_left == 0) ||
        produced > p.to_size - done) {
      inflateEnd(&z);
      return Error("a compressed section does not inflate to the size its header claims");
    }
    if (Status w = write_all(fd, chunk.data(), produced, p.to + done); !w) {
      inflateEnd(&z);
      return w;
    }
    done += produced;
  }
  inflateEnd(&z);
  if (done != p.to_size) return Error("a compressed section inflates to less than its header claims");
  return Ok{};
}

// The same for a zstd-compressed piece.
Status inflate_zstd(std::string_view elf, const ImagePiece &p, int fd, std::vector<char> &chunk) {
  std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream *)> stream(ZSTD_createDStream(), ZSTD_freeDStream);
  if (!stream) return Error("cannot start zstd");
  ZSTD_inBuffer in{elf.data() + p.from, p.from_size, 0};
  uint64_t done = 0;
  for (;;) {
    ZSTD_outBuffer out{chunk.data(), chunk.size(), 0};
    size_t rc = ZSTD_decompressStream(stream.get(), &out, &in);
    if (ZSTD_isError(rc) || out.pos > p.to_size - done)
      return Error("a compressed section does not inflate to the size its header claims");
    if (Status w = write_all(fd, chunk.data(), out.pos, p.to + done); !w) return w;
    done += out.pos;
    if (rc == 0 || (in.pos == in.size && out.pos == 0)) break;
  }
  if (done != p.to_size) return Error("a compressed section inflates to less than its header claims");
  // All of the data, as a one-call inflation reads it: bytes after the frame are damage.
  if (in.pos != in.size) return Error("a compressed section has bytes after its compressed data");
  return Ok{};
}

// One piece's pages of the image, mapped for writing while it is inflated;
// unmapped after, the pages stay in the file (a memfd or the cache's).
class MappedPiece {
 public:
  // `populate`: with its pages faulted in now, by this thread.
  MappedPiece(int fd, const ImagePiece &p, bool populate) {
    const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    uint64_t start = p.to / page * page;
    length_ = p.to + p.to_size - start;
    void *m = ::mmap(nullptr, length_, PROT_READ | PROT_WRITE, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd,
                     static_cast<off_t>(start));
    if (m != MAP_FAILED) {
      base_ = static_cast<char *>(m);
      data_ = base_ + (p.to - start);
    }
  }
  ~MappedPiece() {
    if (base_) ::munmap(base_, length_);
  }
  MappedPiece(const MappedPiece &) = delete;
  MappedPiece &operator=(const MappedPiece &) = delete;
  char *data() const { return data_; }
  // Faults its pages in, writable, from another thread than the one
  // writing them (Linux 5.14; before, the writer faults them itself).
  void populate() const {
#ifndef MADV_POPULATE_WRITE
    constexpr int MADV_POPULATE_WRITE = 23;
#endif
    (void)::madvise(base_, length_, MADV_POPULATE_WRITE);
  }

 private:
  char *base_ = nullptr, *data_ = nullptr;
  uint64_t length_ = 0;
};

// The decoders one thread reuses for every piece it inflates in one call.
struct Decoders {
  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor *)> zlib{libdeflate_alloc_decompressor(),
                                                                                    libdeflate_free_decompressor};
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx *)> zstd{ZSTD_createDCtx(), ZSTD_freeDCtx};
};

// Inflates a compressed piece in one call into `out`, its pages of the image
// (whose blocks are reserved, or a memfd's: a write there cannot fault for
// want of a block).
Status inflate_mapped(std::string_view elf, const ImagePiece &p, const MappedPiece &out, Decoders &decoders) {
  if (!decoders.zlib || !decoders.zstd) return Error("cannot start the decompressor");
  if (!out.data()) return Error(std::string("cannot map the inflated DWARF: ") + std::strerror(errno));
  const char *in = elf.data() + p.from;
  bool whole;
  if (p.compression == ELFCOMPRESS_ZLIB) {
    size_t produced = 0;
    whole = libdeflate_zlib_decompress(decoders.zlib.get(), in, p.from_size, out.data(), p.to_size, &produced) ==
                LIBDEFLATE_SUCCESS &&
            produced == p.to_size;
  } else {
    size_t produced = ZSTD_decompressDCtx(decoders.zstd.get(), out.data(), p.to_size, in, p.from_size);
    whole = !ZSTD_isError(produced) && produced == p.to_size;
  }
  if (!whole) return Error("a compressed section does not inflate to the size its header claims");
  return Ok{};
}

// Reserves the image's blocks, so that writing through a mapping cannot meet
// a full disk (SIGBUS); false when the file system cannot (the pieces are
// then written with pwrite(2), which reports ENOSPC).
bool reserve(int fd, uint64_t size) { return ::posix_fallocate(fd, 0, static_cast<off_t>(size)) == 0; }

// The first error of several threads.
struct FirstError {
  std::mutex lock;
  std::optional<Error> error;
  void keep(Status s) {
    std::lock_guard<std::mutex> hold(lock);
    if (!error) error = std::move(s).error();
  }
};

// The pieces, the largest first, so that two threads finish together.
std::vector<const ImagePiece *> largest_first(const std::vector<ImagePiece> &pieces) {
  std::vector<const ImagePiece *> order;
  for (const ImagePiece &piece : pieces) order.push_back(&piece);
  std::sort(order.begin(), order.end(), [](const ImagePiece *a, const ImagePiece *b) { return a->to_size > b->to_size; });
  return order;
}

// The image's ELF header and section headers, written last: a file cut
// short before them is no ELF file.
Status write_headers(int fd, const InflatedLayout &layout) {
  const std::string &headers = layout.headers;
  if (Status w = write_all(fd, headers.data(), sizeof(Elf64_Ehdr), 0); !w) return w;
  return write_all(fd, headers.data() + sizeof(Elf64_Ehdr), headers.size() - sizeof(Elf64_Ehdr),
                   layout.section_headers_offset);
}

}  // namespace

bool has_compressed_sections(std::string_view elf) { return plan(elf).has_value(); }

std::optional<InflatedLayout> inflated_layout(std::string_view elf) {
  auto p = plan(elf);
  if (!p) return std::nullopt;
  return std::move(p->layout);
}

// Pieces up to options.one_call_limit are inflated in one call straight into
// the image's pages: libdeflate inflates twice as fast as zlib (python3.11's
// 21 MB: 45 against 97 ms), and nothing is copied. The pages of a piece are
// resident while it is inflated, so larger pieces stream through a chunk.
Status write_inflated_image(std::string_view elf, int fd, const InflateOptions &options) {
  auto p = plan(elf, options.leave_out);
  if (!p) return Error("nothing to inflate");
  if (::ftruncate(fd, static_cast<off_t>(p->layout.size)) != 0)
    return Error(std::string("cannot size the inflated DWARF: ") + std::strerror(errno));
  const std::vector<const ImagePiece *> order = largest_first(p->pieces);
  FirstError failed;
  // Blocks are reserved only when a piece will be written through a mapping.
  auto in_one_call = [&](const ImagePiece &piece) { return piece.compression != 0 && piece.to_size <= options.one_call_limit; };
  const bool mappable = std::any_of(p->pieces.begin(), p->pieces.end(), in_one_call) &&
                        (!options.reserve || reserve(fd, p->layout.size));
  const unsigned threads = static_cast<unsigned>(std::min<size_t>(std::max(1u, options.threads), order.size()));
  // The largest piece is the long pole (python3.11's .debug_info: 11 of its
  // 22 MB, ~30 ms to inflate). This thread starts on it at once, into a
  // mapping whose pages the first helper faults in ahead of it (~8 ms that
  // were this thread's), before that helper takes pieces of its own.
  std::optional<MappedPiece> lead;
  if (mappable && threads > 1 && in_one_call(*order[0])) lead.emplace(fd, *order[0], /*populate=*/false);
  std::atomic<bool> lead_populated{!lead};
  std::atomic<size_t> next{lead ? size_t{1} : 0};
  auto work = [&](bool populates_lead) {
    if (populates_lead) {
      lead->populate();
      lead_populated = true;
      lead_populated.notify_one();
    }
    std::vector<char> chunk;
    Decoders decoders;
    if (lead && !populates_lead) {
      if (Status s = inflate_mapped(elf, *order[0], *lead, decoders); !s) {
        failed.keep(std::move(s));
        next = order.size();
      }
      lead_populated.wait(false);  // the helper is done with the mapping
      lead.reset();
    }
    for (size_t i; (i = next++) < order.size();) {
      const ImagePiece &piece = *order[i];
      const bool mapped = mappable && in_one_call(piece);
      if (piece.compression != 0 && !mapped) chunk.resize(kChunk);
      Status s = piece.compression == 0               ? write_all(fd, elf.data() + piece.from, piece.from_size, piece.to)
                 : mapped                             ? inflate_mapped(elf, piece, MappedPiece(fd, piece, true), decoders)
                 : piece.compression == ELFCOMPRESS_ZLIB ? inflate_zlib(elf, piece, fd, chunk)
                                                         : inflate_zstd(elf, piece, fd, chunk);
      if (!s) {
        failed.keep(std::move(s));
        next = order.size();
      }
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(work, t == 1 && lead.has_value());
  work(false);
  for (std::thread &t : helpers) t.join();
  if (failed.error) return std::move(*failed.error);
  return write_headers(fd, p->layout);
}

namespace {

struct Trailer {
  char magic[8];
  uint64_t identity;
  uint64_t checksum;
};
constexpr char kTrailerMagic[8] = {'K', 'P', 'P', 'I', 'N', 'F', 'L', '1'};

uint64_t identity_sum(std::string_view identity) {
  return image_checksum(reinterpret_cast<const uint8_t *>(identity.data()), identity.size());
}

}  // namespace

Status seal_inflated_image(int fd, const InflatedLayout &layout, std::string_view identity) {
  std::optional<uint64_t> sum = checksum_of_file(fd, 0, layout.size);
  if (!sum) return Error("cannot read the inflated DWARF back");
  Trailer t{};
  std::memcpy(t.magic, kTrailerMagic, sizeof t.magic);
  t.identity = identity_sum(identity);
  t.checksum = *sum;
  return write_all(fd, reinterpret_cast<const char *>(&t), sizeof t, layout.size);
}

bool is_inflated_image(int fd, const InflatedLayout &layout, std::string_view identity) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) != layout.size + sizeof(Trailer))
    return false;
  std::string have(layout.headers.size(), '\0');
  size_t header = sizeof(Elf64_Ehdr);
  if (::pread(fd, have.data(), header, 0) != static_cast<ssize_t>(header)) return false;
  ssize_t rest = static_cast<ssize_t>(have.size() - header);
  if (::pread(fd, have.data() + header, static_cast<size_t>(rest), static_cast<off_t>(layout.section_headers_offset)) != rest)
    return false;
  if (have != layout.headers) return false;
  Trailer t{};
  if (::pread(fd, &t, sizeof t, static_cast<off_t>(layout.size)) != static_cast<ssize_t>(sizeof t)) return false;
  if (std::memcmp(t.magic, kTrailerMagic, sizeof t.magic) != 0 || t.identity != identity_sum(identity)) return false;
  return checksum_of_file(fd, 0, layout.size) == t.checksum;
}

}  // namespace kpp::dwarf
