// Whether two paths name one file: the same device and inode (a path
// through a symlink, /proc/PID/root or /proc/PID/exe included).
#pragma once

#include <string>

namespace kpp {

// False when either cannot be stat()ed.
bool same_file(const std::string &a, const std::string &b);

}  // namespace kpp
