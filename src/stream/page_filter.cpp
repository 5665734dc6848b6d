#include "src/stream/page_filter.h"

#include <cstring>
#include <set>

namespace kpp {

namespace {

constexpr uint32_t kPadding = 29, kTimeExtend = 30, kTimeStamp = 31;
constexpr uint64_t kCommitLength = (1u << 27) - 1;  // the rest of the commit word: flags (missed events)

uint32_t read32(std::span<const uint8_t> page, size_t at) {
  uint32_t v;
  std::memcpy(&v, page.data() + at, sizeof v);
  return v;
}

// The size of the event whose header is at `at`, 0 when it cannot be one.
size_t event_size(std::span<const uint8_t> page, size_t at, size_t end) {
  if (at + 4 > end) return 0;
  uint32_t type_len = read32(page, at) & 0x1f;
  if (type_len >= 1 && type_len <= 28) return 4 + type_len * 4;
  if (type_len == kTimeExtend || type_len == kTimeStamp) return 8;
  if (at + 8 > end) return 0;
  uint32_t length = read32(page, at + 4);
  if (type_len == kPadding) return 4 + static_cast<size_t>(length);
  if (length < 4) return 0;
  return 8 + ((static_cast<size_t>(length) - 4 + 3) & ~size_t{3});
}

}  // namespace

bool pad_out_events(std::span<uint8_t> page, int data_start, const std::vector<uint32_t> &offsets) {
  if (offsets.empty()) return true;
  // The commit word follows the u64 time stamp: 8 bytes on 64-bit kernels, 4 on 32-bit.
  size_t commit_size = static_cast<size_t>(data_start) - 8;
  if ((commit_size != 4 && commit_size != 8) || static_cast<size_t>(data_start) > page.size()) return false;
  uint64_t commit = 0;
  std::memcpy(&commit, page.data() + 8, commit_size);
  size_t end = static_cast<size_t>(data_start) + static_cast<size_t>(commit & kCommitLength);
  if (end > page.size()) return false;
  std::set<uint32_t> wanted(offsets.begin(), offsets.end());
  std::vector<std::pair<size_t, size_t>> found;  // offset, size
  for (size_t at = static_cast<size_t>(data_start); at < end && found.size() < wanted.size();) {
    size_t size = event_size(page, at, end);
    if (size == 0 || at + size > end) return false;
    uint32_t type_len = read32(page, at) & 0x1f;
    if (wanted.count(static_cast<uint32_t>(at))) {
      if (type_len > 28) return false;  // not a data event
      found.emplace_back(at, size);
    }
    at += size;
  }
  if (found.size() != wanted.size()) return false;
  for (auto [at, size] : found) {
    uint32_t header = (read32(page, at) & ~0x1fu) | kPadding;  // its time delta kept
    auto length = static_cast<uint32_t>(size - 4);
    std::memcpy(page.data() + at, &header, 4);
    std::memcpy(page.data() + at + 4, &length, 4);
  }
  return true;
}

}  // namespace kpp
