// Debug files fetched from debuginfod off the caller's thread, for readers
// that must never wait for the network: a trace's stack frames
// (src/stack/stack_symbolizer.h) ask, get "pending" at once, and ask again
// later; the events keep flowing meanwhile. Each build-id is fetched once
// per object, on a thread of its own, with the bounds of any fetch
// (debuginfod.h); destroying the object stops the fetches still running
// (within ~50 ms: nothing is left in the cache) and waits for their threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace kpp::dwarf {

class DebuginfodBackground {
 public:
  // Fetches started per object at most (a hostile process's maps may name
  // any number of libraries); past them, answers are Failed.
  static constexpr size_t kMaxFetches = 16;

  enum class State { Ready, Pending, Failed };
  struct Answer {
    State state = State::Failed;
    std::string text;  // Ready: the path; Failed: why
  };

  DebuginfodBackground() = default;
  ~DebuginfodBackground();
  DebuginfodBackground(const DebuginfodBackground &) = delete;
  DebuginfodBackground &operator=(const DebuginfodBackground &) = delete;

  // The debug file of `build_id`: Ready when the cache has it, else fetched
  // on another thread (Pending until it is done).
  Answer debuginfo(const std::string &build_id);

 private:
  struct Fetch {
    std::thread thread;
    std::atomic<bool> done{false};
    Answer answer;  // written by the thread before `done`
  };
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Fetch>> fetches_;
  std::atomic<bool> stopping_{false};
};

}  // namespace kpp::dwarf
