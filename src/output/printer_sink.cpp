#include "src/output/printer_sink.h"

#include <cerrno>
#include <cstring>

#include "src/output/json_format.h"
#include "src/output/text_format.h"

namespace kpp {

Status PrinterSink::on_event(const Event &event) {
  std::string line = format_ == PrintFormat::Json    ? format_event_json(event)
                     : format_ == PrintFormat::Short ? format_event_short(event)
                                                     : format_event_text(event);
  line += '\n';
  if (std::fwrite(line.data(), 1, line.size(), out_) != line.size())
    return Error(std::string("cannot write event output: ") + std::strerror(errno));
  return Ok{};
}

Status PrinterSink::on_finish() {
  if (std::fflush(out_) != 0) return Error(std::string("cannot flush event output: ") + std::strerror(errno));
  return Ok{};
}

}  // namespace kpp
