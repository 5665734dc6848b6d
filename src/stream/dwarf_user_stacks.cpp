#include "src/stream/dwarf_user_stacks.h"

#include "util/monotonic_clock.h"

namespace kpp {

namespace {
// How often the reader looks at the rings when they fill slowly.
constexpr int kReadEveryMs = 10;
}  // namespace

Result<std::unique_ptr<DwarfUserStacks>> DwarfUserStacks::start(const PerfUserStacksOptions &options,
                                                                std::vector<std::string> sites,
                                                                std::shared_ptr<UserStackUnwinder> unwinder) {
  auto perf = PerfUserStacks::open(options);
  if (!perf) return std::move(perf).error();
  std::unique_ptr<DwarfUserStacks> s(new DwarfUserStacks());
  s->perf_ = std::move(*perf);
  s->stacks_ = std::make_unique<UnwoundStacks>(std::move(sites));
  s->unwinder_ = std::move(unwinder);
  s->thread_ = std::thread([p = s.get()] { p->run(); });
  return s;
}

DwarfUserStacks::~DwarfUserStacks() { stop(); }

void DwarfUserStacks::run() {
  while (!stopping_.load()) {
    perf_->wait(kReadEveryMs);
    drain_once();
  }
}

void DwarfUserStacks::drain_once() {
  uint64_t started = monotonic_ns();
  // Copied out first, the rings freed, then unwound.
  std::vector<Copied> copied;
  perf_->drain([&](const UserStackSample &sample) { copied.push_back(Copied{sample, {}}); },
               [&](const ProcessChange &change) { copied.push_back(Copied{{}, change}); });
  for (const PerfUserStacks::Loss &loss : perf_->take_losses()) stacks_->add_loss(loss.cpu, loss.after_ns, loss.before_ns);
  for (Copied &c : copied) {
    if (!c.sample.regs_mask) {
      unwinder_->on_change(c.change);
      continue;
    }
    stacks_->add(c.sample.tid, c.sample.time_ns, c.sample.event, unwinder_->unwind(c.sample));
    ++samples_;
  }
  stacks_->read_until(started);
  std::vector<std::string> notes = unwinder_->take_notes();
  std::lock_guard lock(notes_mutex_);
  notes_.insert(notes_.end(), notes.begin(), notes.end());
}

void DwarfUserStacks::stop() {
  if (!thread_.joinable()) return;
  perf_->disable();
  stopping_.store(true);
  thread_.join();
  drain_once();  // what came between the thread's last look and the disable
  stacks_->read_until(~uint64_t{0});  // all is in
}

std::vector<std::string> DwarfUserStacks::take_notes() {
  std::lock_guard lock(notes_mutex_);
  return std::move(notes_);
}

}  // namespace kpp
