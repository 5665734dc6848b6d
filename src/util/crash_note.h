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
// The working process: what reads the files it opens, when not the DWARF
// reader ("the trace.dat reader (libtracecmd)"), for the supervisor's hint.
void note_reader(std::string_view reader);
// The working process: it is about to write probe or event definitions.
void note_tracefs_changed();

// The working process: the probes it writes, or holds to remove at its end
// (by "group:event"), which the supervisor removes if it dies. mark() and
// truncate() undo a write that failed; clear() when they are the user's to
// keep (a plain --add) or were removed.
size_t noted_probes_mark();
void note_probes_written(const std::vector<std::string> &names);
void note_probes_truncate(size_t mark);
inline void note_probes_clear() { note_probes_truncate(0); }

// The working process: the bytes that give the terminal back (the live
// view's leaving the alternate screen and showing the cursor, from terminfo),
// written by the supervisor if it dies; empty when the view ended.
void note_terminal_restore(std::string_view bytes);

// The supervisor, after the working process died: the files it opened last
// (oldest first, at most 4), and whether it had begun to change tracefs.
std::vector<std::string> noted_files();
bool noted_tracefs_changed();
// The probes noted, and how many more did not fit in the note.
std::vector<std::string> noted_probes(size_t *not_noted);
std::string noted_terminal_restore();
std::string noted_reader();  // empty: the DWARF reader

}  // namespace kpp
