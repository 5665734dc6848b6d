// A C++ program whose functions have the shapes C++'s tools name
// (tests/lang): a namespace function, a method, a template's
// instantiations and a lambda, none inlined. Run with an argument N it loops
// N times, then prints what it computed.
#include <cstdio>
#include <cstdlib>
#include <string>

namespace shop {

struct Store {
  std::string name;
  int stock = 0;
  __attribute__((noinline)) int restock(const std::string& item, int n) {
    stock += n + static_cast<int>(item.size());
    return stock;
  }
};

__attribute__((noinline)) double price(int qty, double unit) { return qty * unit; }

template <typename T>
__attribute__((noinline)) T largest(T a, T b) {
  return a > b ? a : b;
}

}  // namespace shop

int main(int argc, char** argv) {
  int loops = argc > 1 ? std::atoi(argv[1]) : 1;
  shop::Store store{"corner"};
  double total = 0;
  long count = 0;
  auto add = [&total](double v) __attribute__((noinline)) { total += v; };
  for (int i = 0; i < loops; i++) {
    add(shop::price(i + 1, 1.5));
    count += store.restock("item" + std::to_string(i), i);
    count += shop::largest(i, 3) + static_cast<long>(shop::largest(1.5, 2.5));
  }
  std::printf("%s %g %ld\n", store.name.c_str(), total, count);
}
