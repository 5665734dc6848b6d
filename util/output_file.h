// Files the tool creates where the user says (record -o, the live view's
// 'w'): it runs as root, often in directories other users can write, so the
// file must be its own (issue 12 item 2).
#pragma once

#include <sys/types.h>

#include <string>

#include "util/result.h"
#include "util/unique_fd.h"

namespace kpp {

// Creates `path` afresh and returns it open for writing, as trace-cmd
// does (mode 0644 less the umask), but never through what someone planted:
// the file is made under a temporary name in the same directory with
// O_CREAT|O_EXCL|O_NOFOLLOW, then renamed onto `path`. A rename replaces the
// directory entry, not what it points to, so a symbolic link or a hard link
// to another file at `path` is never written through (and an old file of
// that name is replaced whole, not truncated in place).
// Refused, with a message naming `path`, before anything is created: an
// existing `path` that is a symbolic link (the user may have meant its
// target: they are told to name it), a directory, a FIFO, a device or a
// socket (`-o /dev/null` is not turned into a regular file).
Result<UniqueFd> create_output_file(const std::string &path, mode_t mode = 0644);

}  // namespace kpp
