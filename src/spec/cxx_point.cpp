#include "src/spec/cxx_point.h"
#include "src/spec/probe_spec.h"

#include <algorithm>
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
    } else if (c == '(' || c == '<' || c == '{') {
      if (c == '(' && depth == 0) w.has_paren = true;
      ++depth;
    } else if ((c == ')' || c == '>' || c == '}') && depth > 0) {
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

// A return type's word: a C++ type's characters only (an argument such as
// `p->name`, `x=%di` or `$retval` has others).
bool type_word(std::string_view w) {
  for (size_t i = 0; i < w.size(); ++i) {
    if (w.substr(i, 2) == "::") {
      ++i;
      continue;
    }
    if (!is_word_char(w[i]) && std::string_view("<>*&, ").find(w[i]) == std::string_view::npos) return false;
  }
  return !w.empty();
}

// The word that names the function: starts like a name and has no
// argument's characters before its parameter list.
bool name_word(std::string_view w) {
  if (w.empty() || !(is_word_char(w[0]) || w[0] == '~' || w[0] == ':' || w[0] == '(')) return false;
  size_t paren = w.find('(', w[0] == '(' ? 1 : 0);
  return w.substr(0, paren).find_first_of("=$%@+") == std::string_view::npos;
}

// A qualifier after a parameter list, maybe followed by the point's rest ("const%return").
bool qualifier(std::string_view w) {
  w = w.substr(0, w.find_first_of("@%+:"));
  return w == "const" || w == "volatile" || w == "&" || w == "&&";
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

}  // namespace

size_t operator_name_end(std::string_view text, size_t i) {
  constexpr std::string_view kw = "operator";
  if (text.substr(i, kw.size()) != kw || (i > 0 && is_word_char(text[i - 1]))) return i;
  size_t at = i + kw.size();
  if (at < text.size() && is_word_char(text[at])) return i;  // "operators", "operator_x"
  size_t end = at;
  while (end < text.size() && is_space(text[end])) ++end;
  if (text.substr(end, 2) == "()") {
    end += 2;
  } else if (end < text.size() && kOperatorChars.find(text[end]) != std::string_view::npos) {
    while (end < text.size() && kOperatorChars.find(text[end]) != std::string_view::npos) ++end;
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

size_t point_token_end(std::string_view text, size_t begin) {
  std::vector<Word> words;
  for (size_t i = begin; i < text.size() && words.size() < kMaxPointWords;) {
    while (i < text.size() && is_space(text[i])) ++i;
    if (i >= text.size()) break;
    words.push_back(scan_word(text, i));
    i = words.back().end;
  }
  if (words.empty()) return begin;
  auto word = [&](size_t k) { return text.substr(words[k].begin, words[k].end - words[k].begin); };
  auto with_qualifiers = [&](size_t k) {
    size_t end = words[k].end;
    if (!word(k).ends_with(')')) return end;
    while (++k < words.size() && qualifier(word(k))) {
      end = words[k].end;
      if (!qualifier(word(k).substr(0, word(k).find_first_of("@%+:")))) break;
      if (word(k).find_first_of("@%+:") != std::string_view::npos) break;  // the point goes on after it
    }
    return end;
  };
  if (words[0].has_paren) return with_qualifiers(0);
  // "int ns::biggest<int>(int, int)": words of a type, then the name. The
  // first word may carry the event ("EVENT=int").
  std::string_view first = word(0);
  if (size_t eq = first.find('='); eq != std::string_view::npos) first.remove_prefix(eq + 1);
  if (!type_word(first)) return words[0].end;
  for (size_t k = 1; k < words.size(); ++k) {
    if (words[k].has_paren && words[k].balanced && name_word(word(k))) return with_qualifiers(k);
    if (!type_word(word(k))) break;
  }
  return words[0].end;
}

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
