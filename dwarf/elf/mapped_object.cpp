#include "dwarf/elf/mapped_object.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include "dwarf/elf/elf_bounds.h"
#include "util/crash_note.h"
#include "util/unique_fd.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

// What a file that is not a regular file is, for the message that refuses it.
const char *kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

Result<MappedObject> open_mapped_object(const std::string &path) {
  // Only a regular file is read: a FIFO would block for ever, /dev/zero or
  // /dev/urandom never end. O_NONBLOCK: opening a FIFO does not wait for a writer.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return Error("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return Error("cannot open '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Error("'" + path + "' is " + kind_of(st.st_mode) + ", not a program or debug file");
  note_file_opened(path);  // for the message if reading it crashes (src/cli/supervisor.h)
  // No NUL terminator needed: LLVM then maps any file of 16 KiB or more
  // (with one, a file whose size is a multiple of the page size is read
  // into the heap whole).
  auto buffer = MemoryBuffer::getOpenFile(fd.get(), path, static_cast<uint64_t>(st.st_size), /*RequiresNullTerminator=*/false);
  if (!buffer) return Error("cannot open '" + path + "': " + buffer.getError().message());
  std::string_view bytes((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
  // The check reads every line table's header, each read mapping the 64 KiB
  // around it (~16 MB of a vmlinux's .debug_line, for a -F that reads no
  // DWARF): given back as it goes.
  bool mapped = (*buffer)->getBufferKind() == MemoryBuffer::MemoryBuffer_MMap;
  auto give_back = [&](std::string_view read) { drop_pages(bytes, read); };
  if (Status bounded = check_elf_bounds(bytes, path, mapped ? give_back : std::function<void(std::string_view)>());
      !bounded)
    return std::move(bounded).error();
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

std::vector<UnitStart> map_unit_headers_alone(const std::string &path, std::string_view mapping, std::string_view info,
                                              std::span<const UnitStart> known) {
  std::vector<UnitStart> starts;
  if (mapping.empty() || info.data() < mapping.data() || info.data() + info.size() > mapping.data() + mapping.size())
    return starts;
  // A unit header is at least 11 bytes: a cached list that claims more units
  // than fit (a damaged .units file) is not used.
  if (known.size() > info.size() / 11 + 1) known = {};
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
  // A compare-and-swap of zero for zero is a write (x86 writes the old byte
  // back when the compare fails; compilers keep it, unlike an OR of zero)
  // that changes nothing: the page is copied with the file's bytes, whatever
  // `known` (a cache file, which may be damaged or crafted) says they are.
  // (Writing back first_word, as this did, let a crafted .units file change
  // the DWARF LLVM then reads.) So a wrong offset costs a page, never a
  // different answer.
  for (const UnitStart &start : starts) {
    if (start.offset >= info.size()) continue;
    uint8_t zero = 0;
    __atomic_compare_exchange_n(reinterpret_cast<uint8_t *>(bytes + start.offset), &zero, uint8_t{0}, false,
                                __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  mprotect(reinterpret_cast<void *>(begin), end - begin, PROT_READ);
  return starts;
}

}  // namespace kpp::dwarf
