// The byte-level pieces of trace.dat shared by versions 6 and 7: integers in
// the host's byte order, and the bodies of the metadata blocks, which v6
// writes one after another and v7 wraps in sections (REFERENCE.md section 2).
// Internal to kpp_tracedat.
#pragma once

#include <cstdint>
#include <string>

#include "src/tracedat/tracedat_metadata.h"

namespace kpp::tracedat {

// trace.dat integers are in the file's byte order; we write the host's and
// declare it in the initial header.
template <class T>
void put(std::string &out, T v) {
  out.append(reinterpret_cast<const char *>(&v), sizeof v);
}
void put_cstr(std::string &out, const std::string &s);
// One option: 2-byte id, 4-byte size, data.
void put_option(std::string &out, uint16_t id, const std::string &data);

// Option ids (trace-cmd's numbering, the same in v6 and v7).
enum OptionId : uint16_t {
  kOptionDone = 0,
  kOptionCpuStat = 2,
  kOptionBuffer = 3,
  kOptionTraceClock = 4,
  kOptionUname = 5,
  kOptionCpuCount = 8,
  kOptionStrings = 15,
  kOptionHeaderInfo = 16,
  kOptionFtraceEvents = 17,
  kOptionEventFormats = 18,
  kOptionKallsyms = 19,
  kOptionPrintk = 20,
  kOptionCmdlines = 21,
};

// One CPUSTAT option per CPU ("CPU: N" and that CPU's per_cpu/cpuN/stats),
// which `trace-cmd report --stat` prints; none when the stats were not read.
void put_cpu_stats(std::string &options, const Metadata &meta);
// kprobe-probe's own options (tracedat_options.h), which trace-cmd skips.
void put_own_options(std::string &options, const Metadata &meta);

// Magic, version string, endianness, sizeof(long), page size.
std::string initial_header(int version, int page_size);

// Block bodies, as v6 lays them out and v7 sections hold them.
std::string header_info_body(const Metadata &meta);    // header_page + header_event
std::string ftrace_formats_body(const Metadata &meta);
std::string event_formats_body(const Metadata &meta);
std::string kallsyms_body(const Metadata &meta);
std::string printk_body(const Metadata &meta);
std::string cmdlines_body(const Metadata &meta);

}  // namespace kpp::tracedat
