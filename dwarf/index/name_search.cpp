#include "dwarf/index/name_search.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>

#include <unistd.h>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "dwarf/raw/raw_abbrev.h"
#include "util/unique_fd.h"

namespace kpp::dwarf {

namespace {

constexpr uint8_t kFormRefAddr = 0x10;
// More offsets than this for one name (a short name is the tail of many
// strings) and the search is no longer cheaper than reading the DIEs.
constexpr size_t kMaxNeedles = 8;
constexpr uint8_t kAtAbstractOrigin = 0x31, kAtSpecification = 0x47;

#if defined(__SSE2__)
// search()'s filter 32 positions at a time, for the processors that have
// AVX2 (most x86-64 ones); returns where it stopped (less than 32 positions,
// or the needles' length, before the end).
template <class Check>
__attribute__((target("avx2"))) size_t search_avx2(std::string_view haystack, size_t at, size_t end, size_t longest,
                                                   const std::vector<std::string_view> &needles, Check &check) {
  const char *h = haystack.data();
  __m256i first[kMaxNeedles], second[kMaxNeedles], last[kMaxNeedles];
  for (size_t k = 0; k < needles.size(); ++k) {
    first[k] = _mm256_set1_epi8(needles[k][0]);
    second[k] = _mm256_set1_epi8(needles[k][1]);
    last[k] = _mm256_set1_epi8(needles[k].back());
  }
  for (; at + 32 <= end && at + 32 + longest - 1 <= haystack.size(); at += 32) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(h + at));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(h + at + 1));
    unsigned mask = 0;
    for (size_t k = 0; k < needles.size(); ++k) {
      __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(h + at + needles[k].size() - 1));
      __m256i both = _mm256_and_si256(_mm256_cmpeq_epi8(a, first[k]), _mm256_cmpeq_epi8(b, second[k]));
      mask |= static_cast<unsigned>(_mm256_movemask_epi8(_mm256_and_si256(both, _mm256_cmpeq_epi8(c, last[k]))));
    }
    while (mask) {
      check(at + static_cast<size_t>(__builtin_ctz(mask)));
      mask &= mask - 1;
    }
  }
  return at;
}
#endif

// Calls `hit` with each position in [begin, end) of `haystack` where one
// of `needles` starts (needles may run past `end`, not past the haystack).
// Sixteen positions at a time: a needle can start only where its first two
// bytes and its last are all in place, which rules out nearly every position
// before any comparison (two bytes alone would not: the last byte of a small
// offset, or of a name with its NUL, is 0, as DWARF's bytes often are).
template <class Hit>
void search(std::string_view haystack, size_t begin, size_t end, const std::vector<std::string_view> &needles, Hit &&hit) {
  const char *h = haystack.data();
  size_t longest = 0;
  for (std::string_view n : needles) longest = std::max(longest, n.size());
  auto check = [&](size_t at) {
    for (size_t k = 0; k < needles.size(); ++k)
      if (at + needles[k].size() <= haystack.size() && std::memcmp(h + at, needles[k].data(), needles[k].size()) == 0)
        hit(at, k);
  };
  size_t at = begin;
#if defined(__SSE2__)
  bool all_two_bytes = std::all_of(needles.begin(), needles.end(), [](std::string_view n) { return n.size() >= 2; });
  if (needles.size() <= kMaxNeedles && all_two_bytes && __builtin_cpu_supports("avx2"))
    at = search_avx2(haystack, at, end, longest, needles, check);
  if (needles.size() <= kMaxNeedles && all_two_bytes) {
    __m128i first[kMaxNeedles], second[kMaxNeedles], last[kMaxNeedles];
    for (size_t k = 0; k < needles.size(); ++k) {
      first[k] = _mm_set1_epi8(needles[k][0]);
      second[k] = _mm_set1_epi8(needles[k][1]);
      last[k] = _mm_set1_epi8(needles[k].back());
    }
    for (; at + 16 <= end && at + 16 + longest - 1 <= haystack.size(); at += 16) {
      __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(h + at));
      __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(h + at + 1));
      unsigned mask = 0;
      for (size_t k = 0; k < needles.size(); ++k) {
        __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i *>(h + at + needles[k].size() - 1));
        __m128i both = _mm_and_si128(_mm_cmpeq_epi8(a, first[k]), _mm_cmpeq_epi8(b, second[k]));
        mask |= static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(both, _mm_cmpeq_epi8(c, last[k]))));
      }
      while (mask) {
        check(at + static_cast<size_t>(__builtin_ctz(mask)));
        mask &= mask - 1;
      }
    }
  }
