#include "src/kernel/debug_paths.h"

#include <sstream>

namespace kpp {

namespace {

std::string build_id_path(const std::string &build_id) {
  if (build_id.size() < 3) return {};
  return "/usr/lib/debug/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2) + ".debug";
}

std::string without_compression(const std::string &path) {
  for (const char *suffix : {".xz", ".zst", ".gz"}) {
    std::string s = suffix;
    if (path.size() > s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0)
      return path.substr(0, path.size() - s.size());
  }
  return path;
}

}  // namespace

std::vector<std::string> vmlinux_candidates(const std::string &release, const std::string &build_id) {
  std::vector<std::string> out{"/usr/lib/debug/boot/vmlinux-" + release,
                               "/usr/lib/debug/lib/modules/" + release + "/vmlinux",
                               "/boot/vmlinux-" + release, "/lib/modules/" + release + "/build/vmlinux"};
  if (std::string p = build_id_path(build_id); !p.empty()) out.push_back(p);
  return out;
}

std::string canonical_module_name(const std::string &name) {
  std::string out = name;
  for (char &c : out)
    if (c == '-') c = '_';
  return out;
}

std::string module_path_in_dep(const std::string &modules_dep, const std::string &module) {
  std::string wanted = canonical_module_name(module);
  std::istringstream lines(modules_dep);
  for (std::string line; std::getline(lines, line);) {
    std::string path = line.substr(0, line.find(':'));
    std::string base = path.substr(path.rfind('/') + 1);
    base = without_compression(base);
    if (base.size() > 3 && base.compare(base.size() - 3, 3, ".ko") == 0 &&
        canonical_module_name(base.substr(0, base.size() - 3)) == wanted)
      return path;
  }
  return {};
}

std::vector<std::string> module_debug_candidates(const std::string &release, const std::string &dep_path,
                                                 const std::string &build_id) {
  std::vector<std::string> out;
  if (!dep_path.empty()) out.push_back("/usr/lib/debug/lib/modules/" + release + "/" + without_compression(dep_path));
  if (std::string p = build_id_path(build_id); !p.empty()) out.push_back(p);
  if (!dep_path.empty() && without_compression(dep_path) == dep_path)
    out.push_back("/lib/modules/" + release + "/" + dep_path);
  return out;
}

}  // namespace kpp
