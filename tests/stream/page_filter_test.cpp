// Leaving events out of a raw ring-buffer page (src/stream/page_filter.h):
// a page built by hand as the kernel lays it out, read back by
// libtraceevent's kbuffer (what trace-cmd and report read pages with): the
// events left out are gone, the others keep their data and their times.
#include "src/stream/page_filter.h"

#include <gtest/gtest.h>
extern "C" {  // kbuffer.h has no C++ guard
#include <traceevent/kbuffer.h>
}

#include <cstring>
#include <vector>

namespace kpp {
namespace {

constexpr int kDataStart = 16;  // u64 time stamp, u64 commit (64-bit kernels)

class Page {
 public:
  Page() : bytes_(4096, 0) {
    uint64_t start = 1000;
    std::memcpy(bytes_.data(), &start, 8);
  }
  // A data event of `words` u32s (type_len 1-28), each word `fill`; its offset.
  uint32_t small(uint32_t delta, uint32_t words, uint32_t fill) {
    uint32_t at = put(delta << 5 | words);
    for (uint32_t i = 0; i < words; ++i) put(fill);
    return at;
  }
  // A data event with a length word (type_len 0) of `data_bytes`.
  uint32_t large(uint32_t delta, uint32_t data_bytes, uint32_t fill) {
    uint32_t at = put(delta << 5);
    put(data_bytes + 4);
    for (uint32_t i = 0; i < data_bytes / 4; ++i) put(fill);
    return at;
  }
  void time_extend(uint64_t delta) {
    put(static_cast<uint32_t>(delta & ((1u << 27) - 1)) << 5 | 30);
    put(static_cast<uint32_t>(delta >> 27));
  }
  std::vector<uint8_t> &bytes() {
    uint64_t commit = end_ - kDataStart;
    std::memcpy(bytes_.data() + 8, &commit, 8);
    return bytes_;
  }

 private:
  uint32_t put(uint32_t v) {
    std::memcpy(bytes_.data() + end_, &v, 4);
    end_ += 4;
    return end_ - 4;
  }
  std::vector<uint8_t> bytes_;
  uint32_t end_ = kDataStart;
};

struct Read {
  uint64_t time;
  uint32_t first_word;
  int size;
};

std::vector<Read> read_back(std::vector<uint8_t> &page) {
  kbuffer *kbuf = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
  std::vector<Read> out;
  if (kbuffer_load_subbuffer(kbuf, page.data()) == 0) {
    unsigned long long ts = 0;
    for (void *rec = kbuffer_read_event(kbuf, &ts); rec; rec = kbuffer_next_event(kbuf, &ts)) {
      uint32_t word;
      std::memcpy(&word, rec, 4);
      out.push_back({ts, word, kbuffer_event_size(kbuf)});
    }
  }
  kbuffer_free(kbuf);
  return out;
}

TEST(PageFilter, EventsLeftOutAreGoneAndTheOthersKeepTheirTimes) {
  Page p;
  p.small(10, 2, 0x11111111);                 // 1010
  uint32_t two = p.large(5, 20, 0x22222222);  // 1015
  uint32_t three = p.small(7, 1, 0x33333333);  // 1022
  p.time_extend((1ull << 28) + 3);
  p.small(2, 1, 0x44444444);  // 1022 + 2^28 + 3 + 2
  p.large(9, 8, 0x55555555);
  std::vector<uint8_t> &page = p.bytes();
  std::vector<Read> before = read_back(page);
  ASSERT_EQ(before.size(), 5u);
  ASSERT_TRUE(pad_out_events(page, kDataStart, {two, three}));
  std::vector<Read> after = read_back(page);
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0].time, 1010u);
  EXPECT_EQ(after[0].first_word, 0x11111111u);
  EXPECT_EQ(after[1].time, before[3].time);
  EXPECT_EQ(after[1].time, 1022u + (1u << 28) + 3 + 2);
  EXPECT_EQ(after[1].first_word, 0x44444444u);
  EXPECT_EQ(after[2].time, before[4].time);
  EXPECT_EQ(after[2].first_word, 0x55555555u);
  EXPECT_EQ(after[2].size, 8);
}

TEST(PageFilter, AnOffsetThatIsNoEventLeavesThePageAsItWas) {
  Page p;
  uint32_t one = p.small(10, 2, 0x11111111);
  p.time_extend(1ull << 30);
  p.small(1, 1, 0x22222222);
  std::vector<uint8_t> page = p.bytes();
  std::vector<uint8_t> copy = page;
  EXPECT_FALSE(pad_out_events(page, kDataStart, {one + 4}));      // inside an event
  EXPECT_FALSE(pad_out_events(page, kDataStart, {one + 12}));     // the time extend
  EXPECT_FALSE(pad_out_events(page, kDataStart, {4000}));         // past the data
  EXPECT_FALSE(pad_out_events(page, 20, {one}));                  // not a header size
  EXPECT_EQ(page, copy);
}

}  // namespace
}  // namespace kpp
