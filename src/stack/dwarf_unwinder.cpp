#include "src/stack/dwarf_unwinder.h"

#include <elf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>
#include <sstream>

#include "dwarf/elf_reader.h"
#include "util/files.h"

namespace kpp {

namespace {

constexpr size_t kMaxProcesses = 4096;  // processes followed (the least recently used go first)

// x86_64's DWARF registers 0-16 (rax rdx rcx rbx rsi rdi rbp rsp r8-r15
// rip) in perf's numbering (asm/perf_regs.h).
constexpr int kPerfOfDwarf[17] = {0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8};
constexpr int kPerfIp = 8;

const UserStackSample &sample_of(void *arg) { return *static_cast<DwarfUnwinder *>(arg)->current(); }

pid_t next_thread(Dwfl *, void *arg, void **thread_arg) {
  if (*thread_arg) return 0;
  *thread_arg = arg;
  return sample_of(arg).tid;
}

bool get_thread(Dwfl *, pid_t, void *arg, void **thread_arg) {
  *thread_arg = arg;
  return true;
}

// A word of the stack window; anything else is unknown.
bool memory_read(Dwfl *, Dwarf_Addr addr, Dwarf_Word *result, void *arg) {
  const UserStackSample &s = sample_of(arg);
  if (addr < s.sp || addr - s.sp + sizeof(Dwarf_Word) > s.stack.size()) return false;
  std::memcpy(result, s.stack.data() + (addr - s.sp), sizeof(Dwarf_Word));
  return true;
}

bool set_initial_registers(Dwfl_Thread *thread, void *arg) {
  const UserStackSample &s = sample_of(arg);
  Dwarf_Word regs[17];
  for (int i = 0; i < 17; ++i) regs[i] = s.reg(kPerfOfDwarf[i]);
  return dwfl_thread_state_registers(thread, 0, 17, regs);
}

const Dwfl_Thread_Callbacks kCallbacks = {next_thread, get_thread, memory_read, set_initial_registers, nullptr,
                                          nullptr};

char *no_debuginfo_path = nullptr;
const Dwfl_Callbacks kFileCallbacks = {dwfl_build_id_find_elf, dwfl_standard_find_debuginfo, nullptr,
                                       &no_debuginfo_path};

struct Walk {
  std::vector<uint64_t> *ips;
  DwarfUnwinder *unwinder;
};

// Each frame's pc, innermost first; a frame whose file has no CFI is noted.
int frame_callback(Dwfl_Frame *frame, void *arg) {
  auto *w = static_cast<Walk *>(arg);
  Dwarf_Addr at = 0;
  bool activation = false;
  if (!dwfl_frame_pc(frame, &at, &activation) || at == 0) return DWARF_CB_ABORT;
  w->ips->push_back(at);
  Dwfl *d = dwfl_thread_dwfl(dwfl_frame_thread(frame));
  if (Dwfl_Module *m = dwfl_addrmodule(d, activation ? at : at - 1)) w->unwinder->check_cfi(m);
  return w->ips->size() >= DwarfUnwinder::kMaxFrames ? DWARF_CB_ABORT : DWARF_CB_OK;
}

}  // namespace

struct DwarfUnwinder::Process {
  std::vector<FileMapping> maps;  // executable mappings of files, and [vdso]
  bool known = false;             // maps is all of them (from /proc, or since an exec)
  uint64_t changes = 0, reported = ~uint64_t{0};  // dwfl holds the maps of change `reported`
  uint64_t used = 0;
  Dwfl *dwfl = nullptr;
  ~Process() {
    if (dwfl) dwfl_end(dwfl);
  }
};

namespace {

// The executable mappings of /proc/PID/maps, the vDSO's included; nullopt
// when the process is gone.
std::optional<std::vector<FileMapping>> maps_now(int pid) {
  Result<std::string> text = read_whole_file("/proc/" + std::to_string(pid) + "/maps");
  if (!text) return std::nullopt;
  std::vector<FileMapping> maps = parse_process_maps(*text);
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    unsigned long start = 0, end = 0;
    if (line.size() > 6 && line.compare(line.size() - 6, 6, "[vdso]") == 0 &&
        std::sscanf(line.c_str(), "%lx-%lx", &start, &end) == 2)
      maps.push_back(FileMapping{start, end, 0, "[vdso]"});
  }
  return maps;
}

// This process's vDSO, copied into a memfd that libdwfl can read as a file.
int own_vdso_fd() {
  auto own = maps_now(getpid());
  if (!own) return -1;
  for (const FileMapping &m : *own) {
    if (m.path != "[vdso]") continue;
    int fd = memfd_create("kprobe-probe-vdso", MFD_CLOEXEC);
    if (fd < 0) return -1;
    size_t size = m.end - m.start;
    if (write(fd, reinterpret_cast<const void *>(m.start), size) != static_cast<ssize_t>(size)) {
      close(fd);
      return -1;
    }
    return fd;
  }
  return -1;
}

// An ELF file's type (ET_EXEC, ET_DYN, ...), 0 when it cannot be read
// (the one ELF header reader: either byte order, its tables checked).
int elf_type(const std::string &path) {
  auto elf = dwarf::ElfReader::open(path);
  return elf ? elf->type() : 0;
}

}  // namespace

DwarfUnwinder::DwarfUnwinder() : vdso_fd_(own_vdso_fd()) {}
DwarfUnwinder::~DwarfUnwinder() {
  if (vdso_fd_ >= 0) close(vdso_fd_);
}

