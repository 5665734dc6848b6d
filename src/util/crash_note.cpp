#include "src/util/crash_note.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

namespace kpp {

namespace {

// The last few paths in a ring: a crash in the DWARF is nearly always in the
// file opened last (the debug file after its program), but a run over a
// kernel's modules opens hundreds.
constexpr size_t kSlots = 4, kPathBytes = 1000;

constexpr size_t kTerminalBytes = 256, kReaderBytes = 80;

struct Note {
  unsigned opened;  // paths noted so far; the newest is in slot (opened - 1) % kSlots
  bool tracefs_changed;
  char paths[kSlots][kPathBytes];
  size_t terminal_len;
  char terminal[kTerminalBytes];
  char reader[kReaderBytes];
};

// Probe names, one a line: 1,500 probes of long names fit in a fraction of
// it, and untouched pages cost nothing.
constexpr size_t kProbeBytes = 4u << 20;

struct ProbeNote {
  size_t used;      // bytes of names
  size_t dropped;   // names that did not fit
  char names[kProbeBytes - 2 * sizeof(size_t)];
};

Note *g_note = nullptr;
ProbeNote *g_probes = nullptr;

}  // namespace

bool share_crash_note() {
  void *page = mmap(nullptr, sizeof(Note), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return false;
  g_note = static_cast<Note *>(page);  // zero-filled
  void *probes = mmap(nullptr, sizeof(ProbeNote), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (probes != MAP_FAILED) g_probes = static_cast<ProbeNote *>(probes);
  return true;
}

size_t noted_probes_mark() { return g_probes ? g_probes->used : 0; }

void note_probes_written(const std::vector<std::string> &names) {
  if (!g_probes) return;
  for (const std::string &name : names) {
    if (g_probes->used + name.size() + 1 > sizeof g_probes->names || name.find('\n') != std::string::npos) {
      ++g_probes->dropped;
      continue;
    }
    std::memcpy(g_probes->names + g_probes->used, name.data(), name.size());
    g_probes->names[g_probes->used + name.size()] = '\n';
    g_probes->used += name.size() + 1;
  }
}

void note_probes_truncate(size_t mark) {
  if (!g_probes || mark > g_probes->used) return;
  g_probes->used = mark;
  if (mark == 0) g_probes->dropped = 0;
}

std::vector<std::string> noted_probes(size_t *not_noted) {
  std::vector<std::string> names;
  if (not_noted) *not_noted = g_probes ? g_probes->dropped : 0;
  if (!g_probes) return names;
  size_t used = std::min(g_probes->used, sizeof g_probes->names), at = 0;
  while (at < used) {
    const char *end = static_cast<const char *>(std::memchr(g_probes->names + at, '\n', used - at));
    if (!end) break;
    names.emplace_back(g_probes->names + at, static_cast<size_t>(end - (g_probes->names + at)));
    at = static_cast<size_t>(end - g_probes->names) + 1;
  }
  return names;
}

void note_reader(std::string_view reader) {
  if (!g_note) return;
  size_t n = std::min(reader.size(), kReaderBytes - 1);
  std::memcpy(g_note->reader, reader.data(), n);
  g_note->reader[n] = '\0';
}

std::string noted_reader() { return g_note ? std::string(g_note->reader) : ""; }

void note_terminal_restore(std::string_view bytes) {
  if (!g_note) return;
  size_t n = bytes.size() <= kTerminalBytes ? bytes.size() : 0;  // a partial sequence would do harm
  std::memcpy(g_note->terminal, bytes.data(), n);
  g_note->terminal_len = n;
}

std::string noted_terminal_restore() {
  if (!g_note) return "";
  return std::string(g_note->terminal, std::min(g_note->terminal_len, kTerminalBytes));
}

void note_file_opened(std::string_view path) {
  if (!g_note) return;
  size_t n = std::min(path.size(), kPathBytes - 1);
  if (g_note->opened > 0) {
    const char *newest = g_note->paths[(g_note->opened - 1) % kSlots];
    if (std::strlen(newest) == n && std::memcmp(newest, path.data(), n) == 0) return;
  }
  char *slot = g_note->paths[g_note->opened % kSlots];
  std::memcpy(slot, path.data(), n);
  slot[n] = '\0';
  ++g_note->opened;
}

void note_tracefs_changed() {
  if (g_note) g_note->tracefs_changed = true;
}

std::vector<std::string> noted_files() {
  std::vector<std::string> files;
  if (!g_note) return files;
  unsigned first = g_note->opened > kSlots ? g_note->opened - kSlots : 0;
  for (unsigned i = first; i < g_note->opened; ++i) files.emplace_back(g_note->paths[i % kSlots]);
  return files;
}

bool noted_tracefs_changed() { return g_note && g_note->tracefs_changed; }

}  // namespace kpp
