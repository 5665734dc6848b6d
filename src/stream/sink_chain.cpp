#include "src/stream/sink_chain.h"

namespace kpp {

SinkChain::SinkChain(SinkChainOptions options, std::vector<EventSink *> sinks)
    : own_pid_(options.own_pid),
      recognise_(!options.companions),
      sites_(std::move(options.sites)),
      join_(std::move(options.companions).value_or(Companions{}), std::move(sinks)),
      stacks_(std::move(options.stacks), &join_) {}

Status SinkChain::on_start(const StreamInfo &info) {
  if (recognise_) join_.set_companions(Companions::recognise(info.probes));
  return stacks_.on_start(info);
}

Status SinkChain::on_event(const Event &event) {
  if (own_pid_ && event.pid == own_pid_) return Ok{};
  if (sites_.empty()) return stacks_.on_event(event);
  sited_ = event;
  sited_.site = sites_.site_of(event);
  return stacks_.on_event(sited_);
}

}  // namespace kpp
