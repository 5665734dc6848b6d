#include "src/kernel/build_id.h"

#include <sys/utsname.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kpp {

namespace {

std::string read_all(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

uint32_t u32_at(std::string_view s, size_t at) {
  uint32_t v;
  std::memcpy(&v, s.data() + at, 4);
  return v;
}

size_t pad4(size_t n) { return (n + 3) / 4 * 4; }

}  // namespace

std::string build_id_from_notes(std::string_view notes) {
  constexpr uint32_t nt_gnu_build_id = 3;
  size_t at = 0;
  while (at + 12 <= notes.size()) {
    uint32_t namesz = u32_at(notes, at), descsz = u32_at(notes, at + 4), type = u32_at(notes, at + 8);
    size_t name_at = at + 12, desc_at = name_at + pad4(namesz);
    if (desc_at + descsz > notes.size()) break;
    if (type == nt_gnu_build_id && namesz == 4 && notes.substr(name_at, 4) == std::string_view("GNU\0", 4)) {
      static const char digits[] = "0123456789abcdef";
      std::string id;
      for (size_t i = 0; i < descsz; ++i) {
        auto b = static_cast<unsigned char>(notes[desc_at + i]);
        id += digits[b >> 4];
        id += digits[b & 15];
      }
      return id;
    }
    at = desc_at + pad4(descsz);
  }
  return {};
}

std::string running_kernel_build_id() { return build_id_from_notes(read_all("/sys/kernel/notes")); }

std::string loaded_module_build_id(const std::string &module) {
  return build_id_from_notes(read_all("/sys/module/" + module + "/notes/.note.gnu.build-id"));
}

std::string running_modules_dep() { return read_all("/lib/modules/" + kernel_release() + "/modules.dep"); }

std::string kernel_release() {
  utsname u{};
  uname(&u);
  return u.release;
}

uint16_t running_machine() {
  utsname u{};
  uname(&u);
  static const std::pair<const char *, uint16_t> known[] = {
      {"x86_64", 62}, {"aarch64", 183}, {"riscv64", 243}, {"s390x", 22}, {"ppc64le", 21}, {"loongarch64", 258}};
  for (const auto &[name, machine] : known)
    if (std::strcmp(u.machine, name) == 0) return machine;
  return 0;
}

}  // namespace kpp
