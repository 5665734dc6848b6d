// Which of the file's units LLVM may read (unit_checks.h). Two ways in:
//  - every unit checked (dwarf()): on a vmlinux that reads all 160 MB of
//    .debug_info (~0.4 s of CPU), so it is done once per file: the verdict
//    "every unit read whole" is kept in the cache under the file's identity
//    and its inode, size, modification and change times (a file changed
//    since, even with its mtime put back, is checked again);
//  - unit by unit (unit_dwarf() and enter()), for the queries that read one
//    unit found by address (a function's entry, a return probe), when the
//    cache holds no verdict: the unit headers, each unit's first DIE (its
//    unit DIE: that verdict is cached too), and the units read.
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFObject.h>

#include "dwarf/elf/mapped_object.h"
#include "dwarf/index/index_cache.h"
#include "dwarf/source/unit_checks.h"

namespace kpp::dwarf {

namespace {

// What names this very file: a cached verdict of another file (or of this
// path before it was replaced) must not stand for it.
std::string file_state(const std::string &path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return {};
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
         std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec);
}

// What the cache may say: every DIE checked, or the unit DIEs (the first of each unit).
constexpr std::string_view kEveryDie = "every unit's DIEs lie inside their unit";
constexpr std::string_view kUnitDies = "every unit's unit DIE lies inside its unit";

// The one stream of units `context` holds, when all its DIEs are in one
// .debug_info: a file with type units (.debug_types, DW_FORM_ref_sig8) or
// a .dwo's sections is checked whole.
std::optional<DieStream> only_info_stream(const llvm::DWARFContext &context) {
  const llvm::DWARFObject &object = context.getDWARFObj();
  auto view = [](llvm::StringRef s) { return std::string_view(s.data(), s.size()); };
  int info = 0, others = 0;
  const llvm::DWARFSection *section = nullptr;
  object.forEachInfoSections([&](const llvm::DWARFSection &s) { ++info, section = &s; });
  object.forEachTypesSections([&](const llvm::DWARFSection &) { ++others; });
  object.forEachInfoDWOSections([&](const llvm::DWARFSection &) { ++others; });
  object.forEachTypesDWOSections([&](const llvm::DWARFSection &) { ++others; });
  if (info != 1 || others != 0) return std::nullopt;
  return section_stream(object, *section, view(object.getAbbrevSection()), false, ".debug_info");
}

}  // namespace

UnitChecks::Verdict UnitChecks::cached_verdict() {
  std::string path = files_.debug_path(), state = file_state(path);
  if (files_.dies_from_cached_image()) {
    std::string image = file_state(files_.dies_file());
    state = image.empty() ? std::string() : state + " image " + image;
  }
  auto home = state.empty() ? std::nullopt : files_.cache_home(path);
  if (!home) return Verdict::None;
  home->key.identity += " die check v1 " + state;
  verdict_file_ = cache_file(home->directory, home->key, ".dies");
  verdict_key_ = home->key;
  verdict_max_bytes_ = home->max_bytes;
  auto cached = load_cached(verdict_file_, home->key);
  if (!cached) return Verdict::None;
  return cached->bytes == kEveryDie ? Verdict::EveryDie : cached->bytes == kUnitDies ? Verdict::UnitDies : Verdict::None;
}

void UnitChecks::refuse(Error damage) {
  // A damaged copy in the cache is the cache's fault: it goes, and the next run inflates the debug file again.
  if (files_.remove_cached_image())
    damage.hint =
        "the damaged copy was removed from the cache; the next run makes it again from '" + files_.debug_path() + "'";
  damaged_ = std::move(damage);
  throw DamagedDwarf(*damaged_);
}

llvm::DWARFContext &UnitChecks::dwarf() {
  llvm::DWARFContext &context = files_.mapped_dwarf();
  check_every_unit();
  return context;
}

void UnitChecks::look_up_verdict() {
  if (verdict_looked_up_) return;
  verdict_looked_up_ = true;
  verdict_ = cached_verdict();
  all_dies_checked_ = verdict_ == Verdict::EveryDie;
}

void UnitChecks::check_every_unit() {
  if (damaged_) throw DamagedDwarf(*damaged_);
  look_up_verdict();
  if (all_dies_checked_) return;
  // The pages read go back every few MB, not unit by unit: on python3.11's
  // 253 units a call per unit cost ~5% of a --no-cache run in TLB flushes.
  BatchedDrop drop(files_.dwarf_mapping(), 8 << 20);
  Status checked = check_context_dies(files_.context(), files_.dies_file(),
                                      [&drop](std::string_view read) { drop.done(read.size()); });
  if (!checked) refuse(std::move(checked).error());
  all_dies_checked_ = true;
  if (!verdict_file_.empty()) (void)store_cached(verdict_file_, verdict_key_, kEveryDie, verdict_max_bytes_);
}

llvm::DWARFContext &UnitChecks::unit_dwarf() {
  llvm::DWARFContext &context = files_.mapped_dwarf();
  if (damaged_) throw DamagedDwarf(*damaged_);
  look_up_verdict();
  if (all_dies_checked_ || gate_) return context;
  std::optional<DieStream> stream = only_info_stream(context);
  if (!stream) {
    check_every_unit();
    return context;
  }
  bool unit_dies_known = verdict_ == Verdict::UnitDies;
  std::vector<UnitGate::Unit> units;
  for (const auto &unit : context.info_section_units())
    units.push_back({unit->getOffset(), unit->getOffset() + unit->getHeaderSize(), unit->getNextUnitOffset(),
                     unit->getAbbreviationsOffset(), unit->getAddressByteSize(),
                     unit->getFormParams().getDwarfOffsetByteSize(), unit->getVersion()});
  auto gate = UnitGate::open(std::move(*stream), files_.dies_file(), units, !unit_dies_known);
  if (!gate) refuse(std::move(gate).error());
  gate_ = std::move(*gate);
  if (!unit_dies_known && !verdict_file_.empty())
    (void)store_cached(verdict_file_, verdict_key_, kUnitDies, verdict_max_bytes_);
  return context;
}

void UnitChecks::enter(const llvm::DWARFUnit &unit) {
  if (all_dies_checked_) return;
  if (!gate_) {
    check_every_unit();
    return;
  }
  auto entered = gate_->enter(unit.getOffset());
  if (!entered) refuse(std::move(entered).error());
  if (!*entered) check_every_unit();
}

}  // namespace kpp::dwarf
