// The process the user starts stands by while a child does the work.
//
// LLVM reads the DWARF of files the tool does not own. The checks before it
// (dwarf/elf/elf_bounds.h, dwarf/raw/die_stream_check.h) refuse every damage known to
// crash it, but a fault they miss -- in LLVM or in our code -- must still
// end as an error that names the file and leaves tracefs as it was, not as a
// bare "Segmentation fault" and an enabled instance (issue 12 item 4).
//
// So the work runs in a child, and the process the user started, waits for
// and signals only waits for it:
//   - the child's exit status is its own (a traced command's included);
//   - SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE sent to it are passed on
//     to the child (a terminal's reach both: the second is harmless, since
//     the child defers or flags them, or dies of the first);
//   - a child that dies of one of those leaves it dying of the same signal,
//     as before, so a shell sees what it sent;
//   - a child that crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, ...) or
//     is killed (SIGKILL: the out-of-memory killer) is reported as an error
//     naming the files it opened last (util/crash_note.h) and what it
//     had written; its tracefs instance is removed, and the command it traced
//     is ended (this process is their subreaper), and the terminal's modes
//     are put back (the live view's crash leaves no echo). A crash exits with status 1,
//     as any error; SIGKILL is passed on;
//   - a SIGKILL of this process kills the child too (PR_SET_PDEATHSIG), as a
//     SIGKILL of the tool always did: the next run removes the instance.
// The instance is named after this process (util/tool_pid.h). The fork
// comes before anything is read: it costs ~0.5 ms (the child faults in
// again the pages of the start-up it uses).
#pragma once

namespace kpp {

// Returns in the child, which does the work. The calling process does not
// return: it ends as the child ended. When fork fails, returns in the
// calling process, which then works unsupervised.
void run_supervised();

}  // namespace kpp
