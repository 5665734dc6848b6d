#include "src/definition/trace_definition.h"

#include <cstdlib>

#include "util/strings.h"

namespace kpp {

namespace {

// Lines read from kprobe_events end in '\n' (and may come with '\r' from a file).
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Whether `name` can be a group, event or argument name as the kernel lists
// one: its is_good_name(), a letter or '_' and then letters, digits and '_'
// ('.' too in a group, which some kernels allow). Anything else (a NUL, a
// tab, an '=') would write a line that reads back as another definition.
bool is_listed_name(std::string_view name, bool group = false) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (name.empty() || !letter(name[0])) return false;
  for (char c : name)
    if (!letter(c) && !(c >= '0' && c <= '9') && !(group && c == '.')) return false;
  return true;
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_blank(s[i])) ++i;
    size_t start = i;
    while (i < s.size() && !is_blank(s[i])) ++i;
    if (i > start) words.push_back(s.substr(start, i - start));
  }
  return words;
}

// The type is whatever follows the last ':' that is outside parentheses
// ("+0(%di):string"); a ':' inside a uprobe path never reaches here.
FetchArg parse_fetch_arg(std::string_view word) {
  FetchArg arg;
  size_t eq = word.find('=');
  if (eq != std::string_view::npos) {
    NamedFixup named = split_fixup(word.substr(0, eq));
    arg.name = std::move(named.name);
    arg.fixup = named.fixup;
    word.remove_prefix(eq + 1);
  }
  int depth = 0;
  size_t colon = std::string_view::npos;
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '(') ++depth;
    else if (word[i] == ')') --depth;
    else if (word[i] == ':' && depth == 0) colon = i;
  }
  if (colon != std::string_view::npos) {
    arg.type = std::string(word.substr(colon + 1));
    word = word.substr(0, colon);
  }
  arg.fetch = std::string(word);
  return arg;
}

// The first word, "p:GROUP/EVENT", "r4:GROUP/EVENT" (maxactive 4) or
// "f:GROUP/EVENT" (an fprobe), into `def`.
Status parse_head(std::string_view head, TraceDefinition &def) {
  if (head.empty() || (head[0] != 'p' && head[0] != 'r' && head[0] != 'f')) return Error("not a probe definition");
  def.is_return = head[0] == 'r';
  def.fprobe = head[0] == 'f';
  size_t colon = head.find(':');
  if (colon == std::string_view::npos) return Error("probe definition without a name");
  std::string_view maxactive = head.substr(1, colon - 1);
  if (maxactive.find_first_not_of("0123456789") != std::string_view::npos)
    return Error("not a probe definition (p, r or f, a number, then ':')");
  if (!maxactive.empty()) def.maxactive = static_cast<unsigned>(std::strtoul(std::string(maxactive).c_str(), nullptr, 10));
  std::string_view name = head.substr(colon + 1);
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return Error("probe definition without a group");
  def.group = std::string(name.substr(0, slash));
  def.event = std::string(name.substr(slash + 1));
  if (!is_listed_name(def.group, true) || !is_listed_name(def.event))
    return Error("probe definition whose group or event name the kernel would not take");
  return Ok{};
}

// A uprobe's place, PATH:0xOFFSET[(0xREF_CTR)][%return].
void parse_uprobe_place(std::string_view where, size_t last_colon, TraceDefinition &def) {
  def.kind = TraceDefinition::Kind::Uprobe;
  def.path = std::string(where.substr(0, last_colon));
  std::string off(where.substr(last_colon + 1));
  if (auto pct = off.find('%'); pct != std::string::npos) off.resize(pct);  // "%return" on older kernels
  if (auto paren = off.find('('); paren != std::string::npos) {  // "(0x...)": a reference counter
    def.ref_ctr_offset = std::strtoull(off.c_str() + paren + 1, nullptr, 0);
    off.resize(paren);
  }
  def.offset = std::strtoull(off.c_str(), nullptr, 0);
}

// An fprobe's place, "FUNC" or "FUNC%return".
void parse_fprobe_place(std::string_view where, TraceDefinition &def) {
  def.kind = TraceDefinition::Kind::Kprobe;
  def.symbol = std::string(where);
  if (size_t pct = def.symbol.find("%return"); pct != std::string::npos) {
    def.symbol.resize(pct);
    def.is_return = true;
  }
}

