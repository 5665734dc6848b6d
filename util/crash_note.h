// What the working process leaves for its supervisor (src/cli/supervisor.h)
// to say if it dies: the files it opened last, and whether it had begun to
// change tracefs.
//
// LLVM reads the DWARF of files the tool does not own. The checks before it
// (dwarf/elf/elf_bounds.h, dwarf/raw/die_stream_check.h) refuse every damage known to
// crash it, but a crash they miss must still end as an error that names the
// file, not as a bare "Segmentation fault". The note lives in a page shared
// with the supervisor, written with plain stores (the supervisor reads it
// only after the writer is dead). Without a supervisor every call is a no-op.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kpp {

// Maps the shared page; call before fork(). False when it cannot be mapped
// (the run goes on without a note).
bool share_crash_note();

// The working process: a file was opened for reading (its ELF or DWARF).
void note_file_opened(std::string_view path);
// The working process: it is about to write probe or event definitions.
void note_tracefs_changed();

// The supervisor, after the working process died: the files it opened last
// (oldest first, at most 4), and whether it had begun to change tracefs.
std::vector<std::string> noted_files();
bool noted_tracefs_changed();

}  // namespace kpp
