#include "src/stream/perf_user_stacks.h"

#include <linux/perf_event.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/strings.h"  // hex()

namespace kpp {

namespace {

// The user registers a CFI unwinder reads, in perf's numbering
// (arch/x86/include/uapi/asm/perf_regs.h): ax bx cx dx si di bp sp ip
// (0-8) and r8-r15 (16-23). Flags and segments are left out.
#if defined(__x86_64__)
constexpr uint64_t kRegsMask = 0x1ffull | (0xffull << 16);
#else
constexpr uint64_t kRegsMask = 0;
#endif

constexpr uint64_t kSampleType =
    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_REGS_USER |
    PERF_SAMPLE_STACK_USER;

int perf_event_open(perf_event_attr *attr, int cpu, int group_fd) {
  return static_cast<int>(syscall(SYS_perf_event_open, attr, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC));
}

// perf's uprobe PMU type (/sys/bus/event_source/devices/uprobe/type), or -1.
int uprobe_pmu_type() {
  FILE *f = std::fopen("/sys/bus/event_source/devices/uprobe/type", "r");
  int type = -1;
  if (f && std::fscanf(f, "%d", &type) != 1) type = -1;
  if (f) std::fclose(f);
  return type;
}

// A sampling uprobe at `site`: config bit 0 is "retprobe", config1 the
// path, config2 the offset (the PMU's format files say so).
perf_event_attr sample_attr(int pmu, const UprobeSite &site, size_t window) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = static_cast<uint32_t>(pmu);
  a.config = site.retprobe ? 1 : 0;
  a.config1 = reinterpret_cast<uint64_t>(site.path.c_str());
  a.config2 = site.offset;
  a.sample_period = 1;
  a.sample_type = kSampleType;
  a.sample_regs_user = kRegsMask;
  a.sample_stack_user = static_cast<uint32_t>(window);
  a.disabled = 1;
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;
  a.watermark = 1;
  return a;
}

std::vector<int> online_cpus() {
  std::vector<int> cpus;
  long n = sysconf(_SC_NPROCESSORS_CONF);
  for (int cpu = 0; cpu < n; ++cpu) cpus.push_back(cpu);
  return cpus;
}

// Reads a u64 at `p` (records are 8-byte aligned, scratch copies too).
uint64_t u64_at(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

uint64_t UserStackSample::reg(int perf_reg) const {
  if (perf_reg < 0 || perf_reg > 63 || !(regs_mask >> perf_reg & 1)) return 0;
  size_t index = static_cast<size_t>(std::popcount(regs_mask & ((uint64_t{1} << perf_reg) - 1)));
  return index < regs.size() ? regs[index] : 0;
}

Result<std::unique_ptr<PerfUserStacks>> PerfUserStacks::open(const PerfUserStacksOptions &options) {
  if (kRegsMask == 0) return Error("DWARF user stacks are only read on x86_64 for now", "use --user-stack=fp");
  if (options.window == 0 || options.window % 8 || options.window > 65528 - 512)
    return Error("the user stack window must be a multiple of 8 bytes, from 8 to 65016 (it was " +
                 std::to_string(options.window) + ")");
  std::unique_ptr<PerfUserStacks> s(new PerfUserStacks());
  s->pmu_ = uprobe_pmu_type();
  if (s->pmu_ < 0)
    return Error("this kernel has no perf uprobe PMU (/sys/bus/event_source/devices/uprobe): no DWARF user stacks",
                 "use --user-stack=fp");
  s->regs_mask_ = kRegsMask;
  s->page_size_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (int cpu : online_cpus())
    if (Status st = s->open_cpu(cpu, options); !st) return std::move(st).error();
  if (s->rings_.empty()) return Error("cannot sample user stacks: no CPU could be opened");
  for (int fd : s->fds_) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  return s;
}

Status PerfUserStacks::open_cpu(int cpu, const PerfUserStacksOptions &options) {
  Ring ring;
  ring.cpu = cpu;
  for (size_t e = 0; e < options.sites.size(); ++e) {
    const UprobeSite &site = options.sites[e];
    perf_event_attr attr = sample_attr(pmu_, site, options.window);
    size_t pages = std::bit_floor(std::max<size_t>(options.ring_kb * 1024 / page_size_, 2));
    attr.wakeup_watermark = static_cast<uint32_t>(pages * page_size_ / 8);
    if (ring.fd < 0) {
      // The first event on each CPU also tells how address spaces change.
      attr.mmap = attr.mmap2 = attr.comm = attr.comm_exec = attr.task = 1;
    }
    int fd = perf_event_open(&attr, cpu, -1);
    if (fd < 0) {
      if (errno == ENODEV || errno == ENOENT) return Ok{};  // an offline CPU
      return Error("cannot sample the user stacks at " + site.path + ":" + hex(site.offset) + " on cpu" +
                       std::to_string(cpu) + ": perf_event_open: " + std::strerror(errno),
                   errno == EACCES || errno == EPERM ? "run as root (or lower kernel.perf_event_paranoid)" : "");
    }
    fds_.push_back(fd);
    uint64_t id = 0;
    ioctl(fd, PERF_EVENT_IOC_ID, &id);
    ids_.push_back(id);
    id_event_.push_back(e);
    if (ring.fd < 0) {
      size_t bytes = (pages + 1) * page_size_;
      void *base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (base == MAP_FAILED)
        return Error("cannot map a " + std::to_string(bytes / 1024) + " KiB perf ring for cpu" + std::to_string(cpu) +
                     ": " + std::strerror(errno));
      ring.fd = fd;
      ring.base = base;
      ring.data_size = pages * page_size_;
    } else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring.fd) != 0) {
      return Error("cannot share cpu" + std::to_string(cpu) + "'s perf ring: " + std::strerror(errno));
    }
  }
  if (ring.fd >= 0) rings_.push_back(ring);
  return Ok{};
}

