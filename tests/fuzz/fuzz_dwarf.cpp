// The DWARF layer on hostile ELF files: the input is a whole ELF file, opened
// with DebugInfo::open and put through a fixed walk of queries, as a probe
// spec, -L and -V would make them. Every problem must come back as an Error
// or an empty answer, never a crash, an assert or a hang (libFuzzer's
// -timeout finds those). The walk is bounded so that one input stays fast.
#include <sys/mman.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "dwarf/debug_info.h"
#include "src/definition/probe_builder.h"
#include "src/spec/probe_spec.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using kpp::dwarf::DebugInfo;
using kpp::dwarf::Function;
using kpp::dwarf::TypeRef;

constexpr size_t kMaxNames = 8;       // names from function_names() walked
constexpr size_t kMaxFunctions = 4;   // bodies per name
constexpr size_t kMaxVariables = 16;  // variables per body
constexpr int kMaxTypeDepth = 6;      // pointer/array/member steps from a variable

// The file the input becomes: a memfd, so that parallel fuzzing jobs and the
// replay test need no temporary directory and leave nothing behind.
class MemFile {
 public:
  MemFile(const uint8_t *data, size_t size) {
    fd_ = memfd_create("kpp_fuzz_elf", MFD_CLOEXEC);
    if (fd_ < 0) return;
    size_t done = 0;
    while (done < size) {
      ssize_t n = write(fd_, data + done, size - done);
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
    ok_ = true;
  }
  ~MemFile() {
    if (fd_ >= 0) close(fd_);
  }
  MemFile(const MemFile &) = delete;
  MemFile &operator=(const MemFile &) = delete;
  bool ok() const { return ok_; }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_ = -1;
  bool ok_ = false;
};

// describe/member/member_names from a type down: where cycles in type
// references (a struct that points at itself, a typedef of itself) would loop.
void walk_type(DebugInfo &debug, TypeRef type, int depth) {
  if (depth > kMaxTypeDepth || type.is_void()) return;
  kpp::dwarf::TypeInfo info = debug.describe(type);
  using Kind = kpp::dwarf::TypeInfo::Kind;
  if (info.kind == Kind::Pointer || info.kind == Kind::Array) walk_type(debug, info.target, depth + 1);
  if (info.kind == Kind::Struct || info.kind == Kind::Union) {
    std::vector<std::string> names = debug.member_names(type);
    (void)debug.member(type, "no_such_member");
    for (size_t i = 0; i < names.size() && i < kMaxVariables; ++i)
      if (auto m = debug.member(type, names[i])) walk_type(debug, m->type, depth + 1);
  }
}

void build(DebugInfo &debug, const std::string &spec_text) {
  auto spec = kpp::parse_probe_spec(spec_text);
  if (!spec) return;  // a name that is no valid spec: nothing to build
  kpp::BuildOptions options;
  options.target_path = "/fuzz/target";
  options.max_probes = 8;
  (void)kpp::build_probe(*spec, debug, options);
}

void walk_function(DebugInfo &debug, const Function &fn) {
  uint64_t entry = debug.probe_entry(fn);
  (void)debug.line_sites_in(fn, fn.decl_line);
  (void)debug.line_sites_in(fn, fn.decl_line + 1);
  (void)debug.lines_with_code(fn);
  (void)debug.line_rows(fn);
  (void)debug.is_instruction_start(fn, entry);
  (void)debug.source_of(entry);
  (void)debug.elf().file_offset(entry);
  (void)debug.elf().symbolize(entry);
  walk_type(debug, debug.return_type(fn), 0);
  std::vector<kpp::dwarf::Variable> vars = debug.variables_at(fn, entry);
  for (size_t i = 0; i < vars.size() && i < kMaxVariables; ++i) walk_type(debug, vars[i].type, 0);
  if (!fn.decl_file.empty()) (void)debug.file_line_sites(fn.decl_file, fn.decl_line + 1);
}

void walk_name(DebugInfo &debug, const std::string &name) {
  std::vector<Function> fns = debug.find_functions(name, "", kpp::dwarf::InlineCopies::Include);
  for (size_t i = 0; i < fns.size() && i < kMaxFunctions; ++i) walk_function(debug, fns[i]);
  if (fns.empty()) return;
  build(debug, name + " $vars");
  build(debug, name + ":1 $vars");
  build(debug, name + "%return $retval");
}

void walk(DebugInfo &debug) {
  (void)debug.elf().machine();
  (void)debug.elf().is_kernel();
  (void)debug.elf().build_id();
  (void)debug.similar_functions("mian", 3);
  (void)debug.find_source_file(".c");
  (void)debug.elf().address_of_file_offset(0x1000);
  walk_name(debug, "main");
  walk_name(debug, "add");
  std::vector<std::string_view> names = debug.function_names();
  for (size_t i = 0; i < names.size() && i < kMaxNames; ++i) walk_name(debug, std::string(names[i]));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MemFile file(data, size);
  if (!file.ok()) return 0;
  kpp::dwarf::OpenOptions options;
  options.use_cache = false;  // no cache file read or written per input
  auto opened = DebugInfo::open(file.path(), options);
  if (!opened) return 0;
  DebugInfo &debug = **opened;
  try {
    walk(debug);
  } catch (const kpp::dwarf::DamagedDwarf &) {
    // Refused before LLVM read it: the tool's message and status 1.
  }
  return 0;
}

