// The progress line of debuginfod downloads on a terminal (a vmlinux is
// ~600 MB): shown on stderr when it is a terminal and the file is large.
#pragma once

namespace kpp {

// Installs the progress callback of dwarf/debuginfod.h when stderr is a
// terminal; does nothing otherwise (scripts and pipes get no \r lines).
void show_download_progress_on_terminal();

}  // namespace kpp