#endif
  for (; at < end; ++at) check(at);
}

// Whether an attribute of an abbreviation is one a byte search cannot
// follow: an inlined copy's origin or a definition's declaration as a
// DW_FORM_ref_addr (a reference into another unit, which LTO makes), or as
// DW_FORM_indirect (which could be one); or DW_AT_GNU_dwo_name, a DWARF 4
// skeleton unit, whose DIEs are in a .dwo file.
bool unsearchable(uint16_t attribute, uint16_t form) {
  bool reference = attribute == kAtAbstractOrigin || attribute == kAtSpecification;
  return (reference && (form == raw::FORM_ref_addr || form == raw::FORM_indirect)) || attribute == raw::AT_GNU_dwo_name;
}

// Whether some abbreviation a unit of `units` uses has such an attribute.
// First the (attribute, form) byte pairs are looked for in one pass; a pair
// is found in files that have none too (libstdc++'s debug build has one,
// the 6.1 vmlinux a hundred, in other bytes), so a hit is confirmed by
// reading the table that holds it, from where a unit's header says it
// starts (reading all of a vmlinux's 5 MB took ~10% of a --no-cache -D).
// A table that cannot be read counts as one that has.
bool has_unsearchable_attributes(const DwarfBytes &bytes, const std::vector<UnitSpan> &units) {
  const char origin[2] = {static_cast<char>(kAtAbstractOrigin), static_cast<char>(kFormRefAddr)};
  const char declaration[2] = {static_cast<char>(kAtSpecification), static_cast<char>(kFormRefAddr)};
  const char origin_indirect[2] = {static_cast<char>(kAtAbstractOrigin), static_cast<char>(raw::FORM_indirect)};
  const char declaration_indirect[2] = {static_cast<char>(kAtSpecification), static_cast<char>(raw::FORM_indirect)};
  std::vector<std::string_view> needles{std::string_view(origin, 2), std::string_view(declaration, 2),
                                        std::string_view(origin_indirect, 2), std::string_view(declaration_indirect, 2),
                                        "\xb0\x42"};
  std::string_view abbrev = bytes.abbrev;
  std::vector<uint64_t> hits;
  search(abbrev, 0, abbrev.size() > 0 ? abbrev.size() - 1 : 0, needles, [&](size_t at, size_t) { hits.push_back(at); });
  if (hits.empty()) return false;
  std::vector<uint64_t> starts;  // of the tables the units use
  for (const UnitSpan &u : units) starts.push_back(u.abbrev_offset);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::vector<bool> read(starts.size(), false);
  for (uint64_t hit : hits) {
    // The table that holds the hit starts at the last start at or before it
    // (one that ends before the hit does not hold it: no unit reads those bytes).
    auto after = std::upper_bound(starts.begin(), starts.end(), hit);
    if (after == starts.begin()) continue;
    size_t t = static_cast<size_t>(after - starts.begin()) - 1;
    if (read[t]) continue;
    read[t] = true;
    if (raw::any_attribute_in_table(abbrev, starts[t], unsearchable)) return true;
  }
  return false;
}

}  // namespace

std::vector<uint64_t> find_all(std::string_view haystack, std::string_view needle) {
  std::vector<uint64_t> found;
  if (needle.empty() || needle.size() > haystack.size()) return found;
  search(haystack, 0, haystack.size() - needle.size() + 1, {needle}, [&](size_t at, size_t) { found.push_back(at); });
  return found;
}

