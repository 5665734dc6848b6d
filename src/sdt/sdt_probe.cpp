#include "src/sdt/sdt_probe.h"

#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "src/sdt/sdt_operand.h"
#include "util/strings.h"

namespace kpp::sdt {

namespace {

// The kernel's MAX_TRACE_ARGS: a note with more operands is not believed.
constexpr size_t kMaxOperands = 128;

std::string wanted_name(const ProbePoint &p) {
  return p.sdt_provider.empty() ? "%" + p.sdt_name : "sdt_" + p.sdt_provider + ":" + p.sdt_name;
}

class SdtBuilder {
 public:
  SdtBuilder(const ProbeSpec &spec, const BuildOptions &options) : spec_(spec), options_(options) {
    size_t end = spec.text.find_first_of(" \t");
    point_span_ = Span{0, end == std::string::npos ? spec.text.size() : end};
  }

  Result<ResolvedSpec> run() {
    if (options_.target_path.empty())
      return fail("SDT markers are in programs and libraries, not the kernel: name one with -x",
                  "e.g. kprobe-probe -x /usr/bin/python3.11 -a '%sdt_python:function__entry'");
    auto elf = open_marker_file(options_.target_path);
    if (!elf) return std::move(elf).error();
    auto markers = read_sdt_markers(*elf);
    if (!markers) return std::move(markers).error();
    auto matching = find_markers(*markers);
    if (!matching) return std::move(matching).error();

    ResolvedSpec out;
    out.spec = spec_;
    const SdtMarker &first = *matching->front();
    // perf's names: group sdt_PROVIDER, event NAME (unless the spec names them).
    if (out.spec.group.empty()) out.spec.group = "sdt_" + first.provider;
    if (out.spec.event.empty()) out.spec.event = first.name;
    std::string refused;
    for (const SdtMarker *m : *matching) {
      if (!m->problem.empty()) {
        refused = m->problem;
        out.warnings.push_back("skipped the " + sdt_event_name(*m) + " marker at " + hex(m->address) + ": " + m->problem);
        continue;
      }
      auto site = site_of(*elf, *m, out.warnings);
      if (!site) return std::move(site).error();
      out.sites.push_back(std::move(*site));
    }
    if (out.sites.empty())
      return fail("the SDT marker " + sdt_event_name(first) + " in '" + options_.target_path + "' cannot be probed: " + refused,
                  "the file's note does not match its code; rebuild it, or probe a function instead");
    if (out.sites.size() > options_.max_probes)
      return fail("'" + spec_.text + "' expands to " + std::to_string(out.sites.size()) +
                  " probe sites, more than --max-probes " + std::to_string(options_.max_probes));
    return out;
  }

 private:
  Error fail(const std::string &message, const std::string &hint = {}) const {
    return Error(message, hint).at(spec_.text, point_span_);
  }

  Result<std::vector<const SdtMarker *>> find_markers(const std::vector<SdtMarker> &markers) const {
    const ProbePoint &p = spec_.point;
    std::vector<const SdtMarker *> found;
    std::set<std::string> providers, all;
    for (const SdtMarker &m : markers) {
      all.insert(sdt_event_name(m));
      if (m.name != p.sdt_name || (!p.sdt_provider.empty() && m.provider != p.sdt_provider)) continue;
      found.push_back(&m);
      providers.insert(m.provider);
    }
    if (found.empty()) {
      std::string message = "no SDT marker " + wanted_name(p) + " in '" + options_.target_path + "'";
      if (all.empty()) return fail(message, "it has no SDT markers (no .note.stapsdt section)");
      return fail(message, "its markers are listed by 'kprobe-probe -x " + options_.target_path + " -F --sdt'");
    }
    if (providers.size() > 1) {
      std::vector<std::string> names;
      for (const std::string &provider : providers) names.push_back("%sdt_" + provider + ":" + p.sdt_name);
      return fail("the SDT marker name '" + p.sdt_name + "' is used by " + std::to_string(providers.size()) +
                      " providers in '" + options_.target_path + "'",
                  "name the provider: " + join(names));
    }
    return found;
  }

