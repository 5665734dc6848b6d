#include "src/tracedat/tracedat_layout.h"

#include "src/tracedat/tracedat_options.h"

namespace kpp::tracedat {

namespace {
bool host_is_big_endian() {
  const uint16_t one = 1;
  return *reinterpret_cast<const uint8_t *>(&one) == 0;
}
}  // namespace

void put_cstr(std::string &out, const std::string &s) {
  out += s;
  out += '\0';
}

void put_option(std::string &out, uint16_t id, const std::string &data) {
  put<uint16_t>(out, id);
  put<uint32_t>(out, static_cast<uint32_t>(data.size()));
  out += data;
}

void put_cpu_stats(std::string &options, const Metadata &meta) {
  for (const std::string &stats : meta.cpu_stats) put_option(options, kOptionCpuStat, stats + '\0');
}

void put_own_options(std::string &options, const Metadata &meta) {
  if (!meta.user_stacks.empty()) put_option(options, kOptionUserStacks, meta.user_stacks);
}

std::string initial_header(int version, int page_size) {
  std::string h("\x17\x08\x44tracing", 10);
  put_cstr(h, std::to_string(version));
  put<uint8_t>(h, host_is_big_endian() ? 1 : 0);
  put<uint8_t>(h, static_cast<uint8_t>(sizeof(long)));
  put<uint32_t>(h, static_cast<uint32_t>(page_size));
  return h;
}

std::string header_info_body(const Metadata &meta) {
  std::string b;
  put_cstr(b, "header_page");
  put<uint64_t>(b, meta.header_page.size());
  b += meta.header_page;
  put_cstr(b, "header_event");
  put<uint64_t>(b, meta.header_event.size());
  b += meta.header_event;
  return b;
}

std::string ftrace_formats_body(const Metadata &meta) {
  std::string b;
  put<uint32_t>(b, static_cast<uint32_t>(meta.ftrace_formats.size()));
  for (const auto &f : meta.ftrace_formats) {
    put<uint64_t>(b, f.text.size());
    b += f.text;
  }
  return b;
}

std::string event_formats_body(const Metadata &meta) {
  std::string b;
  put<uint32_t>(b, static_cast<uint32_t>(meta.systems.size()));
  for (const auto &sys : meta.systems) {
    put_cstr(b, sys.system);
    put<uint32_t>(b, static_cast<uint32_t>(sys.events.size()));
    for (const auto &f : sys.events) {
      put<uint64_t>(b, f.text.size());
      b += f.text;
    }
  }
  return b;
}

std::string kallsyms_body(const Metadata &meta) {
  std::string b;
  put<uint32_t>(b, static_cast<uint32_t>(meta.kallsyms.size()));
  return b + meta.kallsyms;
}

std::string printk_body(const Metadata &meta) {
  std::string b;
  put<uint32_t>(b, static_cast<uint32_t>(meta.printk_formats.size()));
  return b + meta.printk_formats;
}

std::string cmdlines_body(const Metadata &meta) {
  std::string b;
  put<uint64_t>(b, meta.cmdlines.size());
  return b + meta.cmdlines;
}

}  // namespace kpp::tracedat
