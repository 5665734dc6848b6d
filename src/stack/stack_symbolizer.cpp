#include "src/stack/stack_symbolizer.h"

#include "src/kernel/build_id.h"
#include "src/kernel/debug_paths.h"
#include "src/stack/module_placement.h"

namespace kpp {

namespace {
// Bounds on what is kept: answers, processes' maps.
constexpr size_t kMaxCached = 1 << 16;
constexpr size_t kMaxProcesses = 4096;
constexpr size_t kMaxFiles = 256;  // open debug infos (each maps its file)

// kallsyms names what runs: its name and offset stay on the outer frame
// (the inlined ones are DWARF's).
std::vector<StackFrame> with_kallsyms_name(std::vector<StackFrame> frames, const StackFrame &named) {
  for (StackFrame &f : frames)
    if (!f.inlined) {
      f.sym = named.sym;
      f.off = named.off;
    }
  return frames;
}

// `options`, with debug files from debuginfod fetched in `background`.
dwarf::OpenOptions fetching_in(dwarf::OpenOptions options, dwarf::DebuginfodBackground *background) {
  options.debuginfod_background = background;
  options.debuginfod_fetch = true;
  return options;
}

}  // namespace

StackSymbolizer::StackSymbolizer(StackSource source, std::string vmlinux, dwarf::OpenOptions options)
    : source_(source),
      vmlinux_path_(std::move(vmlinux)),
      background_(std::make_unique<dwarf::DebuginfodBackground>()),
      files_(fetching_in(std::move(options), background_.get()), kMaxFiles) {}
StackSymbolizer::~StackSymbolizer() = default;

void StackSymbolizer::add_probes(const std::vector<TraceDefinition> &definitions) {
  for (const TraceDefinition &d : definitions)
    if (d.kind == TraceDefinition::Kind::Uprobe) probes_[d.qualified_name()] = Probe{d.path, d.offset};
}

size_t StackSymbolizer::tracing_frames(const Event &event, const std::vector<StackFrame> &frames) {
  if (source_ != StackSource::Live || !event.probe_ip || frames.empty() || frames.front().user) return 0;
  if (!kallsyms_) kallsyms_ = Kallsyms::read();
  if (!*kallsyms_) return 0;
  const KallsymsEntry *probed = (*kallsyms_)->code_symbol_at(event.probe_ip);
  if (!probed) return 0;
  // The trigger's stack starts in the code that records it (the kprobe
  // handler, an ftrace trampoline): the probed function's frame is the first
  // that is the user's. A return address at a function's end belongs to it too.
  for (size_t i = 0; i < frames.size() && !frames[i].user; ++i) {
    const KallsymsEntry *at = (*kallsyms_)->code_symbol_at(frames[i].ip);
    const KallsymsEntry *before = (*kallsyms_)->code_symbol_at(frames[i].ip - 1);
    if (at == probed || before == probed) return i;
  }
  return 0;  // not found: keep them all rather than lose the stack
}

void StackSymbolizer::symbolize(const Event &event, std::vector<StackFrame> &frames) {
  if (cache_.size() > kMaxCached) cache_.clear();
  std::vector<StackFrame> out;
  out.reserve(frames.size());
  bool first_kernel = true, first_user = true;
  size_t skip = tracing_frames(event, frames);
  for (size_t i = skip; i < frames.size(); ++i) {
    const StackFrame &f = frames[i];
    bool &first = f.user ? first_user : first_kernel;
    FrameAddress kind = first ? FrameAddress::Exact : FrameAddress::ReturnAddress;
    first = false;
    auto key = std::make_tuple(f.user ? static_cast<pid_t>(event.pid) : 0, f.ip, static_cast<int>(kind));
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      std::vector<StackFrame> named = f.user ? user_frames(event, f, kind) : kernel_frames(f, kind);
      it = cache_.emplace(key, std::move(named)).first;
    }
    out.insert(out.end(), it->second.begin(), it->second.end());
  }
  frames = std::move(out);
}

bool StackSymbolizer::ready(const Event &event, const std::vector<StackFrame> &frames) {
  if (source_ != StackSource::Live) return true;
  bool all = true;
  for (const StackFrame &f : frames)
    if (f.user && !user_file_ready(static_cast<pid_t>(event.pid), f.ip)) all = false;
  return all;
}

bool StackSymbolizer::user_file_ready(pid_t pid, uint64_t ip) {
  // A frame answered already needs nothing more.
  for (FrameAddress kind : {FrameAddress::Exact, FrameAddress::ReturnAddress})
    if (cache_.count(std::make_tuple(pid, ip, static_cast<int>(kind)))) return true;
  const FileMapping *m = mapping_of(maps_of(pid, ip), ip);
  if (!m) return true;
  dwarf::DebugInfo *debug = files_.get(m->path);
  if (!debug || debug->provenance().awaited_debug_file().empty()) return true;
  if (background_->debuginfo(debug->provenance().awaited_debug_file()).state == dwarf::DebuginfodBackground::State::Pending)
    return false;
  // Fetched (or given up): opened again, it has its DWARF (or says why not).
  files_.forget(m->path);
  cache_.clear();
  return true;
}