namespace {

// find_all of each of `needles` (at most kMaxNeedles, none empty), in one pass.
std::vector<std::vector<uint64_t>> find_each(std::string_view haystack, const std::vector<std::string_view> &needles) {
  std::vector<std::vector<uint64_t>> found(needles.size());
  size_t shortest = haystack.size() + 1;
  for (std::string_view n : needles) shortest = std::min(shortest, n.size());
  if (needles.empty() || shortest > haystack.size()) return found;
  // search() checks each needle's length against the haystack's end.
  search(haystack, 0, haystack.size() - shortest + 1, needles, [&](size_t at, size_t k) { found[k].push_back(at); });
  return found;
}

std::string little_endian_4(uint64_t value) {
  std::string bytes(4, '\0');
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  return bytes;
}

// Whether the DWARF of `units` names things only in ways a byte search sees.
bool searchable(const DwarfBytes &bytes, const std::vector<UnitSpan> &units) {
  return bytes.str_offsets.empty() && !has_unsearchable_attributes(bytes, units);
}

}  // namespace

std::optional<std::vector<uint64_t>> find_in_section(std::string_view section, const std::vector<std::string> &needles,
                                                     unsigned threads, const MappedFile &file,
                                                     const std::function<void(std::string_view)> &done_with) {
  if (needles.empty()) return std::vector<uint64_t>{};
  constexpr size_t kChunk = 1 << 20;
  std::vector<std::string_view> views(needles.begin(), needles.end());
  size_t longest = 0;
  for (std::string_view n : views) longest = std::max(longest, n.size());
  bool from_file = file.fd >= 0 && section.data() >= file.mapping.data() &&
                   section.data() + section.size() <= file.mapping.data() + file.mapping.size();
  uint64_t file_offset = from_file ? static_cast<uint64_t>(section.data() - file.mapping.data()) : 0;
  size_t chunks = (section.size() + kChunk - 1) / kChunk;
  std::vector<std::vector<uint64_t>> hits(chunks);
  std::atomic<size_t> next{0};
  std::atomic<bool> unreadable{false};
  // The needles in groups the 16-byte search takes at once.
  std::vector<std::vector<std::string_view>> groups;
  for (size_t k = 0; k < views.size(); k += kMaxNeedles)
    groups.emplace_back(views.begin() + k, views.begin() + std::min(views.size(), k + kMaxNeedles));
  auto work = [&] {
    // Kept by the thread: a caller that searches several times (the symbol
    // table's strings) maps its buffer once. Not zeroed: pread fills what is
    // read (a vector's resize wrote 1 MiB of zeros per thread and search,
    // ~3 M instructions of a --no-cache lookup in an 11 MB binary).
    thread_local std::unique_ptr<char[]> buffer;
    thread_local size_t buffer_size = 0;
    if (from_file && buffer_size < kChunk + longest) {
      buffer = std::make_unique_for_overwrite<char[]>(kChunk + longest);
      buffer_size = kChunk + longest;
    }
    for (size_t i; (i = next.fetch_add(1)) < chunks;) {
      size_t begin = i * kChunk, end = std::min(section.size(), begin + kChunk);
      size_t with_overlap = std::min(section.size(), end + longest - 1) - begin;
      std::string_view window = section.substr(begin, with_overlap);
      if (from_file) {
        if (!pread_fully(file.fd, buffer.get(), with_overlap, file_offset + begin)) {
          unreadable = true;
          return;
        }
        window = std::string_view(buffer.get(), with_overlap);
      } else if (done_with) {
        done_with(section.substr(begin, end - begin));
      }
      for (const auto &group : groups)
        search(window, 0, end - begin, group, [&](size_t at, size_t) { hits[i].push_back(begin + at); });
      if (groups.size() > 1) std::sort(hits[i].begin(), hits[i].end());
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max<size_t>(1, std::min<size_t>(threads, chunks)); ++t) pool.emplace_back(work);
  work();
  for (std::thread &t : pool) t.join();
  if (unreadable) return std::nullopt;
  std::vector<uint64_t> all;
  for (const auto &chunk : hits) all.insert(all.end(), chunk.begin(), chunk.end());
  return all;
}


std::optional<std::vector<uint64_t>> units_that_may_name(const DwarfBytes &bytes, const std::vector<UnitSpan> &units,
                                                         const std::vector<NameSpelling> &spellings, unsigned threads,
                                                         const MappedFile &file,
                                                         const std::function<void(std::string_view)> &done_with) {
  if (spellings.empty() || spellings.size() > kMaxNeedles || !searchable(bytes, units)) return std::nullopt;
  for (const UnitSpan &u : units)
    if (u.offset_size != 4 || u.skeleton) return std::nullopt;

  // Each name as DWARF stores it: NUL-terminated, unless any name starting with it will do.
  std::vector<std::string> wanted;
  for (const NameSpelling &s : spellings) {
    if (s.name.empty()) return std::nullopt;
    wanted.push_back(s.prefix ? s.name : s.name + '\0');
  }
  // The bytes themselves, and each offset at which .debug_str holds one (a
  // linker may have merged it into the tail of a longer string: any
  // position counts), found in one pass over .debug_str.
  std::vector<std::string> needles = wanted;
  std::vector<std::vector<uint64_t>> offsets = find_each(bytes.str, {wanted.begin(), wanted.end()});
  for (const std::vector<uint64_t> &of_one : offsets) {
    if (of_one.size() + 1 > kMaxNeedles) return std::nullopt;
    for (uint64_t offset : of_one) needles.push_back(little_endian_4(offset));
  }

  auto hits = find_in_section(bytes.info, needles, threads, file, done_with);
  if (!hits) return std::nullopt;
  std::vector<uint64_t> found;
  for (uint64_t at : *hits) {
    auto unit = std::upper_bound(units.begin(), units.end(), at, [](uint64_t a, const UnitSpan &u) { return a < u.offset; });
    if (unit == units.begin()) continue;
    --unit;
    if (at >= unit->end || (!found.empty() && found.back() == unit->offset)) continue;
    found.push_back(unit->offset);
  }
  return found;
}

std::optional<std::vector<uint64_t>> line_positions_naming(const DwarfBytes &bytes, const std::vector<UnitSpan> &units,
                                                           std::string_view component, unsigned threads,
                                                           const MappedFile &file) {
  if (component.empty() || !searchable(bytes, units)) return std::nullopt;
  std::string wanted = std::string(component) + '\0';
  // A path whose last component it is: the string itself, or one that ends
  // with "/" and it (its start is what a header refers to), in either
  // string section a DWARF 5 header may use; a DWARF 4 header holds the
  // bytes themselves. Offsets only where a DWARF 5 header may hold them:
  // 4 bytes of a DWARF 4 file's line programs match one by chance (how
  // often depends on where the file was built), and each match costs a
  // unit read for nothing.
  std::vector<std::string> needles{wanted};
  const bool dwarf5 = std::any_of(units.begin(), units.end(), [](const UnitSpan &u) { return u.version >= 5; });
  for (std::string_view strings : {bytes.line_str, bytes.str}) {
    for (uint64_t at : dwarf5 ? find_all(strings, wanted) : std::vector<uint64_t>{}) {
      needles.push_back(little_endian_4(at));
      uint64_t start = at;
      while (start > 0 && strings[start - 1] != '\0') --start;
      if (start != at && strings[at - 1] == '/') needles.push_back(little_endian_4(start));
      if (needles.size() > kMaxNeedles) return std::nullopt;
    }
  }
  return find_in_section(bytes.line, needles, threads, file, {});
}

}  // namespace kpp::dwarf