  Result<ResolvedProbe> site_of(const dwarf::ElfReader &elf, const SdtMarker &m, std::vector<std::string> &warnings) const {
    ResolvedProbe probe;
    probe.address = m.address;
    probe.point = "%" + m.name;  // as perf shows an SDT probe it adds
    TraceDefinition &def = probe.definition;
    def.kind = TraceDefinition::Kind::Uprobe;
    def.path = options_.target_path;
    def.offset = m.file_offset;
    def.ref_ctr_offset = m.semaphore_offset;
    std::vector<std::string> operands = split_operands(m.args);
    if (operands.size() > kMaxOperands)
      return fail("the SDT marker " + sdt_event_name(m) + " at " + hex(m.address) + " claims " +
                  std::to_string(operands.size()) + " operands, more than the kernel's " + std::to_string(kMaxOperands));
    OperandContext where{elf, m.address, m.file_offset};
    if (spec_.args.empty()) {
      // perf's default: every operand, the ones it cannot fetch left out.
      for (size_t i = 0; i < operands.size(); ++i) {
        auto op = translate_operand(operands[i], where);
        if (!op) {
          warnings.push_back("left out arg" + std::to_string(i + 1) + " of " + sdt_event_name(m) + ": " + op.error().message);
          continue;
        }
        def.args.push_back({"arg" + std::to_string(i + 1), op->fetch, operand_type(*op)});
      }
      return probe;
    }
    for (const ProbeArg &arg : spec_.args) {
      auto fetched = fetch_arg(arg, operands, where, m);
      if (!fetched) return std::move(fetched).error();
      def.args.push_back(std::move(*fetched));
    }
    return probe;
  }

  Result<FetchArg> fetch_arg(const ProbeArg &arg, const std::vector<std::string> &operands, const OperandContext &where,
                             const SdtMarker &m) const {
    auto arg_error = [&](const std::string &message, const std::string &hint = {}) {
      return Error(message, hint).at(spec_.text, arg.span);
    };
    FetchArg out;
    out.type = arg.type;
    if (arg.kind == ProbeArg::Kind::Register || arg.kind == ProbeArg::Kind::Comm) {
      bool is_register = arg.kind == ProbeArg::Kind::Register;
      out.name = arg.name.empty() ? (is_register ? arg.base : "comm") : arg.name;
      out.fetch = is_register ? "%" + arg.base : "$comm";
      return out;
    }
    std::string operand_list = operands.empty() ? "it has none" : "arg1..arg" + std::to_string(operands.size());
    size_t index = 0;
    bool is_argn = arg.kind == ProbeArg::Kind::Variable && arg.chain.empty() && arg.base.starts_with("arg") &&
                   arg.base.size() > 3 && arg.base.size() < 8 &&
                   arg.base.find_first_not_of("0123456789", 3) == std::string::npos;
    if (is_argn) index = std::stoul(arg.base.substr(3));
    if (!is_argn || index == 0 || index > operands.size())
      return arg_error("'" + arg.text + "' is not an argument of the SDT marker " + sdt_event_name(m) + " (" +
                           operand_list + ": " + (m.args.empty() ? "no operands" : m.args) + ")",
                       "an SDT marker has no variables; name its arguments arg1..argN, e.g. 'fn=arg2:string'");
    auto op = translate_operand(operands[index - 1], where);
    if (!op) return arg_error(op.error().message);
    out.name = arg.name.empty() ? default_arg_name(arg) : arg.name;
    out.fetch = op->fetch;
    if (arg.type == "string" || arg.type == "ustring") {
      // The operand holds a pointer; the string is where it points.
      auto pointed = dereference(*op);
      if (!pointed) return arg_error("'" + arg.text + "' cannot be read as a string: " + pointed.error().message);
      out.fetch = *pointed;
      out.type = "string";
    } else if (arg.type.empty()) {
      out.type = operand_type(*op);
    }
    return out;
  }

  const ProbeSpec &spec_;
  const BuildOptions &options_;
  Span point_span_;
};

}  // namespace

Result<ResolvedSpec> build_sdt_probe(const ProbeSpec &spec, const BuildOptions &options) {
  return SdtBuilder(spec, options).run();
}

bool all_sdt_specs(const ParsedSpecs &specs) {
  return !specs.empty() &&
         std::all_of(specs.begin(), specs.end(), [](const ParsedSpec &parsed) { return parsed.spec && parsed.spec->point.sdt; });
}

Result<std::vector<std::string>> list_sdt_markers(const std::string &path, const std::string &glob) {
  auto elf = open_marker_file(path);
  if (!elf) return std::move(elf).error();
  auto markers = read_sdt_markers(*elf);
  if (!markers) return std::move(markers).error();
  std::set<std::string> lines;
  for (const SdtMarker &m : *markers) {
    std::string name = sdt_event_name(m);
    if (!glob.empty() && fnmatch(glob.c_str(), name.c_str(), 0) != 0) continue;
    lines.insert(m.problem.empty() ? name : name + "  (cannot be probed: " + m.problem + ")");
  }
  return std::vector<std::string>(lines.begin(), lines.end());
}

}  // namespace kpp::sdt
