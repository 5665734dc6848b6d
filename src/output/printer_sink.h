// PrinterSink: an EventSink that writes one formatted line per event to a
// FILE* the caller chose (stdout for `trace`), and counts lost events.
#pragma once

#include <cstdio>

#include "src/stream/event_sink.h"

namespace kpp {

enum class PrintFormat { Text, Short, Json };

class PrinterSink : public EventSink {
 public:
  // `out` is not owned and must stay open while the sink is used.
  PrinterSink(PrintFormat format, std::FILE *out) : format_(format), out_(out) {}

  // Writes the line; error if the stream failed (e.g. EPIPE, disk full).
  Status on_event(const Event &event) override;
  // Flushes `out`.
  Status on_finish() override;

 private:
  PrintFormat format_;
  std::FILE *out_;
};

}  // namespace kpp
