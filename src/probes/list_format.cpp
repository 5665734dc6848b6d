#include "src/probes/list_format.h"

#include "src/definition/point_text.h"

#include <cinttypes>
#include <cstdio>

#include "util/json_string.h"
#include "util/process_root.h"
#include "util/strings.h"

namespace kpp {

std::string SourceLookup::point_of(const TraceDefinition &def) {
  std::string fallback = def.kind == TraceDefinition::Kind::Uprobe
                             ? hex(def.offset)
                             // The module of "loop:lo_ioctl" is shown as " in loop", as perf does.
                             : def.symbol.substr(def.symbol.find(':') + 1) +
                                   (def.offset ? "+" + std::to_string(def.offset) : "");
  if (def.kind != TraceDefinition::Kind::Uprobe) return fallback + (def.is_return ? "%return" : "");
  dwarf::DebugInfo *debug = files_->get(def.path);
  if (!debug) return fallback;
  auto address = debug->elf().address_of_file_offset(def.offset);
  auto place = address ? debug->source_of(*address) : std::nullopt;
  if (!place) return fallback;
  return perf_point(*place, *address, def.is_return);
}

std::string format_list_line(const TraceDefinition &def, const std::string &point, bool kernel_names) {
  char name[256];
  std::snprintf(name, sizeof name, "  %-20s (on ", def.qualified_name().c_str());
  std::string line = name + point;
  if (def.kind == TraceDefinition::Kind::Uprobe) line += " in " + def.path;
  else if (auto colon = def.symbol.find(':'); colon != std::string::npos) line += " in " + def.symbol.substr(0, colon);
  if (!def.args.empty()) {
    line += " with";
    for (const FetchArg &arg : def.args)
      line += " " + (arg.name.empty() ? arg.fetch : kernel_names ? field_name_with_fixup(arg.name, arg.fixup) : arg.name);
  }
  return line + ")";
}

std::string format_list_status(const std::vector<std::string> &flags, std::optional<uint64_t> hits,
                               std::optional<uint64_t> misses) {
  std::string out;
  if (!flags.empty()) {
    out += " ";
    for (const std::string &f : flags) out += "[" + f + "]";
  }
  if (!hits) return out + " hits=?";
  if (*hits || misses.value_or(0)) {
    out += " hits=" + std::to_string(*hits);
    if (misses) out += " misses=" + std::to_string(*misses);
  }
  return out;
}

std::string format_list_json(const TraceDefinition &def, const std::string &point, std::optional<uint64_t> hits,
                             std::optional<uint64_t> misses, const std::vector<std::string> &flags) {
  bool uprobe = def.kind == TraceDefinition::Kind::Uprobe;
  std::string out = "{\"group\":" + json_quote(def.group) + ",\"event\":" + json_quote(def.event) +
                    ",\"type\":\"" + (uprobe ? "uprobe" : "kprobe") + "\",\"return\":" +
                    (def.is_return ? "true" : "false") + ",\"point\":" + json_quote(point);
  if (uprobe) out += ",\"target\":" + json_quote(def.path) + ",\"offset\":" + std::to_string(def.offset);
  // Placed through a process's root (-p on a container's process): that process and the path in it.
  if (ProcessRootPath through = split_process_root(def.path); uprobe && through.pid)
    out += ",\"process_root_of\":" + std::to_string(through.pid) + ",\"path_in_process\":" + json_quote(through.path);
  else out += ",\"symbol\":" + json_quote(def.symbol) + ",\"offset\":" + std::to_string(def.offset);
  out += ",\"args\":[";
  for (size_t i = 0; i < def.args.size(); ++i) {
    const FetchArg &a = def.args[i];
    out += (i ? "," : "") + std::string("{\"name\":") + json_quote(a.name) + ",\"fetch\":" + json_quote(a.fetch) +
           ",\"type\":" + json_quote(a.type) + "}";
  }
  out += "],\"hits\":" + (hits ? std::to_string(*hits) : "null");
  if (misses) out += ",\"misses\":" + std::to_string(*misses);
  if (!flags.empty()) {
    out += ",\"flags\":[";
    for (size_t i = 0; i < flags.size(); ++i) out += (i ? "," : "") + json_quote(flags[i]);
    out += "]";
  }
  out += ",\"definition\":" + json_quote(format_definition(def)) + "}";
  return out;
}

}  // namespace kpp
