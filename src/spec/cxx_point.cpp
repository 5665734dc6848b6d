#include "src/spec/cxx_point.h"
#include "src/spec/probe_spec.h"

#include <algorithm>
#include <optional>
#include <cctype>
#include <string>
#include <vector>

namespace kpp::spec_detail {

namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The characters C++ operators are spelled with.
constexpr std::string_view kOperatorChars = "<>=!+-*/%&|^~,[]";

// A probe point can hold only a few words of return type before its name;
// past this many, the first word alone is the point.
constexpr size_t kMaxPointWords = 12;

struct Word {
  size_t begin = 0, end = 0;
  bool has_paren = false;  // a '(' outside any bracket: a parameter list
  bool balanced = true;    // its brackets close
};

// The word at text[i]: up to white space outside quotes and brackets.
Word scan_word(std::string_view text, size_t i) {
  Word w{i, i, false};
  int depth = 0;
  char quote = 0;
  bool name_done = false;  // past '@', '+', '%' or ':' (parse_point.cpp's rule)
  while (i < text.size()) {
    char c = text[i];
    if (quote) {
      if (c == quote) quote = 0;
      ++i;
      continue;
    }
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (depth == 0 && is_space(c)) break;
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == ';' && depth == 0) {
      // A lazy pattern is raw text up to the next white space.
      while (i < text.size() && !is_space(text[i])) ++i;
      break;
    } else if (size_t op = name_done ? i : operator_name_end(text, i); op != i) {
      i = op;
      continue;
    } else if (name_done) {
      // Brackets of a file name or a line are plain characters.
    } else if (c == '(' || c == '<' || c == '{' || c == '[') {
      if (c == '(' && depth == 0) w.has_paren = true;
      ++depth;
    } else if ((c == ')' || c == '>' || c == '}' || c == ']') && depth > 0) {
      --depth;
    } else if (depth == 0 && (c == '@' || c == '+' || c == '%' || (c == ':' && text.substr(i, 2) != "::"))) {
      name_done = true;
    } else if (c == ':') {
      ++i;  // "::" is part of the name
    }
    ++i;
  }
  w.end = std::min(i, text.size());
  w.balanced = depth == 0;
  return w;
}

// A word that may come before a C++ name as printed: a return type
// ("std::tuple_element<1ul, std::tuple<char*>>::type&", "decltype(a - b)",
// "auto"), "non-virtual thunk to". Outside brackets it has none of an
// argument's characters (`p->name`, `x=%di`, `$retval`, `v:u32`, `a.b`).
bool prefix_word(std::string_view w) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    char c = w[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (size_t op = operator_name_end(w, i); op != i) {
      i = op - 1;  // "operator<", "operator->": no brackets, no argument
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '<' || c == '{' || c == '[') {
      ++depth;
    } else if (c == ')' || c == '>' || c == '}' || c == ']') {
      if (--depth < 0) return false;
    } else if (depth > 0) {
      continue;
    } else if (w.substr(i, 2) == "::") {
      ++i;
    } else if (!is_word_char(c) && std::string_view("*&-~").find(c) == std::string_view::npos) {
      return false;
    } else if (c == '-' && i + 1 < w.size() && w[i + 1] == '>') {
      return false;
    }
  }
  return !w.empty() && depth == 0;
}

// The word that names the function: starts like a name and has no
// argument's characters before its parameter list.
bool name_word(std::string_view w) {
  if (w.empty() || !(is_word_char(w[0]) || w[0] == '~' || w[0] == ':' || w[0] == '(')) return false;
  for (size_t i = w[0] == '(' ? 1 : 0; i < w.size(); ++i) {
    if (size_t op = operator_name_end(w, i); op != i) {
      i = op - 1;  // "operator!=<char*>(...)": an operator's characters are its name's
      continue;
    }
    if (w[i] == '(') return true;
    if (std::string_view("=$%@+").find(w[i]) != std::string_view::npos) return false;
  }
  return true;
}

