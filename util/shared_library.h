// A shared library opened when first needed (dlopen), for what only some
// commands use: linked in, a library and the ones it loads in turn cost
// every run their start-up before main(). Opened libraries stay loaded for
// the process's life.
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace kpp {

class SharedLibrary {
 public:
  // `soname` ("libmicrohttpd.so.12"); `what` names it in messages ("the HTTP
  // server library"), `package` is the Debian package that holds it (the
  // hint of the error when it cannot be loaded).
  static Result<SharedLibrary> open(const std::string &soname, const std::string &what, const std::string &package);

  // Sets `fn` to the library's function `name` (null, and remembered, when it has none).
  template <class Fn>
  void get(Fn &fn, const char *name) {
    fn = reinterpret_cast<Fn>(symbol(name));
  }
  // Ok when every get() found its function; else an error naming those missing.
  Status all_found() const;

 private:
  void *symbol(const char *name);
  void *handle_ = nullptr;
  std::string soname_, what_;
  std::vector<std::string> missing_;
};

}  // namespace kpp
