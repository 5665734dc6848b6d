#include "src/stream/sink_chain.h"

namespace kpp {

SinkChain::SinkChain(SinkChainOptions options, std::vector<EventSink *> sinks)
    : own_pid_(options.own_pid),
      ns_pids_(std::move(options.ns_pids)),
      retired_(std::move(options.retired)),
      tasks_(options.threads_only || options.task_exits
                 ? std::optional<TaskFilter>(TaskFilter(options.threads_only, options.task_events_shown))
                 : std::nullopt),
      recognise_(!options.companions),
      sites_(std::move(options.sites)),
      enums_(std::move(options.enums)),
      join_(std::move(options.companions).value_or(Companions{}), std::move(sinks)),
      stacks_(std::move(options.stacks), &join_) {}

Status SinkChain::on_start(const StreamInfo &info) {
  if (recognise_) join_.set_companions(Companions::recognise(info.probes));
  return stacks_.on_start(info);
}

bool SinkChain::leaves_out(const Event &event) {
  if (own_pid_ && event.pid == own_pid_) return true;
  if (tasks_ && !tasks_->pass(event)) return true;
  if (retired_)
    if (auto gone = retired_->find(event.pid); gone != retired_->end() && event.time_ns > gone->second) return true;
  return false;
}

Status SinkChain::on_event(const Event &event) {
  dropped_ = leaves_out(event);
  if (dropped_) return Ok{};
  pid_t ns_pid = 0;
  if (ns_pids_)
    if (auto inner = ns_pids_->find(event.pid); inner != ns_pids_->end()) ns_pid = inner->second;
  if (sites_.empty() && enums_.empty() && !ns_pid) return stacks_.on_event(event);
  sited_ = event;
  if (!sites_.empty()) sited_.site = sites_.site_of(event);
  sited_.ns_pid = ns_pid;
  enums_.name(sited_);
  return stacks_.on_event(sited_);
}

}  // namespace kpp
