// parse_probe_spec: split the spec on whitespace (as perf's argv_split; the
// spaces of a C++ name as printed do not split it), parse the first token as
// the point and the rest as arguments.
#include "src/spec/probe_spec.h"

#include <cctype>
#include <cstdio>

#include "src/spec/cxx_point.h"
#include "src/spec/spec_support.h"
#include "src/spec/spec_parts.h"

namespace kpp {

using spec_detail::spec_error;

namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::vector<Span> split_tokens(std::string_view text) {
  std::vector<Span> tokens;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    size_t start = i;
    // The point may be a C++ name with spaces, as -F prints it (cxx_point.h).
    if (tokens.empty()) i = spec_detail::point_token_end(text, start);
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) tokens.push_back(Span{start, i});
  }
  return tokens;
}

}  // namespace

Result<ProbeSpec> parse_probe_spec(std::string_view text) {
  // A control character other than white space (a NUL, an escape) would be
  // read one way here and another way where the spec is shown again or
  // written to tracefs. White space of any kind separates, as in perf.
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && !is_space(text[i])) || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", c);
      return spec_error(text, i, i + 1, std::string("the probe spec has a control character (") + code + ")",
                        "a spec is printable text and white space");
    }
  }
  std::vector<Span> tokens = split_tokens(text);
  if (tokens.empty())
    return spec_error(text, 0, 1, "the probe spec is empty",
                      "write FUNC, FUNC:LINE, FUNC%return or SRC:LINE, then the variables to record");
  if (tokens.size() - 1 > spec_detail::kMaxProbeArgs)
    return spec_error(text, tokens[spec_detail::kMaxProbeArgs + 1].begin, tokens.back().end,
                      "Too many probe arguments (" + std::to_string(tokens.size() - 1) + ").",
                      "a probe records at most " + std::to_string(spec_detail::kMaxProbeArgs) + " arguments");

  ProbeSpec spec;
  spec.text = std::string(text);
  if (auto st = spec_detail::parse_point_token(text, tokens[0].begin, tokens[0].end, spec); !st)
    return std::move(st).error();
  for (size_t i = 1; i < tokens.size(); ++i) {
    auto arg = spec_detail::parse_arg_token(text, tokens[i].begin, tokens[i].end);
    if (!arg) return std::move(arg).error();
    spec.args.push_back(std::move(arg).value());
  }
  return spec;
}

ParsedSpecs parse_probe_specs(const std::vector<std::string> &texts) {
  ParsedSpecs parsed;
  parsed.reserve(texts.size());
  for (const std::string &text : texts) parsed.push_back(ParsedSpec{text, parse_probe_spec(text)});
  return parsed;
}

std::string default_arg_name(const ProbeArg &arg) {
  if (!arg.name.empty()) return arg.name;
  if (arg.kind != ProbeArg::Kind::Variable) return {};
  // The last member of a chain; indexes are skipped (`var->array[0]` -> `array`).
  for (auto it = arg.chain.rbegin(); it != arg.chain.rend(); ++it)
    if (it->kind != ArgAccess::Kind::Index) return it->member;
  // Go's unnamed results ("~r0") name the field without the '~' the kernel refuses ("r0").
  std::string base = arg.base.starts_with('~') ? arg.base.substr(1) : arg.base;
  if (!arg.chain.empty() || arg.type.empty()) return base;
  // perf names `flags:x32` `flags_x32`. Characters a field name can't hold
  // (from `b4@2/32` or `u8[4]`) become '_' too, so the kernel takes the name.
  std::string name = base + "_" + arg.type;
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return name;
}

}  // namespace kpp
