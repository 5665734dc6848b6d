#include "src/definition/btf_probe.h"

#include "util/strings.h"

namespace kpp {

Result<std::string> btf_fetch_type(const btf::Scalar &s, const std::string &what) {
  using K = btf::Scalar::Kind;
  switch (s.kind) {
    case K::Pointer: return std::string("x64");
    case K::Bool: return std::string("u8");
    case K::Int: case K::Char: case K::Enum:
      if (s.size == 1 || s.size == 2 || s.size == 4 || s.size == 8)
        return std::string(s.is_signed ? "s" : "u") + std::to_string(s.size * 8);
      break;
    default: break;
  }
  return Error("'" + what + "' is of type " + s.name + ", which is not one value a register holds",
               "probe with a DWARF vmlinux (-k) to read members");
}

namespace {

Error at_arg(const Error &e, const ProbeSpec &spec, const ProbeArg &arg) { return Error(e).at(spec.text, arg.span); }

// A parameter's member chain ("file->f_pos") as the kernel reads it by BTF
// name (Linux 6.6 on), which also types it; older kernels take only
// offsets, which without DWARF we do not compute: refused, with the way out.
Result<std::string> member_chain(const ProbeArg &arg, const btf::Scalar &param, const BuildOptions &options) {
  if (!options.btf_member_chains)
    return Error("'" + arg.text + "': this kernel's probe events cannot read a member chain by BTF name "
                     "(Linux 6.6 and later can: CONFIG_PROBE_EVENTS_BTF_ARGS), and without a DWARF vmlinux "
                     "its offsets are unknown",
                 "give a DWARF vmlinux with -k PATH, or probe the parameter '" + arg.base + "' itself");
  if (param.kind != btf::Scalar::Kind::Pointer || arg.chain.front().kind != ArgAccess::Kind::Arrow)
    return Error("'" + arg.text + "': '" + arg.base + "' is " + param.name +
                     "; from BTF a chain starts with '->' on a pointer parameter");
  std::string fetch = arg.base;
  for (const ArgAccess &a : arg.chain) {
    if (a.kind == ArgAccess::Kind::Index)
      return Error("'" + arg.text + "': array indexes need a DWARF vmlinux (-k); the kernel's BTF chains take "
                   "members only");
    fetch += (a.kind == ArgAccess::Kind::Arrow ? "->" : ".") + a.member;
  }
  return fetch;
}

// Where the probe point is in the spec's text (up to the first blank), for
// the errors about the point itself.
Span point_span(const std::string &text) {
  size_t blank = text.find_first_of(" \t");
  return Span{0, blank == std::string::npos ? text.size() : blank};
}

// The prototype of the function `spec` probes; refused when the point needs
// more than a function's entry or return (a line, an offset, a lazy pattern,
// an address): BTF has no line table or locations.
Result<btf::FunctionProto> find_prototype(const ProbeSpec &spec, const btf::Btf &btf) {
  const ProbePoint &p = spec.point;
  auto fail = [&](const std::string &message) {
    return Error(message, "give a DWARF vmlinux with -k PATH (Debian: apt install linux-image-$(uname -r)-dbg)")
        .at(spec.text, point_span(spec.text));
  };
  if (p.function.empty() || p.line != 0 || (p.offset && *p.offset != 0) || !p.lazy_pattern.empty() || p.address)
    return fail("without a DWARF vmlinux only function entries and returns can be probed (from BTF)");
  auto fn = btf.function(p.function);
  if (!fn) return fail("no function '" + p.function + "' in the kernel's BTF");
  return std::move(*fn);
}

// The kprobe on the function's entry (kretprobe on its return), no args yet.
ResolvedProbe entry_or_return_probe(const ProbePoint &p, const BuildOptions &options) {
  ResolvedProbe probe;
  TraceDefinition &def = probe.definition;
  def.kind = TraceDefinition::Kind::Kprobe;
  def.is_return = p.is_return;
  def.symbol = options.module.empty() ? p.function : options.module + ":" + p.function;
  def.offset = 0;
  if (def.is_return) def.maxactive = options.maxactive;
  probe.point = p.function + (p.is_return ? "%return" : "");
  return probe;
}

// The fetch-args of a probe on one function, from its BTF prototype:
// parameters by name in the registers of the calling convention, $retval
// typed by the return type.
class BtfArgs {
 public:
  BtfArgs(const ProbeSpec &spec, const btf::FunctionProto &fn, const btf::Btf &btf, const arch::Registers &regs,
          const BuildOptions &options)
      : spec_(spec), fn_(fn), btf_(btf), regs_(regs), options_(options) {}

  // Appends what the spec's argument number `index` reads to `out`; an
  // error points at that argument.
  Status add(size_t index, std::vector<FetchArg> &out) const {
    const ProbeArg &arg = spec_.args[index];
    std::string name = arg.name.empty() ? default_arg_name(arg) : arg.name;
    if (name.empty()) name = "arg" + std::to_string(index + 1);
    if (Status added = add_named(arg, name, out); !added) return at_arg(added.error(), spec_, arg);
    return Ok{};
  }

