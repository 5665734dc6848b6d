// A histogram the kernel keeps (a hist trigger of one of our instances, as
// `kprobe-probe hist` sets), as the live view's Kernel pane shows it: the
// table already formatted (the live layer reads and formats it; the view
// only draws it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kpp::tui {

struct KernelHistogram {
  std::string event;     // "probe:vfs_read"
  std::string instance;  // the tracefs instance it runs in ("kprobe-probe-123")
  std::string keys;      // what it counts by: "comm, count.log2"
  uint64_t hits = 0;     // the kernel's total
  // The table as `kprobe-probe hist` prints it: a header, then one row a
  // line, by count; or one line saying why it could not be read.
  std::vector<std::string> table;
};

}  // namespace kpp::tui
