#include "src/cli/supervisor_probes.h"

#include <set>

#include "src/probes/probe_engine.h"
#include "src/util/strings.h"

namespace kpp {

namespace {

// "a, b, c and 1,497 more".
std::string first_few(const std::vector<std::string> &names) {
  constexpr size_t kNamed = 5;
  std::vector<std::string> shown(names.begin(), names.begin() + static_cast<long>(std::min(names.size(), kNamed)));
  std::string text = join(shown);
  if (names.size() > kNamed) text += " and " + std::to_string(names.size() - kNamed) + " more";
  return text;
}

}  // namespace

std::optional<std::string> remove_probes(const std::vector<std::string> &names, size_t not_noted) {
  auto engine = ProbeEngine::open();
  if (!engine) return "cannot remove the probes it had written: " + engine.error().message;
  auto listed = engine->list();
  if (!listed) return "cannot remove the probes it had written: " + listed.error().message;
  std::set<std::string> exist;
  for (const TraceDefinition &d : *listed) exist.insert(d.qualified_name());
  std::vector<std::string> removed, kept;
  for (const std::string &name : names) {
    if (!exist.count(name)) continue;  // not written yet, or gone
    auto removal = engine->remove(name);
    if (removal && removal->failed.empty()) removed.push_back(name);
    else kept.push_back(name);
  }
  std::string note;
  if (!removed.empty())
    note = "removed the " + std::to_string(removed.size()) + " probe" + (removed.size() == 1 ? "" : "s") +
           " it had written (" + first_few(removed) + ")";
  if (!kept.empty())
    note += std::string(note.empty() ? "" : "; ") + "could not remove " + std::to_string(kept.size()) +
            " probe" + (kept.size() == 1 ? "" : "s") + " it had written (" + first_few(kept) +
            "): remove them with 'kprobe-probe -d GROUP:EVENT'";
  if (not_noted)
    note += std::string(note.empty() ? "" : "; ") + std::to_string(not_noted) +
            " more probes it wrote were not noted: see 'kprobe-probe --list'";
  if (note.empty()) return std::nullopt;
  return note;
}

}  // namespace kpp