 private:
  Status add_named(const ProbeArg &arg, const std::string &name, std::vector<FetchArg> &out) const {
    switch (arg.kind) {
      case ProbeArg::Kind::Retval: return push(retval(arg, name), out);
      case ProbeArg::Kind::Comm: out.push_back({name, "$comm", arg.type.empty() ? "string" : arg.type}); break;
      case ProbeArg::Kind::Register: out.push_back({name, "%" + arg.base, arg.type}); break;
      case ProbeArg::Kind::Raw: out.push_back({name, arg.base, arg.type}); break;  // kprobes take it as written
      case ProbeArg::Kind::Params: return add_params(out);
      case ProbeArg::Kind::Vars:
      case ProbeArg::Kind::Symbol:
        return Error("'" + arg.text + "' needs DWARF: BTF describes only the function's parameters");
      case ProbeArg::Kind::Variable: return push(parameter(arg, name), out);
    }
    return Ok{};
  }

  static Status push(Result<FetchArg> fetch, std::vector<FetchArg> &out) {
    if (!fetch) return std::move(fetch).error();
    out.push_back(std::move(*fetch));
    return Ok{};
  }

  Result<FetchArg> retval(const ProbeArg &arg, const std::string &name) const {
    if (!spec_.point.is_return) return Error("$retval is only available in a return probe");
    if (!arg.type.empty()) return FetchArg{name, "$retval", arg.type};
    auto type = btf_fetch_type(btf_.scalar(fn_.return_type), "$retval");
    if (!type) return std::move(type).error();
    return FetchArg{name, "$retval", *type};
  }

  // $params: every parameter in a register; one whose type is no single
  // register's value (a struct by value) is left out, not refused.
  Status add_params(std::vector<FetchArg> &out) const {
    if (spec_.point.is_return) return Error("a return probe cannot read parameters; use $retval");
    for (size_t k = 0; k < fn_.params.size() && k < regs_.arg_regs.size(); ++k)
      if (auto fetch = in_register(k, "")) out.push_back(std::move(*fetch));
    return Ok{};
  }

  // A parameter by name, or a member chain from it.
  Result<FetchArg> parameter(const ProbeArg &arg, const std::string &name) const {
    if (spec_.point.is_return)
      return Error("a return probe cannot read the parameter '" + arg.base + "': use $retval");
    auto index = parameter_index(arg.base);
    if (!index) return std::move(index).error();
    if (!arg.chain.empty()) {
      auto chain = member_chain(arg, btf_.scalar(fn_.params[*index].type), options_);
      if (!chain) return std::move(chain).error();
      return FetchArg{name, *chain, arg.type};
    }
    auto fetch = in_register(*index, arg.type);
    if (fetch) fetch->name = name;
    return fetch;
  }

  Result<size_t> parameter_index(const std::string &base) const {
    std::vector<std::string> names;
    for (const btf::Param &param : fn_.params) names.push_back(param.name);
    for (size_t k = names.size(); k-- > 0;)  // the last of a name held twice, as always
      if (names[k] == base) return k;
    return Error("no parameter '" + base + "' of " + fn_.name + " in BTF",
                 names.empty() ? "it takes no parameters" : "its parameters: " + join(names));
  }

  // Parameter `index` in its argument register (the integer ones, in order;
  // a parameter past them is on the stack), typed `type` or by its BTF type.
  Result<FetchArg> in_register(size_t index, const std::string &type) const {
    const btf::Param &param = fn_.params[index];
    if (index >= regs_.arg_regs.size())
      return Error("'" + param.name + "' is parameter " + std::to_string(index + 1) + " of " + fn_.name +
                   ", passed on the stack, which BTF alone cannot locate");
    std::string reg(regs_.arg_regs[index]);
    btf::Scalar scalar = btf_.scalar(param.type);
    if (type == "string" && scalar.kind == btf::Scalar::Kind::Pointer)
      return FetchArg{param.name, "+0(" + reg + ")", type};
    if (!type.empty()) return FetchArg{param.name, reg, type};
    auto fetch_type = btf_fetch_type(scalar, param.name);
    if (!fetch_type) return std::move(fetch_type).error();
    return FetchArg{param.name, reg, *fetch_type};
  }

  const ProbeSpec &spec_;
  const btf::FunctionProto &fn_;
  const btf::Btf &btf_;
  const arch::Registers &regs_;
  const BuildOptions &options_;
};

}  // namespace

Result<ResolvedSpec> build_btf_probe(const ProbeSpec &spec, const btf::Btf &btf, const arch::Registers &regs,
                                     const BuildOptions &options) {
  auto fn = find_prototype(spec, btf);
  if (!fn) return std::move(fn).error();
  ResolvedProbe probe = entry_or_return_probe(spec.point, options);
  BtfArgs args(spec, *fn, btf, regs, options);
  for (size_t i = 0; i < spec.args.size(); ++i)
    if (Status added = args.add(i, probe.definition.args); !added) return std::move(added).error();
  ResolvedSpec out;
  out.spec = spec;
  out.sites.push_back(std::move(probe));
  out.warnings.push_back("no DWARF vmlinux: '" + spec.text +
                         "' was resolved from the kernel's BTF (function prototype and calling convention)");
  return out;
}

}  // namespace kpp
