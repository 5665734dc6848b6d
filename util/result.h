// Result<T>: a value or an Error, returned upward and printed once at the top.
//
// Libraries never print and never exit; they return an Error that says what
// failed, where (a span in the text the user typed, when there is one) and,
// when we know it, what to try next. main() formats it.
#pragma once

#include <cassert>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace kpp {

// Columns [begin, end) of Error::source that the message is about.
struct Span {
  size_t begin = 0;
  size_t end = 0;
  bool operator==(const Span &) const = default;
};

struct Error {
  std::string message;
  std::string hint;              // one line: what the user can try; may be empty
  std::string source;            // the text `span` points into (a probe spec); may be empty
  std::optional<Span> span;

  Error() = default;
  explicit Error(std::string msg, std::string hint_text = {})
      : message(std::move(msg)), hint(std::move(hint_text)) {}

  // The same error, pointing at columns of `text`.
  Error at(std::string text, Span where) && {
    source = std::move(text);
    span = where;
    return std::move(*this);
  }
  // Prefixes the message with context ("walk:5: " + message).
  Error context(const std::string &prefix) && {
    message = prefix + message;
    return std::move(*this);
  }
};

struct Ok {};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T &value() & { assert(has_value()); return std::get<0>(v_); }
  const T &value() const & { assert(has_value()); return std::get<0>(v_); }
  T &&value() && { assert(has_value()); return std::get<0>(std::move(v_)); }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  Error &error() & { assert(!has_value()); return std::get<1>(v_); }
  const Error &error() const & { assert(!has_value()); return std::get<1>(v_); }
  Error &&error() && { assert(!has_value()); return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

using Status = Result<Ok>;

}  // namespace kpp