PerfUserStacks::~PerfUserStacks() {
  disable();
  for (Ring &r : rings_)
    if (r.base) munmap(r.base, r.data_size + page_size_);
  for (int fd : fds_) close(fd);
}

void PerfUserStacks::disable() {
  for (int fd : fds_) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

void PerfUserStacks::wait(int timeout_ms) {
  std::vector<pollfd> fds;
  for (const Ring &r : rings_) fds.push_back(pollfd{r.fd, POLLIN, 0});
  (void)::poll(fds.data(), fds.size(), timeout_ms);
}

size_t PerfUserStacks::drain(const std::function<void(const UserStackSample &)> &take,
                             const std::function<void(const ProcessChange &)> &changed) {
  size_t n = 0;
  for (Ring &r : rings_) n += drain_ring(r, take, changed);
  return n;
}

size_t PerfUserStacks::drain_ring(Ring &ring, const std::function<void(const UserStackSample &)> &take,
                                  const std::function<void(const ProcessChange &)> &changed) {
  auto *meta = static_cast<perf_event_mmap_page *>(ring.base);
  const uint8_t *data = static_cast<const uint8_t *>(ring.base) + page_size_;
  uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  size_t n = 0;
  while (tail < head) {
    size_t at = static_cast<size_t>(tail % ring.data_size);
    perf_event_header h;
    // A header never straddles the end (records are 8-byte aligned, the ring a power of two).
    std::memcpy(&h, data + at, sizeof h);
    if (h.size < sizeof h || tail + h.size > head) break;
    const uint8_t *rec = data + at;
    if (at + h.size > ring.data_size) {
      scratch_.resize(h.size);
      size_t first = ring.data_size - at;
      std::memcpy(scratch_.data(), data + at, first);
      std::memcpy(scratch_.data() + first, data, h.size - first);
      rec = scratch_.data();
    }
    if (h.type == PERF_RECORD_SAMPLE && parse_sample(rec + sizeof h, h.size - sizeof h)) {
      if (ring.lost) losses_.push_back(Loss{ring.cpu, ring.lost_after, sample_.time_ns});
      ring.lost = false;
      ring.last_time = sample_.time_ns;
      take(sample_);
      ++n;
    } else if (parse_change(h.type, h.misc, rec + sizeof h, h.size - sizeof h)) {
      changed(change_);
    } else if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
      lost_ += u64_at(rec + sizeof h + 8);
      if (!ring.lost) ring.lost_after = ring.last_time;
      ring.lost = true;
    }
    tail += h.size;
  }
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
  return n;
}