void DwarfUnwinder::evict() {
  if (processes_.size() < kMaxProcesses) return;
  // The least recently used quarter goes.
  std::vector<uint64_t> uses;
  for (const auto &[pid, p] : processes_) uses.push_back(p->used);
  std::nth_element(uses.begin(), uses.begin() + uses.size() / 4, uses.end());
  uint64_t cut = uses[uses.size() / 4];
  for (auto it = processes_.begin(); it != processes_.end();)
    it = it->second->used <= cut ? processes_.erase(it) : std::next(it);
}

DwarfUnwinder::Process &DwarfUnwinder::process(int pid, bool read_proc) {
  std::lock_guard lock(mutex_);
  auto it = processes_.find(pid);
  if (it == processes_.end()) {
    evict();
    it = processes_.emplace(pid, std::make_unique<Process>()).first;
  }
  Process &p = *it->second;
  p.used = ++clock_;
  if (!p.known && read_proc)
    if (auto now = maps_now(pid)) {
      p.maps = std::move(*now);
      p.known = true;
      ++p.changes;
    }
  return p;
}

std::vector<FileMapping> DwarfUnwinder::maps_of(int pid) const {
  std::lock_guard lock(mutex_);
  auto it = processes_.find(pid);
  return it == processes_.end() ? std::vector<FileMapping>{} : it->second->maps;
}

void DwarfUnwinder::on_change(const ProcessChange &change) {
  if (change.kind == ProcessChange::Fork) {
    bool known = false;
    std::vector<FileMapping> maps;
    {
      std::lock_guard lock(mutex_);
      auto parent = processes_.find(change.parent);
      if (parent == processes_.end()) return;  // read from /proc when needed
      maps = parent->second->maps;
      known = parent->second->known;
    }
    Process &child = process(change.pid, false);
    std::lock_guard lock(mutex_);
    if (child.known && !child.maps.empty()) return;
    child.maps = std::move(maps);
    child.known = known;
    ++child.changes;
    return;
  }
  // Every process of the system that maps code is seen here: /proc is
  // read only for those whose stacks are unwound.
  Process &p = process(change.pid, false);
  std::lock_guard lock(mutex_);
  if (change.kind == ProcessChange::Exec) {
    p.maps.clear();
    p.known = true;
  } else {
    for (const FileMapping &m : p.maps)
      if (m.start == change.mapping.start && m.end == change.mapping.end && m.path == change.mapping.path) return;
    p.maps.push_back(change.mapping);
  }
  ++p.changes;
}

Dwfl *DwarfUnwinder::dwfl_of(int pid, Process &p) {
  if (p.dwfl && p.reported == p.changes) return p.dwfl;
  if (p.dwfl) dwfl_end(p.dwfl);
  p.dwfl = dwfl_begin(&kFileCallbacks);
  if (!p.dwfl) return nullptr;
  std::vector<FileMapping> maps;
  {
    std::lock_guard lock(mutex_);
    p.reported = p.changes;
    maps = p.maps;
  }
  std::sort(maps.begin(), maps.end(), [](const FileMapping &a, const FileMapping &b) { return a.start < b.start; });
  std::set<std::string> done;
  dwfl_report_begin(p.dwfl);
  for (const FileMapping &m : maps) {
    if (!done.insert(m.path).second) continue;  // a file is placed by its first mapping
    if (m.path == "[vdso]") {
      int fd = vdso_fd_ >= 0 ? dup(vdso_fd_) : -1;
      if (fd >= 0 && !dwfl_report_elf(p.dwfl, "[vdso]", "[vdso]", fd, m.start, false)) close(fd);
      continue;
    }
    // An ET_DYN file's address 0 is where its mapping of file offset 0 is.
    int type = elf_type(m.path);
    if (type == ET_EXEC || type == ET_DYN) dwfl_report_elf(p.dwfl, m.path.c_str(), m.path.c_str(), -1, m.start - m.pgoff, false);
  }
  dwfl_report_end(p.dwfl, nullptr, nullptr);
  if (!dwfl_attach_state(p.dwfl, nullptr, pid, &kCallbacks, this)) {
    dwfl_end(p.dwfl);
    p.dwfl = nullptr;
  }
  return p.dwfl;
}

void DwarfUnwinder::check_cfi(Dwfl_Module *module) {
  const char *name = dwfl_module_info(module, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  if (!name || !checked_.insert(name).second) return;
  Dwarf_Addr bias = 0;
  if (dwfl_module_eh_cfi(module, &bias) || dwfl_module_dwarf_cfi(module, &bias)) return;
  notes_.push_back(std::string("'") + name +
                   "' has no usable .eh_frame or .debug_frame: the callers of its frames are found by frame "
                   "pointers (missed where it was built without them)");
}

std::vector<uint64_t> DwarfUnwinder::unwind(const UserStackSample &sample) {
  std::vector<uint64_t> ips;
  uint64_t pc = sample.reg(kPerfIp);
  if (!pc) return ips;
  Dwfl *dwfl = dwfl_of(sample.pid, process(sample.pid, true));
  if (!dwfl) return {pc};
  current_ = &sample;
  Walk walk{&ips, this};
  dwfl_getthread_frames(dwfl, sample.tid, frame_callback, &walk);
  current_ = nullptr;
  if (ips.empty()) ips.push_back(pc);
  return ips;
}

std::vector<std::string> DwarfUnwinder::take_notes() { return std::move(notes_); }

}  // namespace kpp
