#include "dwarf/mapped_object.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

namespace kpp::dwarf {

using namespace llvm;

Result<MappedObject> open_mapped_object(const std::string &path) {
  // No NUL terminator needed: LLVM then maps any file of 16 KiB or more
  // (with one, a file whose size is a multiple of the page size is read
  // into the heap whole).
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) return Error("cannot open '" + path + "': " + buffer.getError().message());
  auto object = object::ObjectFile::createObjectFile((*buffer)->getMemBufferRef());
  if (!object) {
    std::string why = toString(object.takeError());
    return Error("cannot open '" + path + "': " + why);
  }
  MappedObject out;
  if ((*buffer)->getBufferKind() == MemoryBuffer::MemoryBuffer_MMap)
    out.mapping = std::string_view((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
  out.binary = object::OwningBinary<object::ObjectFile>(std::move(*object), std::move(*buffer));
  return out;
}

void drop_pages(std::string_view mapping, std::string_view range) {
  if (mapping.empty() || range.empty()) return;
  auto begin = reinterpret_cast<uintptr_t>(range.data()), end = begin + range.size();
  auto map_begin = reinterpret_cast<uintptr_t>(mapping.data()), map_end = map_begin + mapping.size();
  if (begin < map_begin || end > map_end) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  // The mapping starts on a page; its last page may be partial (the kernel
  // maps it whole), so rounding up stays inside the mapping's pages.
  begin &= ~(page - 1);
  end = std::min((end + page - 1) & ~(page - 1), (map_end + page - 1) & ~(page - 1));
  madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}

std::vector<UnitStart> map_unit_headers_alone(const std::string &path, std::string_view mapping, std::string_view info,
                                              std::span<const UnitStart> known) {
  std::vector<UnitStart> starts;
  if (mapping.empty() || info.data() < mapping.data() || info.data() + info.size() > mapping.data() + mapping.size())
    return starts;
  if (known.empty()) {
    // Each header's length leads to the next: read with pread(2), which maps nothing.
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return starts;
    uint64_t section = static_cast<uint64_t>(info.data() - mapping.data());  // the file offset of .debug_info
    for (uint64_t at = 0; at + 4 <= info.size();) {
      uint8_t length[12];
      ssize_t n = pread(fd, length, sizeof length, static_cast<off_t>(section + at));
      if (n < 4) break;
      uint32_t short_length;
      std::memcpy(&short_length, length, 4);  // little-endian hosts only: the callers check the file's order
      starts.push_back({at, short_length, 0});
      uint64_t unit_length = short_length, header = 4;
      if (short_length == 0xffffffff) {
        if (n < 12) break;
        std::memcpy(&unit_length, length + 4, 8);
        header = 12;
      }
      if (header > info.size() - at || unit_length > info.size() - at - header) break;
      at += header + unit_length;
    }
    ::close(fd);
  } else {
    starts.assign(known.begin(), known.end());
  }
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t begin = reinterpret_cast<uintptr_t>(info.data()) & ~(page - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(info.data() + info.size());
  // Writable for a moment: the mapping is private, so a write makes a copy
  // of one page and the file never changes (a shared mapping refuses).
  if (mprotect(reinterpret_cast<void *>(begin), end - begin, PROT_READ | PROT_WRITE) != 0) return starts;
  char *bytes = const_cast<char *>(info.data());
  for (const UnitStart &start : starts)
    if (start.offset + 4 <= info.size())
      std::memcpy(bytes + start.offset, &start.first_word, 4);  // the same bytes: only the write fault matters
  mprotect(reinterpret_cast<void *>(begin), end - begin, PROT_READ);
  return starts;
}

}  // namespace kpp::dwarf
