#include "src/tracedat/tracedat_metadata.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/files.h"

namespace kpp::tracedat {

namespace {

// Sorted names of the subdirectories of `dir` (event directories).
std::vector<std::string> subdirs(const std::string &dir) {
  std::vector<std::string> out;
  DIR *d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent *e = readdir(d)) {
    if (e->d_name[0] == '.' || e->d_type != DT_DIR) continue;
    out.emplace_back(e->d_name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<FormatFile>> read_system(const std::string &events_dir, const std::string &system) {
  std::vector<FormatFile> out;
  for (const auto &ev : subdirs(events_dir + "/" + system)) {
    auto text = read_whole_file(events_dir + "/" + system + "/" + ev + "/format");
    if (!text) return std::move(text).error();
    out.push_back({ev, std::move(*text)});
  }
  return out;
}

// The recorded instance's directory (the top level when it has no name).
std::string instance_dir(const StreamInfo &info) {
  return info.tracing_dir + (info.instance_name.empty() ? "" : "/instances/" + info.instance_name);
}

}  // namespace

Status read_formats(const StreamInfo &info, Metadata &meta) {
  const std::string events = info.tracing_dir + "/events";
  auto hp = read_whole_file(events + "/header_page");
  if (!hp) return std::move(hp).error();
  auto he = read_whole_file(events + "/header_event");
  if (!he) return std::move(he).error();
  meta.header_page = std::move(*hp);
  meta.header_event = std::move(*he);
  auto ftrace = read_system(events, "ftrace");
  if (!ftrace) return std::move(ftrace).error();
  meta.ftrace_formats = std::move(*ftrace);
  meta.systems.clear();
  for (const auto &sys : info.systems) {
    if (sys == "ftrace") continue;  // already in the ftrace section
    auto formats = read_system(events, sys);
    if (!formats) return std::move(formats).error();
    meta.systems.push_back({sys, std::move(*formats)});
  }
  auto clock = read_whole_file(instance_dir(info) + "/trace_clock");
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
  auto printk = read_whole_file(info.tracing_dir + "/printk_formats");
  meta.printk_formats = printk ? std::move(*printk) : std::string();
  auto cmdlines = read_whole_file(info.tracing_dir + "/saved_cmdlines");
  meta.cmdlines = cmdlines ? std::move(*cmdlines) : std::string();
  meta.cpu_stats.clear();
  for (int cpu = 0; cpu < info.cpus; ++cpu) {
    auto stats = read_whole_file(instance_dir(info) + "/per_cpu/cpu" + std::to_string(cpu) + "/stats");
    if (!stats) {  // all or none: a reader pairs them with CPUs by order
      meta.cpu_stats.clear();
      break;
    }
    meta.cpu_stats.push_back("CPU: " + std::to_string(cpu) + "\n" + *stats);
  }
  return Ok{};
}

}  // namespace kpp::tracedat
