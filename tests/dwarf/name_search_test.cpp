// The byte search behind --no-cache lookups (dwarf/name_search.h): every
// occurrence is found, at every alignment and at the very end, and no other.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dwarf/name_search.h"

namespace kpp::dwarf {
namespace {

std::vector<uint64_t> naive(std::string_view haystack, std::string_view needle) {
  std::vector<uint64_t> found;
  for (size_t at = 0; at + needle.size() <= haystack.size(); ++at)
    if (haystack.substr(at, needle.size()) == needle) found.push_back(at);
  return found;
}

TEST(FindAll, FindsWhatAPlainSearchFinds) {
  std::mt19937 random(7);
  // Few distinct bytes, so that partial matches (first and last byte equal) are common.
  auto noise = [&](size_t n) {
    std::string s(n, 'a');
    for (char &c : s) c = static_cast<char>('a' + random() % 3);
    return s;
  };
  for (size_t needle_size : {1, 2, 3, 4, 5, 8, 9, 17, 33}) {
    for (size_t haystack_size : {0, 1, 15, 16, 17, 31, 32, 33, 100, 1000}) {
      std::string needle = noise(needle_size);
      std::string haystack = noise(haystack_size);
      // Planted at the start, across a 16-byte boundary and at the end.
      for (size_t at : {size_t{0}, size_t{14}, haystack_size >= needle_size ? haystack_size - needle_size : 0})
        if (at + needle_size <= haystack_size) haystack.replace(at, needle_size, needle);
      SCOPED_TRACE("needle " + std::to_string(needle_size) + ", haystack " + std::to_string(haystack_size));
      EXPECT_EQ(find_all(haystack, needle), naive(haystack, needle));
    }
  }
}

TEST(FindAll, OffsetsWithZeroBytes) {
  std::string haystack(4096, '\0');
  const char offset[4] = {0x34, 0x12, 0x00, 0x00};  // 0x1234 as DW_FORM_strp stores it
  haystack.replace(4090, 4, std::string(offset, 4));
  haystack.replace(100, 4, std::string(offset, 4));
  EXPECT_EQ(find_all(haystack, std::string(offset, 4)), (std::vector<uint64_t>{100, 4090}));
  EXPECT_TRUE(find_all(haystack, "\x34\x12\x01").empty());
  EXPECT_TRUE(find_all("abc", "abcd").empty());
  EXPECT_TRUE(find_all("abc", "").empty());
}

}  // namespace
}  // namespace kpp::dwarf
