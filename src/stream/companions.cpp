#include "src/stream/companions.h"

#include <map>

#include "util/companion_mark.h"

namespace kpp {

namespace {

bool ends_with(const std::string &s, std::string_view suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Unknown (empty) on either side agrees: a trace.dat's formats carry no sites.
bool agree(const std::string &a, const std::string &b) { return a.empty() || b.empty() || a == b; }

}  // namespace

Companions Companions::recognise(const std::vector<ProbeShape> &shapes) {
  // An event with several probe points appears once per point.
  std::multimap<std::string, const ProbeShape *> by_name;
  for (const ProbeShape &s : shapes) by_name.emplace(s.system + ":" + s.event, &s);
  auto each = [&](const std::string &name, auto &&fn) {
    auto [lo, hi] = by_name.equal_range(name);
    for (auto it = lo; it != hi; ++it)
      if (fn(*it->second)) return true;
    return false;
  };
  Companions out;
  for (const ProbeShape &entry : shapes) {
    if (entry.is_return || entry.first_field != companion_entry_mark ||
        !ends_with(entry.event, companion_entry_suffix))
      continue;
    std::string base = entry.system + ":" + entry.event.substr(0, entry.event.size() - companion_entry_suffix.size());
    std::string exit_name = base + std::string(companion_exit_suffix);
    bool has_exit = each(exit_name, [&](const ProbeShape &x) {
      return x.is_return && x.first_field == companion_exit_mark && agree(x.site, entry.site) &&
             agree(x.binary, entry.binary);
    });
    bool has_owner = each(base, [&](const ProbeShape &o) { return agree(o.binary, entry.binary); });
    if (has_exit && has_owner) out.add(base, entry.system + ":" + entry.event, exit_name);
  }
  return out;
}

void Companions::add(const std::string &owner, const std::string &entry, const std::string &exit) {
  if (roles_.count(entry)) return;
  roles_[entry] = {CompanionRole::Entry, owner};
  roles_[exit] = {CompanionRole::Exit, owner};
  by_owner_[owner] = {entry, exit};
}

CompanionRole Companions::role_of(const std::string &qualified) const {
  auto it = roles_.find(qualified);
  return it == roles_.end() ? CompanionRole::None : it->second.role;
}

const std::string &Companions::owner_of(const std::string &qualified) const {
  auto it = roles_.find(qualified);
  return it == roles_.end() ? none_ : it->second.owner;
}

std::vector<std::string> Companions::of(const std::string &owner) const {
  auto it = by_owner_.find(owner);
  return it == by_owner_.end() ? std::vector<std::string>{} : it->second;
}

}  // namespace kpp
