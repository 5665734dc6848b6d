// PrinterSink: an EventSink that writes one formatted line per event to a
// FILE* the caller chose (stdout for `trace`, the -o file).
//
// Pipes: when `out` is not a terminal, each batch of events (one poll of
// the buffers, ~100 ms) is flushed at its end, so a reader downstream sees
// lines while the traced command runs. A reader that goes away (`| head`)
// ends the session quietly: the sink stops writing, asks the session to
// stop (request_stop) and reports output_closed().
#pragma once

#include <cstdio>

#include "src/stream/event_sink.h"

namespace kpp {

enum class PrintFormat { Text, Short, Json };

class PrinterSink : public EventSink {
 public:
  // `out` is not owned and must stay open while the sink is used.
  // `verbose` (trace -v): text lines end with the probe's address and site.
  PrinterSink(PrintFormat format, std::FILE *out, bool verbose = false);

  // Writes the line; error if the stream failed (e.g. disk full).
  Status on_event(const Event &event) override;
  // Flushes `out` when it is not a terminal.
  Status on_batch_end() override;
  // Flushes `out`.
  Status on_finish() override;

  // The reader closed the pipe (EPIPE): nothing more was written.
  bool output_closed() const { return closed_; }

 private:
  Status failed(const char *what);

  PrintFormat format_;
  std::FILE *out_;
  bool flush_batches_;
  bool verbose_;
  bool closed_ = false;
};

}  // namespace kpp