// A kprobe's place, [MOD:]SYM[+OFFS] or an address.
void parse_kprobe_place(std::string_view where, TraceDefinition &def) {
  def.kind = TraceDefinition::Kind::Kprobe;
  size_t plus = where.rfind('+');
  if (where.substr(0, 2) == "0x") {
    def.offset = std::strtoull(std::string(where).c_str(), nullptr, 0);
  } else if (plus != std::string_view::npos) {
    def.symbol = std::string(where.substr(0, plus));
    def.offset = std::strtoull(std::string(where.substr(plus + 1)).c_str(), nullptr, 0);
  } else {
    def.symbol = std::string(where);
  }
}

// The second word: where the probe is. A uprobe's place is an absolute path
// with a ':'; after "f" a function; else a kprobe's.
void parse_place(std::string_view where, TraceDefinition &def) {
  size_t last_colon = where.rfind(':');
  if (!where.empty() && where[0] == '/' && last_colon != std::string_view::npos)
    parse_uprobe_place(where, last_colon, def);
  else if (def.fprobe)
    parse_fprobe_place(where, def);
  else
    parse_kprobe_place(where, def);
}

// One fetch-arg word, refused when it would not be written back as it
// reads: a name the kernel would not take or a ':' with no type ("==x",
// "x::"), or nothing to fetch (":" alone would be written as nothing, and
// the line would read back one argument short).
Result<FetchArg> parse_checked_fetch_arg(std::string_view word) {
  FetchArg arg = parse_fetch_arg(word);
  size_t eq = word.find('=');
  if ((eq != std::string_view::npos && !is_listed_name(word.substr(0, eq))) ||
      (word.back() == ':' && arg.type.empty()) || arg.type.find(':') != std::string::npos)
    return Error("probe definition with an argument the kernel would not take ('" + std::string(word) + "')");
  if (arg.fetch.empty())
    return Error("probe definition with an argument that fetches nothing ('" + std::string(word) + "')");
  return arg;
}

}  // namespace

std::string format_fetch_args(const std::vector<FetchArg> &args) {
  std::string out;
  for (const FetchArg &arg : args) {
    if (!out.empty()) out += ' ';
    if (!arg.name.empty()) out += field_name_with_fixup(arg.name, arg.fixup) + "=";
    out += arg.fetch;
    if (!arg.type.empty()) out += ":" + arg.type;
  }
  return out;
}

std::string format_definition(const TraceDefinition &def) {
  if (def.fprobe) {
    std::string out = "f:" + def.group + "/" + def.event + " " + def.symbol + (def.is_return ? "%return" : "");
    std::string args = format_fetch_args(def.args);
    return args.empty() ? out : out + " " + args;
  }
  std::string out = def.is_return ? "r" : "p";
  if (def.is_return && def.maxactive) out += std::to_string(*def.maxactive);
  out += ":" + def.group + "/" + def.event + " ";
  if (def.kind == TraceDefinition::Kind::Uprobe) {
    out += def.path + ":" + hex(def.offset);
    if (def.ref_ctr_offset) out += "(" + hex(*def.ref_ctr_offset) + ")";
  } else {
    out += def.symbol;
    if (!def.symbol.empty()) out += "+" + std::to_string(def.offset);
    else out += hex(def.offset);
  }
  std::string args = format_fetch_args(def.args);
  if (!args.empty()) out += " " + args;
  return out;
}

Result<TraceDefinition> parse_definition(std::string_view line) {
  // Every error quotes the whole line: among the lines kprobe_events lists, it says which.
  auto refused = [&](const Error &e) { return Error(e.message + ": '" + std::string(line) + "'"); };
  auto words = split_words(line);
  if (words.size() < 2) return refused(Error("not a probe definition"));
  TraceDefinition def;
  if (Status head = parse_head(words[0], def); !head) return refused(head.error());
  parse_place(words[1], def);
  for (size_t i = 2; i < words.size(); ++i) {
    auto arg = parse_checked_fetch_arg(words[i]);
    if (!arg) return refused(arg.error());
    def.args.push_back(std::move(*arg));
  }
  return def;
}

}  // namespace kpp
