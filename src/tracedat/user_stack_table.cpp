#include "src/tracedat/user_stack_table.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "src/tracedat/tracedat_layout.h"

namespace kpp {

namespace {

// The payload's first bytes: what it is, its layout's version, and the
// writer's byte order (the payload is in the host's, as the file is).
constexpr char kMagic[8] = {'K', 'P', 'P', 'U', 'S', 'T', 'K', '\0'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kByteOrder = 0x01020304;
// Bytes of one stored frame and one entry: the least a count may cost.
constexpr size_t kFrameBytes = 8 + 8 + 4 + 4 + 4 + 4 + 1;
constexpr size_t kEntryBytes = 8 + 4 + 4 + 4;

}  // namespace

// Reads the payload front to back; every read is checked against its end.
class PayloadReader {
 public:
  explicit PayloadReader(std::string_view data) : data_(data) {}
  template <class T>
  bool get(T &v) {
    if (data_.size() - at_ < sizeof v) return false;
    std::memcpy(&v, data_.data() + at_, sizeof v);
    at_ += sizeof v;
    return true;
  }
  bool bytes(size_t n, std::string &out) {
    if (data_.size() - at_ < n) return false;
    out.assign(data_.data() + at_, n);
    at_ += n;
    return true;
  }
  // Whether `count` items of at least `each` bytes can still be in the payload.
  bool fits(uint64_t count, size_t each) const { return count <= (data_.size() - at_) / each; }
  bool at_end() const { return at_ == data_.size(); }

 private:
  std::string_view data_;
  size_t at_ = 0;
};

uint32_t UserStackTable::string_id(const std::string &s) {
  auto [it, added] = string_ids_.emplace(s, static_cast<uint32_t>(strings_.size()));
  if (added) strings_.push_back(s);
  return it->second;
}

void UserStackTable::put_frame(std::string &out, const Frame &f) {
  using tracedat::put;
  put(out, f.ip), put(out, f.off), put(out, f.sym), put(out, f.file), put(out, f.object), put(out, f.line);
  put(out, f.flags);
}

uint32_t UserStackTable::stack_id(std::vector<Frame> frames) {
  std::string key;  // the stack as stored
  for (const Frame &f : frames) put_frame(key, f);
  auto [it, added] = stack_ids_.emplace(std::move(key), static_cast<uint32_t>(stacks_.size()));
  if (added) stacks_.push_back(std::move(frames));
  return it->second;
}

void UserStackTable::add(const Event &event) {
  std::vector<Frame> frames;
  for (const StackFrame &f : event.stack) {
    if (!f.user) continue;  // the kernel's frames are in the file as its own stack events
    Frame stored;
    stored.ip = f.ip;
    stored.off = f.off;
    stored.sym = string_id(f.sym);
    stored.file = string_id(f.file);
    stored.object = string_id(f.object);
    stored.line = f.line;
    stored.flags = static_cast<uint8_t>((f.user ? kUser : 0) | (f.inlined ? kInlined : 0));
    frames.push_back(stored);
  }
  if (frames.empty()) return;
  entries_.push_back(Entry{event.time_ns, event.cpu, event.pid, stack_id(std::move(frames))});
}

std::string UserStackTable::encode() const {
  using tracedat::put;
  std::string out(kMagic, sizeof kMagic);
  put<uint32_t>(out, kVersion);
  put<uint32_t>(out, kByteOrder);
  put<uint32_t>(out, static_cast<uint32_t>(strings_.size()));
  for (const std::string &s : strings_) {
    put<uint32_t>(out, static_cast<uint32_t>(s.size()));
    out += s;
  }
  put<uint32_t>(out, static_cast<uint32_t>(stacks_.size()));
  for (const std::vector<Frame> &stack : stacks_) {
    put<uint32_t>(out, static_cast<uint32_t>(stack.size()));
    for (const Frame &f : stack) put_frame(out, f);
  }
  put<uint64_t>(out, entries_.size());
  for (const Entry &e : entries_) put(out, e.time_ns), put(out, e.cpu), put(out, e.pid), put(out, e.stack);
  return out;
}

Status UserStackTable::decode_strings(PayloadReader &in) {
  uint32_t count = 0;
  if (!in.get(count) || !in.fits(count, sizeof(uint32_t))) return Error("its string count is past its end");
  strings_.resize(count);
  for (std::string &s : strings_) {
    uint32_t size = 0;
    if (!in.get(size) || !in.bytes(size, s)) return Error("a string runs past its end");
  }
  return Ok{};
}

Status UserStackTable::decode_stacks(PayloadReader &in) {
  uint32_t count = 0;
  if (!in.get(count) || !in.fits(count, sizeof(uint32_t))) return Error("its stack count is past its end");
  stacks_.resize(count);
  for (std::vector<Frame> &stack : stacks_) {
    uint32_t frames = 0;
    if (!in.get(frames) || !in.fits(frames, kFrameBytes)) return Error("a stack runs past its end");
    stack.resize(frames);
    for (Frame &f : stack) {
      if (!in.get(f.ip) || !in.get(f.off) || !in.get(f.sym) || !in.get(f.file) || !in.get(f.object) ||
          !in.get(f.line) || !in.get(f.flags))
        return Error("a frame runs past its end");
      if (f.sym >= strings_.size() || f.file >= strings_.size() || f.object >= strings_.size())
        return Error("a frame names a string it does not have");
    }
  }
  return Ok{};
}

Status UserStackTable::decode_entries(PayloadReader &in) {
  uint64_t count = 0;
  if (!in.get(count) || !in.fits(count, kEntryBytes)) return Error("its event count is past its end");
  entries_.resize(count);
  for (Entry &e : entries_) {
    if (!in.get(e.time_ns) || !in.get(e.cpu) || !in.get(e.pid) || !in.get(e.stack)) return Error("an event runs past its end");
    if (e.stack >= stacks_.size()) return Error("an event names a stack it does not have");
  }
  if (!in.at_end()) return Error("bytes follow its last event");
  // By (time, cpu, thread): attach() looks them up as the events come.
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry &a, const Entry &b) {
    return std::tie(a.time_ns, a.cpu, a.pid) < std::tie(b.time_ns, b.cpu, b.pid);
  });
  taken_.assign(entries_.size(), false);
  return Ok{};
}

