#include "dwarf/source/debuginfod_background.h"

#include "dwarf/debuginfod.h"

namespace kpp::dwarf {

DebuginfodBackground::~DebuginfodBackground() {
  stopping_ = true;
  std::lock_guard lock(mutex_);
  for (auto &[id, fetch] : fetches_)
    if (fetch->thread.joinable()) fetch->thread.join();
}

DebuginfodBackground::Answer DebuginfodBackground::debuginfo(const std::string &build_id) {
  std::lock_guard lock(mutex_);
  auto it = fetches_.find(build_id);
  if (it != fetches_.end()) {
    Fetch &f = *it->second;
    if (!f.done) return Answer{State::Pending, ""};
    if (f.thread.joinable()) f.thread.join();
    return f.answer;
  }
  if (auto cached = debuginfod_cached_debuginfo(build_id)) return Answer{State::Ready, *cached};
  if (fetches_.size() >= kMaxFetches)
    return Answer{State::Failed, "not fetched: " + std::to_string(kMaxFetches) + " debug files are fetched per run at most"};
  auto fetch = std::make_unique<Fetch>();
  Fetch *f = fetch.get();
  fetches_.emplace(build_id, std::move(fetch));
  f->thread = std::thread([this, f, build_id] {
    auto got = debuginfod_fetch_debuginfo_in_thread(build_id, [this] { return stopping_.load(); });
    f->answer = got ? Answer{State::Ready, *got} : Answer{State::Failed, got.error().message};
    f->done = true;
  });
  return Answer{State::Pending, ""};
}

}  // namespace kpp::dwarf
