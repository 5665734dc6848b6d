// A tiny JSON reader for the tool's --json lines: objects, arrays, strings,
// numbers (kept as their text), true/false/null. Enough to check fields; not
// a general-purpose parser.
#pragma once

#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct json_value {
  enum class kind { null, boolean, number, string, array, object } type = kind::null;
  std::string text;  // number text, string contents, "true"/"false"
  std::vector<json_value> items;
  std::vector<std::pair<std::string, json_value>> members;

  const json_value *get(const std::string &key) const {
    for (const auto &[k, v] : members)
      if (k == key) return &v;
    return nullptr;
  }
  // Numbers and strings as text, for comparing with the fixture's printf.
  std::string scalar() const { return text; }
};

class json_reader {
 public:
  explicit json_reader(const std::string &s) : s_(s) {}

  std::optional<json_value> parse() {
    auto v = value();
    skip_ws();
    if (!v || pos_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  const std::string &s_;
  size_t pos_ = 0;

  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool eat(char c) {
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<std::string> string_body() {
    std::string out;
    while (pos_ < s_.size()) {
      char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) return std::nullopt;
      char e = s_[pos_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (pos_ + 4 > s_.size()) return std::nullopt;
          unsigned long cp = std::strtoul(s_.substr(pos_, 4).c_str(), nullptr, 16);
          pos_ += 4;
          if (cp < 0x80) {
            out += static_cast<char>(cp);
          } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
          } else {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
          }
          break;
        }
        default: out += e; break;  // \" \\ \/
      }
    }
    return std::nullopt;
  }
  std::optional<json_value> value() {
    skip_ws();
    if (pos_ >= s_.size()) return std::nullopt;
    json_value v;
    char c = s_[pos_];
    if (c == '{') {
      ++pos_;
      v.type = json_value::kind::object;
      if (eat('}')) return v;
      do {
        if (!eat('"')) return std::nullopt;
        auto key = string_body();
        if (!key || !eat(':')) return std::nullopt;
        auto member = value();
        if (!member) return std::nullopt;
        v.members.emplace_back(std::move(*key), std::move(*member));
      } while (eat(','));
      if (!eat('}')) return std::nullopt;
      return v;
    }
    if (c == '[') {
      ++pos_;
      v.type = json_value::kind::array;
      if (eat(']')) return v;
      do {
        auto item = value();
        if (!item) return std::nullopt;
        v.items.push_back(std::move(*item));
      } while (eat(','));
      if (!eat(']')) return std::nullopt;
      return v;
    }
    if (c == '"') {
      ++pos_;
      auto body = string_body();
      if (!body) return std::nullopt;
      v.type = json_value::kind::string;
      v.text = std::move(*body);
      return v;
    }
    for (const char *word : {"true", "false", "null"}) {
      std::string w(word);
      if (s_.compare(pos_, w.size(), w) == 0) {
        pos_ += w.size();
        v.type = w == "null" ? json_value::kind::null : json_value::kind::boolean;
        v.text = w;
        return v;
      }
    }
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '-' || s_[pos_] == '+' ||
                                s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E'))
      ++pos_;
    if (start == pos_) return std::nullopt;
    v.type = json_value::kind::number;
    v.text = s_.substr(start, pos_ - start);
    return v;
  }
};

inline std::optional<json_value> parse_json(const std::string &s) { return json_reader(s).parse(); }
