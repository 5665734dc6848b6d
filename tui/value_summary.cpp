#include "tui/value_summary.h"

#include <algorithm>

#include "event/text_format.h"
#include "util/strings.h"

namespace kpp::tui {

namespace {
// A value as the Args pane shows it: what the event log shows after "name=".
std::string format_value(const FieldValue &v) {
  Event e;
  e.fields.push_back({"", v});
  std::string out;
  append_fields_text(out, e);
  if (!out.empty() && out[0] == '=') out.erase(0, 1);
  return out;
}

template <class Map, class Key>
void count(Map &map, Key &&key, uint64_t &other) {
  auto it = map.find(key);
  if (it != map.end()) ++it->second;
  else if (map.size() < ValueSummary::kMaxDistinct) map.emplace(std::forward<Key>(key), 1);
  else ++other;
}
}  // namespace

void ValueSummary::add(const FieldValue &v) {
  kind_ = v.optional ? FieldKind::String : v.kind;  // an optional value is counted by its text (Some(5), None)
  ++samples_;
  switch (kind_) {
    case FieldKind::Signed: {
      count(numbers_, static_cast<uint64_t>(v.i), other_);
      if (v.i < 0) ++negative_;
      hist_.add(v.i < 0 ? 0 - static_cast<uint64_t>(v.i) : static_cast<uint64_t>(v.i));
      break;
    }
    case FieldKind::Unsigned:
    case FieldKind::Hex:
      count(numbers_, v.u, other_);
      hist_.add(v.u);
      break;
    case FieldKind::String:
    case FieldKind::Bytes:
    case FieldKind::Array:
    case FieldKind::Float:
    case FieldKind::Bool:
    case FieldKind::Char:
    case FieldKind::Enum:
      count(texts_, format_value(v), other_);
      break;
  }
}

ValueSummary::View ValueSummary::view() const {
  bool integer = kind_ == FieldKind::Signed || kind_ == FieldKind::Unsigned;
  if (integer && (numbers_.size() > kTopValuesLimit || other_ > 0)) return View::Histogram;
  return View::TopValues;
}

std::vector<std::pair<std::string, uint64_t>> ValueSummary::top(size_t n) const {
  std::vector<std::pair<std::string, uint64_t>> out;
  if (!texts_.empty()) {
    std::vector<std::pair<std::string, uint64_t>> all(texts_.begin(), texts_.end());
    std::sort(all.begin(), all.end(), [](const auto &a, const auto &b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    all.resize(std::min(n, all.size()));
    return all;
  }
  std::vector<std::pair<uint64_t, uint64_t>> all(numbers_.begin(), numbers_.end());
  bool is_signed = kind_ == FieldKind::Signed;
  std::sort(all.begin(), all.end(), [is_signed](const auto &a, const auto &b) {
    if (a.second != b.second) return a.second > b.second;
    return is_signed ? static_cast<int64_t>(a.first) < static_cast<int64_t>(b.first) : a.first < b.first;
  });
  for (size_t i = 0; i < all.size() && i < n; ++i) {
    std::string text = kind_ == FieldKind::Hex ? hex(all[i].first)
                       : is_signed            ? std::to_string(static_cast<int64_t>(all[i].first))
                                              : std::to_string(all[i].first);
    out.emplace_back(std::move(text), all[i].second);
  }
  return out;
}

}  // namespace kpp::tui
