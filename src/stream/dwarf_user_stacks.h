// DwarfUserStacks: the user stacks of uprobe events unwound from perf's
// samples (perf_user_stacks.h) by a UserStackUnwinder (src/stack: libdwfl
// over the binaries' .eh_frame/.debug_frame), ready for the StackJoin.
//
// A thread of its own reads the perf rings as they fill, copies the
// samples out (a full ring loses samples: a program's start can hit a
// probe thousands of times in a few milliseconds), then unwinds them: a
// sample is ~8 KiB, its unwound stack a few addresses. The stacks wait in
// UnwoundStacks (unwound_stacks.h) for the events they belong to.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "src/stream/perf_user_stacks.h"
#include "src/stream/stack_join.h"
#include "src/stream/unwound_stacks.h"

namespace kpp {

// Unwinds one sample (src/stack implements it).
class UserStackUnwinder {
 public:
  virtual ~UserStackUnwinder() = default;
  // The sample's stack, innermost first: its ip, then return addresses.
  virtual std::vector<uint64_t> unwind(const UserStackSample &sample) = 0;
  // A process's mappings changed (in time order with the samples of its CPU).
  virtual void on_change(const ProcessChange &change) = 0;
  // What to tell the user once (a file unwound by frame pointers); moved out.
  virtual std::vector<std::string> take_notes() = 0;
};

class DwarfUserStacks : public UserStackSource {
 public:
  // `sites`: "group:event" of each site in `options.sites`, same order.
  // `unwinder` is used by the reader thread only.
  static Result<std::unique_ptr<DwarfUserStacks>> start(const PerfUserStacksOptions &options,
                                                        std::vector<std::string> sites,
                                                        std::shared_ptr<UserStackUnwinder> unwinder);
  ~DwarfUserStacks() override;

  std::optional<std::vector<uint64_t>> take(const Event &event, bool last) override {
    return stacks_->take(event, last);
  }
  // Stops sampling, unwinds what is left and ends the thread (the events
  // must be disabled first). Idempotent.
  void stop();

  uint64_t samples() const { return samples_.load(); }
  uint64_t lost() const { return perf_->lost(); }  // samples perf could not write
  uint64_t unmatched() const { return stacks_->unmatched(); }  // samples no event took
  uint64_t without_stack() const { return stacks_->without_stack(); }  // events shown with none
  std::vector<std::string> take_notes();

 private:
  // A sample (regs_mask set) or a change, in the order the ring had them.
  struct Copied {
    UserStackSample sample;
    ProcessChange change;
  };
  DwarfUserStacks() = default;
  void run();
  void drain_once();

  std::unique_ptr<PerfUserStacks> perf_;
  std::shared_ptr<UserStackUnwinder> unwinder_;
  std::unique_ptr<UnwoundStacks> stacks_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> samples_{0};
  std::mutex notes_mutex_;
  std::vector<std::string> notes_;
};

}  // namespace kpp
