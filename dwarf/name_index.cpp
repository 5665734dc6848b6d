#include "dwarf/name_index.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <unordered_map>

namespace kpp::dwarf {

namespace {

constexpr char kMagic[8] = {'K', 'P', 'P', 'N', 'A', 'M', 'E', 'S'};
constexpr uint64_t kInlinedBit = uint64_t{1} << 63;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t identity_size;
  uint64_t target_size;
  uint64_t name_count;
  uint64_t entry_count;
  uint64_t strings_size;
  uint64_t checksum;  // of every byte after the header
  char identity[192];
};
static_assert(sizeof(Header) % 8 == 0);

struct NameRecord {
  uint32_t string_offset;
  uint32_t string_size;
  uint32_t first;  // index of the first entry
  uint32_t count;
};

// A fast 64-bit checksum (multiply-rotate over words): it is there to catch
// a truncated or damaged file, not an adversary.
uint64_t checksum(const uint8_t *p, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  size_t words = n / 8;
  for (size_t i = 0; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);
    h ^= w * 0xff51afd7ed558ccdull;
    h = ((h << 31) | (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
  }
  for (size_t i = words * 8; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

const Header &header_of(const uint8_t *data) { return *reinterpret_cast<const Header *>(data); }
const NameRecord *names_of(const uint8_t *data) { return reinterpret_cast<const NameRecord *>(data + sizeof(Header)); }
const uint64_t *entries_of(const uint8_t *data) {
  return reinterpret_cast<const uint64_t *>(data + sizeof(Header) + header_of(data).name_count * sizeof(NameRecord));
}
const char *strings_of(const uint8_t *data) {
  return reinterpret_cast<const char *>(entries_of(data) + header_of(data).entry_count);
}
std::string_view name_at(const uint8_t *data, const NameRecord &r) {
  return {strings_of(data) + r.string_offset, r.string_size};
}

void fill_identity(Header &h, const IndexKey &key) {
  std::string_view id = std::string_view(key.identity).substr(0, sizeof h.identity - 1);
  h.identity_size = static_cast<uint32_t>(id.size());
  std::memcpy(h.identity, id.data(), id.size());
}

}  // namespace

NameIndex NameIndex::build(const std::vector<ScannedFunction> &functions, const IndexKey &key) {
  // Names to ids, then entries bucketed by name in sorted-name order.
  std::unordered_map<std::string_view, uint32_t> ids;
  std::vector<std::string_view> names;
  std::vector<uint32_t> id_of(functions.size());
  for (size_t i = 0; i < functions.size(); ++i) {
    auto [it, fresh] = ids.try_emplace(functions[i].name, static_cast<uint32_t>(names.size()));
    if (fresh) names.push_back(functions[i].name);
    id_of[i] = it->second;
  }
  std::vector<uint32_t> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return names[a] < names[b]; });
  std::vector<uint32_t> rank(names.size());
  for (uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;

  std::vector<uint32_t> count(names.size(), 0);
  for (uint32_t id : id_of) ++count[rank[id]];
  std::vector<uint32_t> first(names.size(), 0);
  for (size_t r = 1; r < names.size(); ++r) first[r] = first[r - 1] + count[r - 1];

  size_t strings_size = 0;
  for (std::string_view n : names) strings_size += n.size();
  size_t size = sizeof(Header) + names.size() * sizeof(NameRecord) + functions.size() * 8 + strings_size;
  auto buffer = std::shared_ptr<uint8_t[]>(new uint8_t[size]());
  uint8_t *data = buffer.get();

  Header &h = *reinterpret_cast<Header *>(data);
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  fill_identity(h, key);
  h.target_size = key.target_size;
  h.name_count = names.size();
  h.entry_count = functions.size();
  h.strings_size = strings_size;

  auto *records = reinterpret_cast<NameRecord *>(data + sizeof(Header));
  uint32_t string_offset = 0;
  for (uint32_t r = 0; r < order.size(); ++r) {
    std::string_view n = names[order[r]];
    records[r] = {string_offset, static_cast<uint32_t>(n.size()), first[r], count[r]};
    string_offset += static_cast<uint32_t>(n.size());
  }
  auto *entries = const_cast<uint64_t *>(entries_of(data));
  std::vector<uint32_t> filled(first);
  for (size_t i = 0; i < functions.size(); ++i)  // scan order is offset order, so each bucket is sorted
    entries[filled[rank[id_of[i]]]++] = functions[i].die_offset | (functions[i].inlined ? kInlinedBit : 0);
  char *strings = const_cast<char *>(strings_of(data));
  for (uint32_t r = 0; r < order.size(); ++r) std::memcpy(strings + records[r].string_offset, names[order[r]].data(), records[r].string_size);

  h.checksum = checksum(data + sizeof(Header), size - sizeof(Header));
  return NameIndex(std::move(buffer), data, size);
}

Result<NameIndex> NameIndex::adopt(std::shared_ptr<const void> owner, const uint8_t *data, size_t size,
                                   const IndexKey &key) {
  if (size < sizeof(Header)) return Error("shorter than its header");
  const Header &h = header_of(data);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return Error("not an index file (bad magic)");
  if (h.version != kVersion) return Error("index version " + std::to_string(h.version) + ", expected " + std::to_string(kVersion));
  Header expected{};
  fill_identity(expected, key);
  if (h.identity_size != expected.identity_size || std::memcmp(h.identity, expected.identity, h.identity_size) != 0 ||
      h.target_size != key.target_size)
    return Error("made for another binary (stale)");
  // Each count is bounded by the file size before any product is formed.
  if (h.name_count > size || h.entry_count > size || h.strings_size > size ||
      sizeof(Header) + h.name_count * sizeof(NameRecord) + h.entry_count * 8 + h.strings_size != size)
    return Error("truncated or padded (its tables do not add up to its size)");
  if (checksum(data + sizeof(Header), size - sizeof(Header)) != h.checksum) return Error("damaged (checksum mismatch)");
  // The records are checked once here so that lookups can trust them.
  const NameRecord *records = names_of(data);
  for (uint64_t i = 0; i < h.name_count; ++i) {
    const NameRecord &r = records[i];
    if (uint64_t{r.string_offset} + r.string_size > h.strings_size || uint64_t{r.first} + r.count > h.entry_count)
      return Error("damaged (a name record points outside its tables)");
  }
  return NameIndex(std::move(owner), data, size);
}

std::vector<IndexedDie> NameIndex::lookup(std::string_view name) const { return lookup_range(name, false); }

std::vector<IndexedDie> NameIndex::lookup_prefix(std::string_view prefix) const { return lookup_range(prefix, true); }

std::vector<IndexedDie> NameIndex::lookup_range(std::string_view key, bool prefix) const {
  const NameRecord *begin = names_of(data_), *end = begin + name_count();
  const NameRecord *it = std::lower_bound(begin, end, key, [&](const NameRecord &r, std::string_view n) {
    return name_at(data_, r) < n;
  });
  std::vector<IndexedDie> found;
  const uint64_t *entries = entries_of(data_);
  // The names are sorted: those that start with `key` follow one another.
  for (; it != end; ++it) {
    std::string_view name = name_at(data_, *it);
    if (prefix ? !name.starts_with(key) : name != key) break;
    for (uint32_t i = 0; i < it->count; ++i) {
      uint64_t e = entries[it->first + i];
      found.push_back({e & ~kInlinedBit, (e & kInlinedBit) != 0});
    }
    if (!prefix) break;
  }
  return found;
}

size_t NameIndex::name_count() const { return header_of(data_).name_count; }
size_t NameIndex::entry_count() const { return header_of(data_).entry_count; }

}  // namespace kpp::dwarf