dwarf::DebugInfo *StackSymbolizer::vmlinux() {
  if (vmlinux_tried_) return vmlinux_.get();
  vmlinux_tried_ = true;
  if (!kallsyms_ || !*kallsyms_) return nullptr;
  std::string running = running_kernel_build_id();
  std::vector<std::string> candidates =
      vmlinux_path_.empty() ? vmlinux_candidates(kernel_release(), running) : std::vector<std::string>{vmlinux_path_};
  for (const std::string &path : candidates) {
    auto d = dwarf::DebugInfo::open(path, files_.options());
    if (!d || !(*d)->has_dwarf()) continue;
    // Another kernel's lines would be wrong lines: only the running one's
    // (a vmlinux without a build-id may be any kernel's).
    if (!running.empty() && (*d)->elf().build_id() != running) continue;
    auto linked = (*d)->elf().symbol_addresses({"_text"});
    std::vector<uint64_t> now = (*kallsyms_)->addresses_of("_text", "");
    if (linked.count("_text") == 0 || now.size() != 1) continue;
    kaslr_offset_ = static_cast<int64_t>(now[0] - linked["_text"]);
    vmlinux_ = std::move(*d);
    break;
  }
  return vmlinux_.get();
}

std::vector<StackFrame> StackSymbolizer::kernel_frames(const StackFrame &frame, FrameAddress kind) {
  if (source_ != StackSource::Live) return {frame};
  if (!kallsyms_) kallsyms_ = Kallsyms::read();
  if (!*kallsyms_) return {frame};
  const KallsymsEntry *sym = (*kallsyms_)->code_symbol_at(frame.ip);
  if (!sym) return {frame};
  StackFrame named = frame;
  named.sym = sym->name;
  named.off = frame.ip - sym->address;
  // A function's first byte is where a probe was, never a return address.
  if (named.off == 0) kind = FrameAddress::Exact;
  if (!sym->module.empty()) {
    named.object = "[" + sym->module + "]";
    dwarf::DebugInfo *ko = module_debug(sym->module);
    std::optional<uint64_t> link = ko ? module_link_address(ko->elf(), **kallsyms_, *sym, named.off) : std::nullopt;
    if (!link) return {named};
    return with_kallsyms_name(expand_frame(*ko, *link, kind, named), named);
  }
  dwarf::DebugInfo *debug = vmlinux();
  if (!debug) return {named};
  return with_kallsyms_name(expand_frame(*debug, frame.ip - static_cast<uint64_t>(kaslr_offset_), kind, named), named);
}

dwarf::DebugInfo *StackSymbolizer::module_debug(const std::string &module) {
  if (auto it = modules_.find(module); it != modules_.end()) return it->second.get();
  if (modules_.size() >= kMaxFiles) return nullptr;  // hostile kallsyms: bounded
  auto &slot = modules_[module];
  // Where -m MODULE looks (src/cli/probe_target.cpp), but only the loaded
  // build: another build's lines would be wrong lines.
  std::string loaded = loaded_module_build_id(module);
  if (loaded.empty()) return nullptr;
  std::string dep = module_path_in_dep(running_modules_dep(), module);
  for (const std::string &path : module_debug_candidates(kernel_release(), dep, loaded)) {
    auto d = dwarf::DebugInfo::open(path, files_.options());
    if (!d || !(*d)->has_dwarf() || (*d)->elf().build_id() != loaded) continue;
    slot = std::move(*d);
    break;
  }
  return slot.get();
}

const std::vector<FileMapping> &StackSymbolizer::maps_of(pid_t pid, uint64_t address) {
  auto it = maps_.find(pid);
  // Read again when the address is in none of them (a library loaded since).
  if (it == maps_.end() || (!it->second.empty() && !mapping_of(it->second, address))) {
    if (maps_.size() > kMaxProcesses) maps_.clear();
    std::vector<FileMapping> now = read_process_maps(pid);
    if (it == maps_.end() || !now.empty()) maps_[pid] = std::move(now);
    it = maps_.find(pid);
  }
  return it->second;
}

const FileMapping *StackSymbolizer::mapping_for(pid_t pid, uint64_t address) {
  if (const FileMapping *m = mapping_of(maps_of(pid, address), address)) return m;
  if (!maps_source_) return nullptr;
  auto it = sourced_maps_.find(pid);
  if (it == sourced_maps_.end() || !mapping_of(it->second, address)) {
    if (sourced_maps_.size() > kMaxProcesses) sourced_maps_.clear();
    it = sourced_maps_.insert_or_assign(pid, maps_source_(pid)).first;
  }
  const FileMapping *m = mapping_of(it->second, address);
  return m && m->path[0] == '/' ? m : nullptr;  // the vDSO is no file to open
}

std::vector<StackFrame> StackSymbolizer::user_frames(const Event &event, const StackFrame &frame, FrameAddress kind) {
  StackFrame placed = frame;
  dwarf::DebugInfo *debug = nullptr;
  std::optional<uint64_t> link;
  const FileMapping *m = source_ == StackSource::Live ? mapping_for(event.pid, frame.ip) : nullptr;
  if (m) {
    placed.object = m->path;
    debug = files_.get(m->path);
    if (debug) link = debug->elf().address_of_file_offset(frame.ip - m->start + m->pgoff);
  } else if (event.probe_ip) {
    // The process is gone: the probe's binary is placed by the probe itself.
    if (probe_source_) {
      add_probes(probe_source_());
      probe_source_ = nullptr;
    }
    auto p = probes_.find(event.system + ":" + event.name);
    if (p != probes_.end() && (debug = files_.get(p->second.path))) {
      std::optional<uint64_t> probe_link = debug->elf().address_of_file_offset(p->second.file_offset);
      if (probe_link) {
        uint64_t candidate = frame.ip - (event.probe_ip - *probe_link);
        // Only addresses the binary's own code holds.
        if (debug->elf().file_offset(candidate)) {
          link = candidate;
          placed.object = p->second.path;
        }
      }
    }
  }
  if (!debug || !link) return {placed};
  return expand_frame(*debug, *link, kind, placed);
}

}  // namespace kpp
