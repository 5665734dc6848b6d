#include "src/output/printer_sink.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "event/json_format.h"
#include "event/stack_format.h"
#include "event/text_format.h"
#include "src/stream/stop_signal.h"

namespace kpp {

PrinterSink::PrinterSink(PrintFormat format, std::FILE *out, bool verbose)
    : format_(format), out_(out), flush_batches_(!isatty(fileno(out))), verbose_(verbose) {}

Status PrinterSink::failed(const char *what) {
  if (errno == EPIPE) {
    closed_ = true;
    request_stop();
    return Ok{};
  }
  return Error(std::string("cannot ") + what + " event output: " + std::strerror(errno));
}

Status PrinterSink::on_event(const Event &event) {
  if (closed_) return Ok{};
  std::string line = format_ == PrintFormat::Json    ? format_event_json(event)
                     : format_ == PrintFormat::Short ? format_event_short(event)
                                                     : format_event_text(event);
  if (verbose_ && format_ == PrintFormat::Text && (event.probe_ip || !event.site.empty())) {
    char ip[32];
    std::snprintf(ip, sizeof ip, "0x%llx", static_cast<unsigned long long>(event.probe_ip));
    line += "  (ip=" + std::string(ip) + (event.site.empty() ? "" : " site=" + event.site) + ")";
  }
  if (format_ == PrintFormat::Text)
    for (const StackFrame &f : event.stack) line += "\n    " + format_frame_text(f);
  line += '\n';
  if (std::fwrite(line.data(), 1, line.size(), out_) != line.size()) return failed("write");
  return Ok{};
}

Status PrinterSink::on_batch_end() {
  if (closed_ || !flush_batches_) return Ok{};
  if (std::fflush(out_) != 0) return failed("flush");
  return Ok{};
}

Status PrinterSink::on_finish() {
  if (closed_) return Ok{};
  if (std::fflush(out_) != 0) return failed("flush");
  return Ok{};
}

}  // namespace kpp
