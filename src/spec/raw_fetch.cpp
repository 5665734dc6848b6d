#include "src/spec/raw_fetch.h"

#include <cctype>
#include <cstdint>
#include <utility>

#include "src/spec/spec_support.h"

namespace kpp {

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The kernel's MAX_TRACE_ARGS bounds $argN; loads nest at most as deep as
// its fetch-insn buffer allows (FETCH_INSN_MAX 16): deeper is refused here.
constexpr uint64_t kMaxArgNumber = 128;
constexpr size_t kMaxLoads = 8;

Error raw_error(size_t begin, size_t end, std::string message, std::string hint = {}) {
  Error e(std::move(message), std::move(hint));
  e.span = Span{begin, end > begin ? end : begin + 1};
  return e;
}

// The number at body[at..] (decimal, or 0x hexadecimal), its end in `end`.
bool number_at(std::string_view body, size_t at, uint64_t &value, size_t &end) {
  end = at;
  auto hex_mark = [&](size_t i) { return i == at + 1 && body[at] == '0' && (body[i] == 'x' || body[i] == 'X'); };
  while (end < body.size() && (std::isxdigit(static_cast<unsigned char>(body[end])) || hex_mark(end))) ++end;
  return end > at && spec_detail::parse_c_number(body.substr(at, end - at), value);
}

class RawParser {
 public:
  explicit RawParser(std::string_view body) : body_(body) {}

  Result<RawFetch> run() {
    RawFetch fetch;
    size_t at = 0;
    // Loads, outermost first: [+|-][u]OFF(
    while (at < body_.size() && (body_[at] == '+' || body_[at] == '-')) {
      if (fetch.loads.size() == kMaxLoads)
        return raw_error(at, body_.size(), "more than " + std::to_string(kMaxLoads) + " nested loads");
      RawFetch::Load load;
      bool negative = body_[at] == '-';
      size_t start = at;
      ++at;
      if (at < body_.size() && body_[at] == 'u') {
        load.user = true;
        ++at;
      }
      uint64_t magnitude = 0;
      size_t end = at;
      if (!number_at(body_, at, magnitude, end) || magnitude > uint64_t{INT64_MAX})
        return raw_error(start, end + 1, "a load is written +OFF(FETCHARG): expected a number after '" +
                                            std::string(body_.substr(start, at - start)) + "'",
                         "e.g. '+8(%di)', '-16(%bp)', '+0(+8(%si)):string'");
      if (end >= body_.size() || body_[end] != '(')
        return raw_error(end, end + 1, "expected '(' after the load's offset", "e.g. '+8(%di)'");
      load.offset = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
      fetch.loads.push_back(load);
      at = end + 1;
    }
    size_t base_end = body_.size() - fetch.loads.size();
    for (size_t i = base_end; i < body_.size(); ++i)
      if (body_[i] != ')') return raw_error(i, i + 1, "expected ')' to close a load");
    if (base_end < at) return raw_error(at, body_.size(), "a load needs something to load from", "e.g. '+8(%di)'");
    for (size_t i = at; i < base_end; ++i)
      if (body_[i] == '(' || body_[i] == ')') return raw_error(i, i + 1, "unbalanced parentheses in the fetch argument");
    Status base = parse_base(body_.substr(at, base_end - at), at, fetch);
    if (!base) return std::move(base).error();
    return fetch;
  }

