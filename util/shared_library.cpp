#include "util/shared_library.h"

#include <dlfcn.h>

#include "util/strings.h"

namespace kpp {

Result<SharedLibrary> SharedLibrary::open(const std::string &soname, const std::string &what, const std::string &package) {
  // RTLD_LOCAL: its symbols do not join the program's (nor what it loads).
  void *handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return Error(what + " cannot be loaded: " + (why ? why : soname), "install " + package);
  }
  SharedLibrary library;
  library.handle_ = handle;
  library.soname_ = soname;
  library.what_ = what;
  return library;
}

void *SharedLibrary::symbol(const char *name) {
  void *found = handle_ ? dlsym(handle_, name) : nullptr;
  if (!found) missing_.emplace_back(name);
  return found;
}

Status SharedLibrary::all_found() const {
  if (missing_.empty()) return Ok{};
  return Error(what_ + " (" + soname_ + ") lacks functions this program calls: " + join(missing_, ", "));
}

}  // namespace kpp