// A word that goes on with the name before it: after a lambda's or local
// class's enclosing function, "f(int) const::'lambda'()::operator()() const".
bool continues_name(std::string_view w) {
  for (std::string_view q : {"const::", "volatile::", "&::", "&&::"})
    if (w.starts_with(q)) return true;
  return false;
}

// A qualifier after a parameter list, maybe followed by the point's rest ("const%return").
bool qualifier(std::string_view w) {
  w = w.substr(0, w.find_first_of("@%+:"));
  // "[8]": the array a function returns a reference to ("T (&f(int)) [8]").
  bool array_bound = w.size() > 2 && w.front() == '[' && w.back() == ']' &&
                     w.substr(1, w.size() - 2).find_first_not_of("0123456789") == std::string_view::npos;
  return w == "const" || w == "volatile" || w == "&" || w == "&&" || array_bound;
}

// Past the first word of a conversion operator's type at text[end]: the
// rest of the type when a parameter list follows it ("unsigned| long()",
// "char| const*()", "std::basic_string<char>| const&()"), else `end` (a
// spec's argument may follow a name written without one).
size_t conversion_type_end(std::string_view text, size_t end) {
  int depth = 0;
  size_t last = end;  // past the last character of the type seen so far
  for (size_t i = end; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' && depth == 0) return last;
    if (c == '<') {
      ++depth;
    } else if (c == '>') {
      if (--depth < 0) return end;
    } else if (depth == 0 && !is_word_char(c) && !is_space(c) && std::string_view(":*&").find(c) == std::string_view::npos) {
      return end;
    }
    if (!is_space(c)) last = i + 1;
  }
  return end;
}

// Where a template argument list opening at text[i] ('<') closes, or npos.
size_t template_args_end(std::string_view text, size_t i) {
  int depth = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '<' || c == '(') ++depth;
    else if ((c == '>' || c == ')') && --depth == 0) return i + 1;
    else if (depth < 0) return std::string_view::npos;
  }
  return std::string_view::npos;
}

// The operator symbols C++ overloads, longest first.
constexpr std::string_view kOperatorSymbols[] = {
    "->*", "<<=", ">>=", "<=>", "()", "[]", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "+=",  "-=",  "*=",  "/=",  "%=", "^=", "&=", "|=", "+",  "-",  "*",  "/",  "%",  "^",  "&",  "|",
    "~",   "!",   "=",   "<",   ">",  ","};

// Past the symbol of an operator at text[i] ("operator<<<char>(...)" is
// operator<< with template arguments <char>, "operator<<int>(...)" is
// operator< with <int>): the longest symbol after which what follows can
// be a name's rest. `i` itself when there is none.
size_t symbol_operator_end(std::string_view text, size_t i) {
  for (std::string_view sym : kOperatorSymbols) {
    if (text.substr(i, sym.size()) != sym) continue;
    size_t end = i + sym.size();
    size_t next = end;
    while (next < text.size() && is_space(text[next])) ++next;
    if (next < text.size() && text[next] == '<' && template_args_end(text, next) == std::string_view::npos) continue;
    if (next < text.size() && text[next] != '<' && kOperatorChars.find(text[next]) != std::string_view::npos) continue;
    if (next < text.size() && is_word_char(text[next])) continue;  // "operator<<long, ...>" is operator< of <long, ...>
    return end;
  }
  return i;
}

}  // namespace

