#include "src/kernel/build_id.h"

#include <sys/utsname.h>

#include <cstdint>
#include <cstring>

#include "util/elf_notes.h"
#include "util/files.h"

namespace kpp {

std::string running_kernel_build_id() { return gnu_build_id(read_file_or_empty("/sys/kernel/notes")); }

std::string loaded_module_build_id(const std::string &module) {
  return gnu_build_id(read_file_or_empty("/sys/module/" + module + "/notes/.note.gnu.build-id"));
}

std::string running_modules_dep() { return read_file_or_empty("/lib/modules/" + kernel_release() + "/modules.dep"); }

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