// The record's body, in PERF_SAMPLE_* bit order: identifier, pid/tid,
// time, cpu, then the user registers (abi, one u64 per mask bit) and the
// user stack (size, data, dyn_size). Returns false when it is cut short.
bool PerfUserStacks::parse_sample(const uint8_t *rec, size_t size) {
  const uint8_t *p = rec, *end = rec + size;
  auto need = [&](size_t n) { return static_cast<size_t>(end - p) >= n; };
  if (!need(32)) return false;
  uint64_t id = u64_at(p);
  p += 8;
  sample_.event = 0;
  for (size_t i = 0; i < ids_.size(); ++i)
    if (ids_[i] == id) sample_.event = id_event_[i];
  uint32_t pid_tid[2];
  std::memcpy(pid_tid, p, 8);
  sample_.pid = static_cast<int>(pid_tid[0]);
  sample_.tid = static_cast<int>(pid_tid[1]);
  sample_.time_ns = u64_at(p + 8);
  uint32_t cpu;
  std::memcpy(&cpu, p + 16, 4);
  sample_.cpu = static_cast<int>(cpu);
  p += 24;
  uint64_t abi = u64_at(p);
  p += 8;
  sample_.regs_mask = abi == PERF_SAMPLE_REGS_ABI_NONE ? 0 : regs_mask_;
  size_t nregs = static_cast<size_t>(std::popcount(sample_.regs_mask));
  if (!need(nregs * 8 + 8)) return false;
  sample_.regs.resize(nregs);
  for (size_t i = 0; i < nregs; ++i, p += 8) sample_.regs[i] = u64_at(p);
  uint64_t stack_size = u64_at(p);
  p += 8;
  sample_.stack.clear();
  if (stack_size) {
    if (!need(stack_size + 8)) return false;
    uint64_t dyn = u64_at(p + stack_size);
    sample_.stack.assign(p, p + std::min(stack_size, dyn));
  }
  sample_.sp = sample_.reg(7);  // PERF_REG_X86_SP
  return sample_.regs_mask != 0;
}

// PERF_RECORD_MMAP2: pid tid addr len pgoff maj min ino ino_generation
// prot flags filename; PERF_RECORD_COMM: pid tid comm (an exec when misc
// says so); PERF_RECORD_FORK: pid ppid tid ptid time. Threads' forks
// (pid == ppid) change nothing.
bool PerfUserStacks::parse_change(uint32_t type, uint16_t misc, const uint8_t *rec, size_t size) {
  uint32_t ids[2];
  if (size < 8) return false;
  std::memcpy(ids, rec, 8);
  change_.pid = static_cast<int>(ids[0]);
  if (type == PERF_RECORD_COMM) {
    change_.kind = ProcessChange::Exec;
    return (misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
  }
  if (type == PERF_RECORD_FORK) {
    change_.kind = ProcessChange::Fork;
    change_.parent = static_cast<int>(ids[1]);
    return change_.parent != change_.pid;
  }
  constexpr size_t kNameAt = 8 + 8 + 8 + 8 + 4 + 4 + 8 + 8 + 4 + 4;
  if (type != PERF_RECORD_MMAP2 || size <= kNameAt) return false;
  change_.kind = ProcessChange::Mapped;
  FileMapping &m = change_.mapping;
  m.start = u64_at(rec + 8);
  m.end = m.start + u64_at(rec + 16);
  m.pgoff = u64_at(rec + 24);
  const char *name = reinterpret_cast<const char *>(rec + kNameAt);
  m.path.assign(name, strnlen(name, size - kNameAt));
  return !m.path.empty() && (m.path[0] == '/' || m.path == "[vdso]");
}

}  // namespace kpp
