// Tracefs: the one gateway through which the tool reads and writes tracefs
// files (kprobe_events, uprobe_events, error_log, the events' enable and
// trigger files, instances' files). Paths are relative to its root, so a
// test can point the whole tool at a scratch tree of plain files
// (Tracefs::use_root); libtracefs is pointed at the same root for the calls
// that still go through it (instances, the per-CPU buffers, formats).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kpp {

class Tracefs {
 public:
  explicit Tracefs(std::string root) : root_(std::move(root)) {}

  // The tracefs in use: the root use_root() set, else the mounted one
  // (mounted first when we are root: ensure_tracefs()).
  static Result<Tracefs> open();
  // Every later open(), ensure_tracefs() and libtracefs call uses `root`
  // (a scratch tree in tests); "" goes back to the mounted tracefs.
  static Status use_root(const std::string &root);
  // The root use_root() set; "" when none.
  static const std::string &injected_root();
  // The tracefs already mounted (the injected root first); never mounts.
  static std::optional<Tracefs> mounted();
  // Where tracefs is, mounted or not: the injected root alone, else
  // /sys/kernel/tracing and debugfs's tracing/ (reading which mounts it).
  static std::vector<Tracefs> usual_places();

  const std::string &root() const { return root_; }
  std::string path(const std::string &relative) const { return root_ + "/" + relative; }

  // The whole file; a missing or unreadable file reads as empty (a kernel
  // without uprobes has no uprobe_events).
  std::string read(const std::string &relative) const;
  // The whole file, or why it cannot be read (the error names the path).
  Result<std::string> read_whole(const std::string &relative) const;
  // At most `cap` bytes of the file into `text` (`truncated` set when there
  // was more); false when it cannot be opened or read. Symbolic links are
  // not followed: tracefs has none.
  bool read_capped(const std::string &relative, size_t cap, std::string &text, bool *truncated = nullptr) const;
  // One write(2) of `text` (a command: the kernel takes each write whole),
  // to the end of the file, or replacing it. 0, or the errno of the failed
  // open or write (errno is left set too).
  int append(const std::string &relative, const std::string &text) const;
  int write(const std::string &relative, const std::string &text) const;
  bool exists(const std::string &relative) const;
  // The names in a directory (instances/), dot-files left out, at most `max`.
  std::vector<std::string> entries(const std::string &relative, size_t max) const;
  // The sorted names of a directory's subdirectories (events/SYSTEM/).
  std::vector<std::string> subdirectories(const std::string &relative) const;

 private:
  std::string root_;
};

}  // namespace kpp
