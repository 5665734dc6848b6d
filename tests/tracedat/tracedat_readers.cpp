#include "tests/tracedat/tracedat_readers.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "src/tracefs/tracefs_cxx.h"  // before trace-cmd.h: C++-safe tracefs.h
#include <trace-cmd/trace-cmd.h>

#include "tests/common/run_command.h"

namespace kpp::test {

std::vector<ReportedHit> trace_cmd_report(const std::string &path, int *status, std::string *text) {
  CommandRun report = run_command("trace-cmd report -t -i " + path, Stderr::Merged);
  *status = report.status;
  *text = report.out;
  std::vector<ReportedHit> out;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    // " COMM-PID [CPU] SECONDS.NANOS: hit: (ip) i=.. sq=.. name=".." tag=0x.."
    auto at = line.find(" hit: ");
    if (at == std::string::npos) continue;
    auto args = line.find(" i=", at);
    auto bracket = line.find(" [");
    if (args == std::string::npos || bracket == std::string::npos) continue;
    // trace-cmd prints the string between quotes without escaping, so
    // take what lies between name=" and the last " tag=.
    auto name_at = line.find(" name=\"", args);
    auto tag_at = line.rfind("\" tag=0x");
    if (name_at == std::string::npos || tag_at == std::string::npos || tag_at < name_at) continue;
    ReportedHit r;
    if (std::sscanf(line.c_str() + args, " i=%ld sq=%lu", &r.hit.i, &r.hit.sq) != 2) continue;
    r.hit.name = line.substr(name_at + 7, tag_at - name_at - 7);
    r.hit.tag = std::strtoul(line.c_str() + tag_at + 8, nullptr, 16);
    unsigned long long sec = 0, nsec = 0;
    if (std::sscanf(line.c_str() + bracket, " [%d] %llu.%llu:", &r.cpu, &sec, &nsec) != 3) continue;
    r.time_ns = sec * 1000000000ull + nsec;
    std::string task = line.substr(0, bracket);
    task.erase(0, task.find_first_not_of(' '));
    auto dash = task.rfind('-');
    if (dash == std::string::npos) continue;
    r.comm = task.substr(0, dash);
    r.pid = std::atoi(task.c_str() + dash + 1);
    out.push_back(r);
  }
  return out;
}

std::vector<Hit> hits_of(const std::vector<ReportedHit> &reported) {
  std::vector<Hit> out;
  for (const auto &r : reported) out.push_back(r.hit);
  return out;
}

namespace {
int collect_record(tracecmd_input *handle, tep_record *rec, int, void *data) {
  auto *out = static_cast<LibReadResult *>(data);
  tep_handle *tep = tracecmd_get_tep(handle);
  tep_event *ev = tep_find_event_by_record(tep, rec);
  if (!ev || std::string(ev->name) != "hit") return 0;
  Hit h;
  unsigned long long v = 0;
  trace_seq s;
  trace_seq_init(&s);
  tep_get_field_val(&s, ev, "i", rec, &v, 0);
  h.i = static_cast<long>(v);
  tep_get_field_val(&s, ev, "sq", rec, &v, 0);
  h.sq = v;
  tep_get_field_val(&s, ev, "tag", rec, &v, 0);
  h.tag = v;
  int len = 0;
  if (const char *p = static_cast<const char *>(tep_get_field_raw(&s, ev, "name", rec, &len, 0)))
    h.name.assign(p, strnlen(p, static_cast<size_t>(len)));
  trace_seq_destroy(&s);
  out->hits.push_back(h);
  out->ts.push_back(rec->ts);
  return 0;
}
}  // namespace

LibReadResult libtracecmd_hits(const std::string &path) {
  LibReadResult r;
  tracecmd_input *handle = tracecmd_open(path.c_str(), 0);
  if (!handle) return r;
  r.opened = true;
  tracecmd_iterate_events(handle, nullptr, 0, collect_record, &r);
  tracecmd_close(handle);
  return r;
}

bool trace_cmd_supports_compression(const std::string &name) {
  std::string list = run_command("trace-cmd list -c", Stderr::Merged).out;
  return list.find("\t" + name + ",") != std::string::npos || list.find(" " + name + ",") != std::string::npos;
}

}  // namespace kpp::test
