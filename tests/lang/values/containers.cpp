// C++ standard-library values for the values oracle (values_oracle.py):
// each read by kprobe-probe and by gdb, with libstdc++'s pretty printers,
// at the same address.
#include <array>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct Item {
  double price;
  float weight;
  int qty;
};

namespace shop {
enum class Size : unsigned char { Small = 1, Large = 2 };  // gdb: shop::Size::Small, (shop::Size::Small | shop::Size::Large)
enum Mood { Calm, Angry = 3 };                             // gdb: shop::Calm
}  // namespace shop

__attribute__((noinline)) int size_of(shop::Size size, shop::Mood mood) {
  std::printf("%d %d\n", static_cast<int>(size), static_cast<int>(mood));
  return static_cast<int>(size) + mood;
}

__attribute__((noinline)) size_t greet(const std::string &name, std::string_view view, const std::vector<int> &ids,
                                       const std::vector<double> &prices, const std::unique_ptr<Item> &item) {
  std::printf("%s %zu %zu %zu %d\n", name.c_str(), view.size(), ids.size(), prices.size(), item->qty);  // @greet_body
  return name.size() + ids.size();
}

// std::optional by value (in a register at -O2) and by reference, engaged or not.
__attribute__((noinline)) int choose(std::optional<int> count, const std::optional<double> &rate,
                                     const std::optional<std::string> &label) {
  std::printf("%d %g %s\n", count.value_or(-1), rate.value_or(0.0), label ? label->c_str() : "-");  // @choose_body
  return count.value_or(0) + (label ? 1 : 0);
}

// std::array by reference (in memory) and by value (in registers at -O2).
__attribute__((noinline)) int sum_of(const std::array<int, 4> &counts, std::array<double, 2> rates) {
  std::printf("%d %g\n", counts[0], rates[1]);
  return counts[0] + counts[3] + static_cast<int>(rates[0]);
}

// An optional holding an optional: both engaged, the outer holding an empty
// one, and empty.
__attribute__((noinline)) int unwrap(const std::optional<std::optional<int>> &twice) {
  std::printf("%d\n", twice ? twice->value_or(-1) : -2);  // @unwrap_body
  return twice && *twice ? **twice : 0;
}

// A std::array longer than the kernel's 64 elements: its first --max-items
// elements and its length.
__attribute__((noinline)) int sum_big(const std::array<int, 100> &big) {
  int sum = 0;
  for (int v : big) sum += v;
  std::printf("%d\n", sum);
  return sum;
}

int main() {
  std::string shortname = "bob";
  std::string longname = "a heap string, longer than the fifteen bytes kept inside; and longer than sixty-four too";
  std::vector<int> ids{1, 2, 3};
  std::vector<int> many(20, 7);
  std::vector<double> prices{1.25, 2.5};
  auto item = std::make_unique<Item>(Item{9.75, 1.0f, 7});
  std::string_view view = std::string_view(longname).substr(2, 4);
  size_t n = greet(shortname, view, ids, prices, item);
  n += greet(longname, "xy", many, {}, item);
  n += size_of(shop::Size::Large, shop::Angry);
  n += size_of(static_cast<shop::Size>(3), static_cast<shop::Mood>(9));
  n += choose(5, 2.5, std::string("tag"));
  n += choose(std::nullopt, std::nullopt, std::nullopt);
  n += sum_of({1, -2, 3, 40}, {0.1, 2.5});
  n += unwrap(std::optional<int>(4));
  n += unwrap(std::optional<int>());
  n += unwrap(std::nullopt);
  std::array<int, 100> big{};
  for (int i = 0; i < 100; i++) big[i] = 100 - i * 2;
  n += sum_big(big);
  return static_cast<int>(n % 2);
}
