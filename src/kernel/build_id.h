// Build-ids of the running kernel and its modules, read from the ELF notes
// the kernel exports (/sys/kernel/notes, /sys/module/NAME/notes/), so that a
// vmlinux or .ko on disk can be checked against what actually runs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kpp {

// The running kernel's build-id; "" when /sys/kernel/notes cannot be read.
std::string running_kernel_build_id();

// A loaded module's build-id; "" when the module is not loaded or has none.
std::string loaded_module_build_id(const std::string &module);

// The kernel's release (uname -r).
std::string kernel_release();

// The running kernel's /lib/modules/RELEASE/modules.dep; "" when it cannot be read.
std::string running_modules_dep();

// The running machine as an ELF e_machine (uname -m: x86_64 -> 62), for
// probes that have no ELF file to tell it (BTF); 0 when unknown.
uint16_t running_machine();

}  // namespace kpp