 private:
  Status parse_base(std::string_view text, size_t at, RawFetch &fetch) {
    if (text.empty()) return raw_error(at, at + 1, "a load needs something to load from");
    if (text[0] == '%') {
      size_t n = 1;
      while (n < text.size() && is_word(text[n])) ++n;
      if (n == 1 || n != text.size())
        return raw_error(at, at + text.size(), "'" + std::string(text) + "' is not a register", "write a register as %di");
      fetch.base = RawFetch::Base::Register;
      fetch.name = std::string(text.substr(1));
      return Ok{};
    }
    if (text == "$stack") {
      fetch.base = RawFetch::Base::Stack;
      return Ok{};
    }
    if (text == "$retval") {
      fetch.base = RawFetch::Base::Retval;
      return Ok{};
    }
    for (auto [prefix, kind] : {std::pair{std::string_view("$stack"), RawFetch::Base::StackEntry},
                                std::pair{std::string_view("$arg"), RawFetch::Base::Arg}}) {
      if (!text.starts_with(prefix)) continue;
      std::string_view digits = text.substr(prefix.size());
      uint64_t n = 0;
      bool decimal = !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
      if (!decimal || !spec_detail::parse_c_number(digits, n) ||
          (kind == RawFetch::Base::Arg && (n == 0 || n > kMaxArgNumber)))
        return raw_error(at, at + text.size(),
                         "'" + std::string(text) + "': expected " + std::string(prefix) +
                             (kind == RawFetch::Base::Arg ? "N, N from 1 to 128" : "N, N a decimal number"));
      fetch.base = kind;
      fetch.number = n;
      return Ok{};
    }
    if (text[0] == '@') return parse_address(text, at, fetch);
    if (text[0] == '$')
      return raw_error(at, at + text.size(),
                       "unknown special variable '" + std::string(text) +
                           "': expected $retval, $params, $vars, $comm, $stack, $stackN or $argN");
    return raw_error(at, at + text.size(),
                     "'" + std::string(text) + "' cannot be loaded from: a load takes %REG, $stackN, $argN, @ADDR, @SYM or another load",
                     "a variable by name is read without a load: 'p->next' (with DWARF)");
  }

  Status parse_address(std::string_view text, size_t at, RawFetch &fetch) {
    std::string_view rest = text.substr(1);
    if (!rest.empty() && is_digit(rest[0])) {
      uint64_t address = 0;
      if (!spec_detail::parse_c_number(rest, address))
        return raw_error(at, at + text.size(), "'" + std::string(text) + "' is not an address", "write @0x601040");
      fetch.base = RawFetch::Base::Address;
      fetch.number = address;
      return Ok{};
    }
    size_t n = 0;
    while (n < rest.size() && is_word(rest[n])) ++n;
    if (n == 0 || is_digit(rest[0]))
      return raw_error(at, at + text.size(), "symbol name expected after '@'", "write a global as @counter");
    fetch.base = RawFetch::Base::Symbol;
    fetch.name = std::string(rest.substr(0, n));
    std::string_view offset = rest.substr(n);
    if (offset.empty()) return Ok{};
    uint64_t magnitude = 0;
    if ((offset[0] != '+' && offset[0] != '-') || !spec_detail::parse_c_number(offset.substr(1), magnitude) ||
        magnitude > uint64_t{INT64_MAX})
      return raw_error(at + 1 + n, at + text.size(), "expected +OFF or -OFF after the symbol", "write @counter+8");
    fetch.offset = offset[0] == '-' ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
    return Ok{};
  }

  std::string_view body_;
};

}  // namespace

bool is_raw_fetch(std::string_view body) {
  if (body.empty()) return false;
  if (body[0] == '+' || body[0] == '-') return true;
  if (body == "$stack" || body.starts_with("$stack") || body.starts_with("$arg")) {
    // "$stack7", "$arg2" (not "$args" or "$stackx": those are unknown specials).
    size_t digits = body.find_first_of("0123456789");
    return body == "$stack" || (digits != std::string_view::npos && (digits == 4 || digits == 6));
  }
  // @ADDR, and a symbol with an offset ("@counter+8"; "@p->next" is a global's chain).
  if (body.size() < 2 || body[0] != '@') return false;
  if (is_digit(body[1])) return true;
  size_t n = 1;
  while (n < body.size() && is_word(body[n])) ++n;
  return n + 1 < body.size() && (body[n] == '+' || body[n] == '-') && is_digit(body[n + 1]);
}

Result<RawFetch> parse_raw_fetch(std::string_view body) { return RawParser(body).run(); }

std::string wrap_raw_loads(const RawFetch &fetch, const std::string &base_text) {
  std::string text = base_text;
  for (auto it = fetch.loads.rbegin(); it != fetch.loads.rend(); ++it) {
    uint64_t magnitude = it->offset < 0 ? 0 - static_cast<uint64_t>(it->offset) : static_cast<uint64_t>(it->offset);
    text = std::string(it->offset < 0 ? "-" : "+") + (it->user ? "u" : "") + std::to_string(magnitude) + "(" + text + ")";
  }
  return text;
}

}  // namespace kpp
