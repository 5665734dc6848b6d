#include "src/tracedat/tracedat_metadata.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "src/tracefs/tracefs.h"
#include "util/files.h"

namespace kpp::tracedat {

namespace {

Result<std::vector<FormatFile>> read_system(const Tracefs &tracefs, const std::string &system) {
  std::vector<FormatFile> out;
  for (const auto &ev : tracefs.subdirectories("events/" + system)) {
    auto text = tracefs.read_whole("events/" + system + "/" + ev + "/format");
    if (!text) return std::move(text).error();
    out.push_back({ev, std::move(*text)});
  }
  return out;
}

// The recorded instance's directory (the top level when it has no name).
Tracefs instance_dir(const StreamInfo &info) {
  return Tracefs(info.tracing_dir + (info.instance_name.empty() ? "" : "/instances/" + info.instance_name));
}

}  // namespace

Status read_formats(const StreamInfo &info, Metadata &meta) {
  const Tracefs tracefs(info.tracing_dir);
  auto hp = tracefs.read_whole("events/header_page");
  if (!hp) return std::move(hp).error();
  auto he = tracefs.read_whole("events/header_event");
  if (!he) return std::move(he).error();
  meta.header_page = std::move(*hp);
  meta.header_event = std::move(*he);
  auto ftrace = read_system(tracefs, "ftrace");
  if (!ftrace) return std::move(ftrace).error();
  meta.ftrace_formats = std::move(*ftrace);
  meta.systems.clear();
  for (const auto &sys : info.systems) {
    if (sys == "ftrace") continue;  // already in the ftrace section
    auto formats = read_system(tracefs, sys);
    if (!formats) return std::move(formats).error();
    meta.systems.push_back({sys, std::move(*formats)});
  }
  auto clock = instance_dir(info).read_whole("trace_clock");
  meta.trace_clock = clock ? std::move(*clock) : "[" + info.clock + "]\n";
  utsname u{};
  if (uname(&u) == 0)
    meta.uname = std::string(u.sysname) + " " + u.nodename + " " + u.release + " " + u.version + " " + u.machine;
  return Ok{};
}

Status read_late_metadata(const StreamInfo &info, bool with_kallsyms, Metadata &meta) {
  if (with_kallsyms) {
    auto k = read_whole_file("/proc/kallsyms");
    meta.kallsyms = k ? std::move(*k) : std::string();
  }
  const Tracefs tracefs(info.tracing_dir);
  auto printk = tracefs.read_whole("printk_formats");
  meta.printk_formats = printk ? std::move(*printk) : std::string();
  auto cmdlines = tracefs.read_whole("saved_cmdlines");
  meta.cmdlines = cmdlines ? std::move(*cmdlines) : std::string();
  meta.cpu_stats.clear();
  for (int cpu = 0; cpu < info.cpus; ++cpu) {
    auto stats = instance_dir(info).read_whole("per_cpu/cpu" + std::to_string(cpu) + "/stats");
    if (!stats) {  // all or none: a reader pairs them with CPUs by order
      meta.cpu_stats.clear();
      break;
    }
    meta.cpu_stats.push_back("CPU: " + std::to_string(cpu) + "\n" + *stats);
  }
  return Ok{};
}

}  // namespace kpp::tracedat
