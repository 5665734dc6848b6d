#include "util/crash_note.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

namespace kpp {

namespace {

// The last few paths in a ring: a crash in the DWARF is nearly always in the
// file opened last (the debug file after its program), but a run over a
// kernel's modules opens hundreds.
constexpr size_t kSlots = 4, kPathBytes = 1000;

struct Note {
  unsigned opened;  // paths noted so far; the newest is in slot (opened - 1) % kSlots
  bool tracefs_changed;
  char paths[kSlots][kPathBytes];
};

Note *g_note = nullptr;

}  // namespace

bool share_crash_note() {
  void *page = mmap(nullptr, sizeof(Note), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return false;
  g_note = static_cast<Note *>(page);  // zero-filled
  return true;
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