Result<UserStackTable> UserStackTable::decode(std::string_view payload) {
  PayloadReader in(payload);
  char magic[sizeof kMagic];
  uint32_t version = 0, order = 0;
  for (char &c : magic)
    if (!in.get(c)) return Error("it is shorter than its header");
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) return Error("it does not start with kprobe-probe's mark");
  if (!in.get(version) || !in.get(order)) return Error("it is shorter than its header");
  if (order != kByteOrder) return Error("it was written in the other byte order");
  if (version != kVersion) return Error("its layout version " + std::to_string(version) + " is not known here");
  UserStackTable t;
  if (Status s = t.decode_strings(in); !s) return std::move(s).error();
  if (Status s = t.decode_stacks(in); !s) return std::move(s).error();
  if (Status s = t.decode_entries(in); !s) return std::move(s).error();
  return t;
}

StackFrame UserStackTable::frame_of(const Frame &f) const {
  StackFrame out;
  out.ip = f.ip;
  out.off = f.off;
  out.sym = strings_[f.sym];
  out.file = strings_[f.file];
  out.object = strings_[f.object];
  out.line = f.line;
  out.user = f.flags & kUser;
  out.inlined = f.flags & kInlined;
  return out;
}

std::optional<std::vector<StackFrame>> UserStackTable::take(const Event &event) {
  auto key = std::make_tuple(event.time_ns, static_cast<int32_t>(event.cpu), static_cast<int32_t>(event.pid));
  auto at = std::lower_bound(entries_.begin(), entries_.end(), key, [](const Entry &e, const auto &k) {
    return std::tie(e.time_ns, e.cpu, e.pid) < k;
  });
  for (; at != entries_.end() && std::tie(at->time_ns, at->cpu, at->pid) == key; ++at) {
    size_t i = static_cast<size_t>(at - entries_.begin());
    if (taken_[i]) continue;
    taken_[i] = true;
    std::vector<StackFrame> frames;
    for (const Frame &f : stacks_[at->stack]) frames.push_back(frame_of(f));
    return frames;
  }
  return std::nullopt;
}

Status RecordedUserStacks::on_event(const Event &event) {
  std::optional<std::vector<StackFrame>> frames = table_.take(event);
  if (!frames) return downstream_->on_event(event);
  with_stack_ = event;  // into storage it already has
  for (StackFrame &f : *frames) with_stack_.stack.push_back(std::move(f));
  return downstream_->on_event(with_stack_);
}

}  // namespace kpp
