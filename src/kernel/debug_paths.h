// Where distributions put the kernel's debug information: the DWARF vmlinux
// and the modules' debug .ko files. Pure functions of the release, the
// build-id and modules.dep, so tests need no such files.
#pragma once

#include <string>
#include <vector>

namespace kpp {

// The DWARF vmlinux candidates, in the order perf probe tries them, then the
// build-id path (/usr/lib/debug/.build-id/xx/yyyy.debug) when `build_id` is known.
std::vector<std::string> vmlinux_candidates(const std::string &release, const std::string &build_id);

// Module names as the kernel writes them: '-' becomes '_' ("dm-mod" -> "dm_mod").
std::string canonical_module_name(const std::string &name);

// The module's path relative to /lib/modules/RELEASE in a modules.dep text
// ("kernel/drivers/block/loop.ko", compression suffixes kept); "" when absent.
std::string module_path_in_dep(const std::string &modules_dep, const std::string &module);

// Where the debug .ko of a module may be: the distribution's debug tree (the
// path from modules.dep, compression suffix dropped), the build-id path, then
// the installed module itself (self-built kernels keep their DWARF there).
std::vector<std::string> module_debug_candidates(const std::string &release, const std::string &dep_path,
                                                 const std::string &build_id);

}  // namespace kpp
