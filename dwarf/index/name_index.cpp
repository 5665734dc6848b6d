#include "dwarf/index/name_index.h"
#include <algorithm>
#include <cstring>
#include <numeric>
#include <unordered_map>

#include "dwarf/raw/raw_line_header.h"
#include "util/offset_map.h"

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
  uint64_t file_count;        // last path components of the files units name
  uint64_t unit_entry_count;  // unit offsets, grouped by file
  uint64_t strings_size;
  uint64_t checksum;  // of every byte after the header
  char identity[192];
};
static_assert(sizeof(Header) % 8 == 0);
static_assert(sizeof(Header) == NameIndex::kHeaderSize);

// A key and where its values are: entries[first .. first + count).
struct NameRecord {
  uint32_t string_offset;
  uint32_t string_size;
  uint32_t first;
  uint32_t count;
};

}  // namespace

// A fast 64-bit checksum (multiply-rotate over words): it is there to catch
// a truncated or damaged file, not an adversary. Four independent lanes,
// so that a run checks its ~8 MB index in well under a millisecond rather
// than waiting on one chain of multiplies.
namespace {
uint64_t mix(uint64_t h, uint64_t w) {
  h ^= w * 0xff51afd7ed558ccdull;
  return ((h << 31) | (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
}
}  // namespace

ImageChecksum::ImageChecksum(uint64_t size)
    : lane_{0x9e3779b97f4a7c15ull ^ size, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull, 0x27d4eb2f165667c5ull} {}

void ImageChecksum::update(const uint8_t *p, size_t n) {
  // Whole 32-byte blocks go through the lanes; a partial one waits in pending_.
  while (n > 0) {
    if (pending_size_ > 0 || n < 32) {
      size_t take = std::min(n, 32 - pending_size_);
      std::memcpy(pending_ + pending_size_, p, take);
      pending_size_ += take;
      p += take;
      n -= take;
      if (pending_size_ < 32) return;
      block(pending_);
      pending_size_ = 0;
      continue;
    }
    size_t blocks = n / 32;
    for (size_t i = 0; i < blocks; ++i) block(p + 32 * i);
    p += blocks * 32;
    n -= blocks * 32;
  }
}

void ImageChecksum::block(const uint8_t *p) {
  for (int k = 0; k < 4; ++k) {
    uint64_t w;
    std::memcpy(&w, p + 8 * k, 8);
    lane_[k] = mix(lane_[k], w);
  }
}

uint64_t ImageChecksum::finish() const {
  uint64_t h = lane_[0] ^ mix(lane_[1], 1) ^ mix(lane_[2], 2) ^ mix(lane_[3], 3);
  for (size_t i = 0; i < pending_size_; ++i) h = (h ^ pending_[i]) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

uint64_t image_checksum(const uint8_t *p, size_t n) {
  ImageChecksum sum(n);
  sum.update(p, n);
  return sum.finish();
}

namespace {

// The image's parts, found from its header.
struct Parts {
  const NameRecord *names, *files;
  const uint64_t *entries, *unit_entries;
  const char *strings;
};
Parts parts_of(const uint8_t *data) {
  const Header &h = *reinterpret_cast<const Header *>(data);
  Parts p;
  p.names = reinterpret_cast<const NameRecord *>(data + sizeof(Header));
  p.files = p.names + h.name_count;
  p.entries = reinterpret_cast<const uint64_t *>(p.files + h.file_count);
  p.unit_entries = p.entries + h.entry_count;
  p.strings = reinterpret_cast<const char *>(p.unit_entries + h.unit_entry_count);
  return p;
}
const Header &header_of(const uint8_t *data) { return *reinterpret_cast<const Header *>(data); }

void fill_identity(Header &h, const IndexKey &key) {
  std::string_view id = std::string_view(key.identity).substr(0, sizeof h.identity - 1);
  h.identity_size = static_cast<uint32_t>(id.size());
  std::memcpy(h.identity, id.data(), id.size());
}

// (key, value) pairs grouped by key: keys sorted, each key's values in the
// order they came (the scan's order, which is offset order).
struct Grouped {
  std::vector<std::string_view> keys;
  std::vector<uint32_t> first, count;
  std::vector<uint64_t> values;
};
Grouped group(const std::vector<std::pair<std::string_view, uint64_t>> &pairs) {
  // Names the linker merged share their bytes, and an inlined copy's name
  // is its origin's: most pairs are told apart by where their key starts
  // (read to its NUL: one start, one string), and only the first pair of
  // each start has its bytes hashed (python3.11: 62,000 pairs, 9,700 keys).
  OffsetMap by_start(pairs.size() / 4);
  std::unordered_map<std::string_view, uint32_t> ids;
  std::vector<std::string_view> keys;
  std::vector<uint32_t> id_of(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    std::string_view key = pairs[i].first;
    uint64_t start = reinterpret_cast<uintptr_t>(key.data());
    std::optional<uint32_t> known = by_start.find(start);
    if (known && keys[*known].size() == key.size()) {
      id_of[i] = *known;
      continue;
    }
    auto [it, fresh] = ids.try_emplace(key, static_cast<uint32_t>(keys.size()));
    if (fresh) keys.push_back(key);
    id_of[i] = it->second;
    if (!known) by_start.insert(start, it->second);
  }
  std::vector<uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  std::vector<uint32_t> rank(keys.size());
  for (uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;

  Grouped g;
  g.count.assign(keys.size(), 0);
  for (uint32_t id : id_of) ++g.count[rank[id]];
  g.first.assign(keys.size(), 0);
  for (size_t r = 1; r < keys.size(); ++r) g.first[r] = g.first[r - 1] + g.count[r - 1];
  g.values.resize(pairs.size());
  std::vector<uint32_t> filled(g.first);
  for (size_t i = 0; i < pairs.size(); ++i) g.values[filled[rank[id_of[i]]]++] = pairs[i].second;
  for (uint32_t r = 0; r < order.size(); ++r) g.keys.push_back(keys[order[r]]);
  return g;
}

// Writes `g`'s records (their strings appended at `strings` + `string_offset`) and values.
void write_group(const Grouped &g, NameRecord *records, uint64_t *values, char *strings, uint32_t &string_offset) {
  for (size_t r = 0; r < g.keys.size(); ++r) {
    records[r] = {string_offset, static_cast<uint32_t>(g.keys[r].size()), g.first[r], g.count[r]};
    if (!g.keys[r].empty()) std::memcpy(strings + string_offset, g.keys[r].data(), g.keys[r].size());  // an empty key's data may be null
    string_offset += static_cast<uint32_t>(g.keys[r].size());
  }
  std::copy(g.values.begin(), g.values.end(), values);
}

size_t strings_size_of(const Grouped &g) {
  size_t n = 0;
  for (std::string_view k : g.keys) n += k.size();
  return n;
}

// The record for `key` in the sorted `records`, or null.
const NameRecord *find(const NameRecord *begin, size_t count, const char *strings, std::string_view key) {
  const NameRecord *end = begin + count;
  const NameRecord *it = std::lower_bound(begin, end, key, [&](const NameRecord &r, std::string_view k) {
    return std::string_view(strings + r.string_offset, r.string_size) < k;
  });
  if (it == end || std::string_view(strings + it->string_offset, it->string_size) != key) return nullptr;
  return it;
}

// Whether every record of a table points inside the strings and its values.
// Whether the records point inside their tables, and their values follow
// one another as build() lays them out (each record's right after the
// previous one's, none empty, all of them used): a record whose count or
// start was changed would hide values or lend them to its neighbour.
bool records_tile(const NameRecord *records, uint64_t count, uint64_t strings_size, uint64_t values) {
  uint64_t next = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (uint64_t{records[i].string_offset} + records[i].string_size > strings_size || records[i].first != next ||
        records[i].count == 0)
      return false;
    next += records[i].count;
  }
  return next == values;
}

}  // namespace

NameIndex NameIndex::build(const ScanResult &scan, const IndexKey &key) {
  std::vector<std::pair<std::string_view, uint64_t>> pairs;
  pairs.reserve(scan.functions.size());
  for (const ScannedFunction &f : scan.functions) pairs.emplace_back(f.name, f.die_offset | (f.inlined ? kInlinedBit : 0));
  Grouped names = group(pairs);
  pairs.clear();
  // A unit whose file names could not be read is filed under "", which every query includes.
  for (const ScannedUnit &u : scan.units) {
    if (!u.files_known) pairs.emplace_back(std::string_view(), u.offset);
    for (std::string_view f : u.files) pairs.emplace_back(f, u.offset);
  }
  Grouped files = group(pairs);

  size_t strings_size = strings_size_of(names) + strings_size_of(files);
  size_t size = sizeof(Header) + (names.keys.size() + files.keys.size()) * sizeof(NameRecord) +
                (names.values.size() + files.values.size()) * 8 + strings_size;
  auto buffer = std::shared_ptr<uint8_t[]>(new uint8_t[size]());
  uint8_t *data = buffer.get();

  Header &h = *reinterpret_cast<Header *>(data);
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  fill_identity(h, key);
  h.target_size = key.target_size;
  h.name_count = names.keys.size();
  h.entry_count = names.values.size();
  h.file_count = files.keys.size();
  h.unit_entry_count = files.values.size();
  h.strings_size = strings_size;

  Parts p = parts_of(data);
  char *strings = const_cast<char *>(p.strings);
  uint32_t string_offset = 0;
  write_group(names, const_cast<NameRecord *>(p.names), const_cast<uint64_t *>(p.entries), strings, string_offset);
  write_group(files, const_cast<NameRecord *>(p.files), const_cast<uint64_t *>(p.unit_entries), strings, string_offset);

  h.checksum = image_checksum(data + sizeof(Header), size - sizeof(Header));
  return NameIndex(std::move(buffer), data, size);
}

Result<NameIndex> NameIndex::adopt(std::shared_ptr<const void> owner, const uint8_t *data, size_t size,
                                   const IndexKey &key, std::optional<uint64_t> checksum_of_rest) {
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
  if (h.name_count > size || h.entry_count > size || h.file_count > size || h.unit_entry_count > size ||
      h.strings_size > size ||
      sizeof(Header) + (h.name_count + h.file_count) * sizeof(NameRecord) + (h.entry_count + h.unit_entry_count) * 8 +
              h.strings_size != size)
    return Error("truncated or padded (its tables do not add up to its size)");
  uint64_t sum = checksum_of_rest ? *checksum_of_rest : image_checksum(data + sizeof(Header), size - sizeof(Header));
  if (sum != h.checksum) return Error("damaged (checksum mismatch)");
  // The records are checked once here so that lookups can trust them.
  Parts p = parts_of(data);
  if (!records_tile(p.names, h.name_count, h.strings_size, h.entry_count) ||
      !records_tile(p.files, h.file_count, h.strings_size, h.unit_entry_count))
    return Error("damaged (a name record points outside its tables, or its values overlap another's)");
  return NameIndex(std::move(owner), data, size);
}

std::vector<IndexedDie> NameIndex::lookup(std::string_view name) const { return lookup_range(name, false); }

std::vector<IndexedDie> NameIndex::lookup_prefix(std::string_view prefix) const { return lookup_range(prefix, true); }

std::vector<IndexedDie> NameIndex::lookup_range(std::string_view key, bool prefix) const {
  Parts p = parts_of(data_);
  auto name_of = [&](const NameRecord &r) { return std::string_view(p.strings + r.string_offset, r.string_size); };
  const NameRecord *begin = p.names, *end = begin + name_count();
  const NameRecord *it = std::lower_bound(begin, end, key, [&](const NameRecord &r, std::string_view k) {
    return name_of(r) < k;
  });
  std::vector<IndexedDie> found;
  // The names are sorted: those that start with `key` follow one another.
  for (; it != end; ++it) {
    std::string_view name = name_of(*it);
    if (prefix ? !name.starts_with(key) : name != key) break;
    for (uint32_t i = 0; i < it->count; ++i) {
      uint64_t e = p.entries[it->first + i];
      found.push_back({e & ~kInlinedBit, (e & kInlinedBit) != 0});
    }
    if (!prefix) break;
  }
  return found;
}

std::optional<std::vector<uint64_t>> NameIndex::units_naming(std::string_view file) const {
  std::string_view last = last_path_component(file);
  if (last.empty()) return std::nullopt;
  Parts p = parts_of(data_);
  std::vector<uint64_t> units;
  for (std::string_view key : {last, std::string_view()}) {
    const NameRecord *r = find(p.files, header_of(data_).file_count, p.strings, key);
    if (r) units.insert(units.end(), p.unit_entries + r->first, p.unit_entries + r->first + r->count);
  }
  std::sort(units.begin(), units.end());
  return units;
}

size_t NameIndex::name_count() const { return header_of(data_).name_count; }
size_t NameIndex::entry_count() const { return header_of(data_).entry_count; }

}  // namespace kpp::dwarf