size_t operator_name_end(std::string_view text, size_t i) {
  constexpr std::string_view kw = "operator";
  if (text.substr(i, kw.size()) != kw || (i > 0 && is_word_char(text[i - 1]))) return i;
  size_t at = i + kw.size();
  if (at < text.size() && is_word_char(text[at])) return i;  // "operators", "operator_x"
  size_t end = at;
  while (end < text.size() && is_space(text[end])) ++end;
  if (size_t sym = symbol_operator_end(text, end); sym != end) {
    end = sym;
  } else if (text.substr(end, 2) == "\"\"") {
    // A literal operator, "operator\"\" sv": its suffix is its name's.
    end += 2;
    while (end < text.size() && is_space(text[end])) ++end;
    while (end < text.size() && is_word_char(text[end])) ++end;
  } else if (end < text.size() && is_word_char(text[end])) {
    // "operator new[]", "operator delete", a conversion "operator int";
    // a conversion's type may be several words up to its parameter list
    // ("operator unsigned long()", "operator char const*()").
    while (end < text.size() && is_word_char(text[end])) ++end;
    if (text.substr(end, 2) == "[]") end += 2;
    end = conversion_type_end(text, end);
  } else {
    return i;  // "operator" alone is a name like any other
  }
  // "operator< <int>(...)": the space before a template's arguments.
  size_t next = end;
  while (next < text.size() && is_space(text[next])) ++next;
  if (next < text.size() && (text[next] == '<' || text[next] == '(')) end = next;
  return end;
}

namespace {

// Where the C++ name of the point at text[begin] starts and where the
// point ends (cxx_point.h).
struct NameWords {
  size_t name_begin, end;
};

NameWords find_name_words(std::string_view text, size_t begin) {
  std::vector<Word> words;
  for (size_t i = begin; i < text.size() && words.size() < kMaxPointWords;) {
    while (i < text.size() && is_space(text[i])) ++i;
    if (i >= text.size()) break;
    words.push_back(scan_word(text, i));
    i = words.back().end;
  }
  if (words.empty()) return {begin, begin};
  auto word = [&](size_t k) { return text.substr(words[k].begin, words[k].end - words[k].begin); };
  auto with_qualifiers = [&](size_t k) {
    size_t end = words[k].end;
    if (!word(k).ends_with(')')) return end;
    while (++k < words.size() && qualifier(word(k))) {
      end = words[k].end;
      if (word(k).find_first_of("@%+:") != std::string_view::npos) break;  // the point goes on after it
    }
    return end;
  };
  // The name is the last word with a parameter list before the first word
  // that only an argument has: "int ns::biggest<int>(int, int) a", "auto
  // f(int)::'lambda'()::operator()() const" (its last scope is the name),
  // "f(int)::'lambda'(int)::operator()(int) const::'lambda'()::operator()()
  // const". The first word may carry the event ("EVENT=int").
  std::string_view first = word(0);
  for (size_t i = 0; i < first.size() && std::string_view("(<").find(first[i]) == std::string_view::npos; ++i) {
    if (size_t op = operator_name_end(first, i); op != i) break;  // "operator==" is no event's '='
    if (first[i] == '=') {
      first.remove_prefix(i + 1);
      break;
    }
  }
  std::optional<size_t> name, name_first;
  for (size_t k = 0; k < words.size(); ++k) {
    std::string_view w = k == 0 ? first : word(k);
    if (words[k].has_paren && words[k].balanced && name_word(w)) {
      if (!(name && *name + 1 == k && continues_name(w))) name_first = k;
      name = k;
    }
    if (!prefix_word(w)) break;
  }
  if (!name) return {words[0].begin, words[0].end};
  return {*name_first == 0 ? words[0].begin : words[*name_first].begin, with_qualifiers(*name)};
}

}  // namespace

size_t point_token_end(std::string_view text, size_t begin) { return find_name_words(text, begin).end; }

size_t point_name_begin(std::string_view text, size_t begin) { return find_name_words(text, begin).name_begin; }

}  // namespace kpp::spec_detail

namespace kpp {

bool is_function_glob(std::string_view function) {
  int depth = 0;
  size_t component = 0;  // where the current "::" component starts
  for (size_t i = 0; i < function.size(); ++i) {
    char c = function[i];
    if (c == '(' || c == '<') ++depth;
    else if ((c == ')' || c == '>') && depth > 0) --depth;
    else if (depth == 0 && function.substr(i, 2) == "::") component = ++i + 1;
    else if (depth == 0 && (c == '*' || c == '?') && !function.substr(component).starts_with("operator")) return true;
  }
  return false;
}

}  // namespace kpp
