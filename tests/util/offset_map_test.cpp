#include "util/offset_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace kpp {
namespace {

TEST(OffsetMap, FirstValueStaysAndMissingKeysAreNotFound) {
  OffsetMap map(2);
  EXPECT_FALSE(map.find(0));
  EXPECT_EQ(map.insert(0, 7), 7u);  // 0 is a key like any other (the first DIE of .debug_info's first unit is not, but a string address may be)
  EXPECT_EQ(map.insert(0, 9), 7u);
  EXPECT_EQ(map.find(0), 7u);
  EXPECT_FALSE(map.find(1));
  EXPECT_EQ(map.size(), 1u);
}

// Far more keys than it was sized for, in patterns that collide under a
// plain modulo (multiples of the table size): every key keeps its value.
TEST(OffsetMap, GrowsAndAgreesWithAnOrderedMap) {
  OffsetMap map(4);
  std::map<uint64_t, uint32_t> want;
  std::mt19937_64 random(17);
  for (uint32_t i = 0; i < 50000; ++i) {
    uint64_t key = i % 3 == 0 ? uint64_t{i} * 4096 : i % 3 == 1 ? random() : (uint64_t{1} << 63) | i;
    want.emplace(key, i);
    EXPECT_EQ(map.insert(key, i), want.at(key));
  }
  EXPECT_EQ(map.size(), want.size());
  for (const auto &[key, value] : want) ASSERT_EQ(map.find(key), value) << key;
  for (uint64_t missing : {uint64_t{3}, uint64_t{4095}, uint64_t{1} << 62}) EXPECT_FALSE(map.find(missing));
}

}  // namespace
}  // namespace kpp
