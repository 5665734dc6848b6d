#include "src/definition/btf_probe.h"

#include "src/util/strings.h"

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

}  // namespace

Result<ResolvedSpec> build_btf_probe(const ProbeSpec &spec, const btf::Btf &btf, const arch::Registers &regs,
                                     const BuildOptions &options) {
  const ProbePoint &p = spec.point;
  Span point_span{0, spec.text.find_first_of(" \t") == std::string::npos ? spec.text.size()
                                                                           : spec.text.find_first_of(" \t")};
  auto fail = [&](const std::string &message) {
    return Error(message, "give a DWARF vmlinux with -k PATH (Debian: apt install linux-image-$(uname -r)-dbg)")
        .at(spec.text, point_span);
  };
  if (p.function.empty() || p.line != 0 || (p.offset && *p.offset != 0) || !p.lazy_pattern.empty() || p.address)
    return fail("without a DWARF vmlinux only function entries and returns can be probed (from BTF)");
  auto fn = btf.function(p.function);
  if (!fn) return fail("no function '" + p.function + "' in the kernel's BTF");

  ResolvedSpec out;
  out.spec = spec;
  ResolvedProbe probe;
  TraceDefinition &def = probe.definition;
  def.kind = TraceDefinition::Kind::Kprobe;
  def.is_return = p.is_return;
  def.symbol = options.module.empty() ? p.function : options.module + ":" + p.function;
  def.offset = 0;
  if (def.is_return) def.maxactive = options.maxactive;
  probe.point = p.function + (p.is_return ? "%return" : "");

  // The integer argument registers, in order; a parameter past them is on the stack.
  auto param_fetch = [&](size_t index, const std::string &type) -> Result<FetchArg> {
    const btf::Param &param = fn->params[index];
    if (index >= regs.arg_regs.size())
      return Error("'" + param.name + "' is parameter " + std::to_string(index + 1) + " of " + fn->name +
                   ", passed on the stack, which BTF alone cannot locate");
    std::string reg(regs.arg_regs[index]);
    btf::Scalar s = btf.scalar(param.type);
    if (type == "string" && s.kind == btf::Scalar::Kind::Pointer) return FetchArg{param.name, "+0(" + reg + ")", type};
    if (!type.empty()) return FetchArg{param.name, reg, type};
    auto t = btf_fetch_type(s, param.name);
    if (!t) return std::move(t).error();
    return FetchArg{param.name, reg, *t};
  };

  for (size_t i = 0; i < spec.args.size(); ++i) {
    const ProbeArg &arg = spec.args[i];
    std::string name = arg.name.empty() ? default_arg_name(arg) : arg.name;
    if (name.empty()) name = "arg" + std::to_string(i + 1);
    switch (arg.kind) {
      case ProbeArg::Kind::Retval: {
        if (!p.is_return) return at_arg(Error("$retval is only available in a return probe"), spec, arg);
        std::string type = arg.type;
        if (type.empty()) {
          auto t = btf_fetch_type(btf.scalar(fn->return_type), "$retval");
          if (!t) return at_arg(t.error(), spec, arg);
          type = *t;
        }
        def.args.push_back({name, "$retval", type});
        continue;
      }
      case ProbeArg::Kind::Comm: def.args.push_back({name, "$comm", arg.type.empty() ? "string" : arg.type}); continue;
      case ProbeArg::Kind::Register: def.args.push_back({name, "%" + arg.base, arg.type}); continue;
      case ProbeArg::Kind::Raw: def.args.push_back({name, arg.base, arg.type}); continue;  // kprobes take it as written
      case ProbeArg::Kind::Params:
        if (p.is_return) return at_arg(Error("a return probe cannot read parameters; use $retval"), spec, arg);
        for (size_t k = 0; k < fn->params.size() && k < regs.arg_regs.size(); ++k)
          if (auto f = param_fetch(k, "")) def.args.push_back(std::move(*f));
        continue;
      case ProbeArg::Kind::Vars:
      case ProbeArg::Kind::Symbol:
        return at_arg(Error("'" + arg.text + "' needs DWARF: BTF describes only the function's parameters"), spec, arg);
      case ProbeArg::Kind::Variable: break;
    }
    if (p.is_return)
      return at_arg(Error("a return probe cannot read the parameter '" + arg.base + "': use $retval"), spec, arg);
    size_t index = fn->params.size();
    std::vector<std::string> names;
    for (size_t k = 0; k < fn->params.size(); ++k) {
      names.push_back(fn->params[k].name);
      if (fn->params[k].name == arg.base) index = k;
    }
    if (index == fn->params.size())
      return at_arg(Error("no parameter '" + arg.base + "' of " + fn->name + " in BTF",
                          names.empty() ? "it takes no parameters" : "its parameters: " + join(names)),
                    spec, arg);
    if (!arg.chain.empty()) {
      auto chain = member_chain(arg, btf.scalar(fn->params[index].type), options);
      if (!chain) return at_arg(chain.error(), spec, arg);
      def.args.push_back({name, *chain, arg.type});
      continue;
    }
    auto f = param_fetch(index, arg.type);
    if (!f) return at_arg(f.error(), spec, arg);
    f->name = name;
    def.args.push_back(std::move(*f));
  }
  out.sites.push_back(std::move(probe));
  out.warnings.push_back("no DWARF vmlinux: '" + spec.text +
                         "' was resolved from the kernel's BTF (function prototype and calling convention)");
  return out;
}

}  // namespace kpp
