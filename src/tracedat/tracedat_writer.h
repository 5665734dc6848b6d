// TraceDatWriter: an EventSink that records the stream's raw ring-buffer
// pages into trace-cmd's trace.dat, version 6 (the version every reader --
// trace-cmd report, KernelShark, libtracecmd -- opens). Pages are copied as
// read, never re-encoded; readers decode them with the format files stored
// in the header.
//
// Layout (../shared/REFERENCE.md section 2): the initial header, header_page
// and header_event, ftrace formats, the formats of every event in the
// recorded systems (probe groups), kallsyms, printk formats, saved cmdlines,
// the CPU count, options (trace clock, uname, CPU count), then "flyrecord"
// with one page-aligned block of pages per CPU.
//
// While recording, each CPU's pages go to an anonymous temporary file next
// to the output; finish() writes the header with the final offsets and
// copies the blocks in. So the file is complete and valid after finish(),
// which the session calls on every stop path (command exit, --duration,
// SIGINT/SIGTERM/SIGHUP/SIGPIPE, errors). A process killed with SIGKILL
// leaves an empty file. A failed write (ENOSPC, EIO) stops recording; the
// file is still finished, readable, from the complete pages kept (versions
// 6 and 7: make_room() in the .cpp). Version 7 (sections, optional zstd/zlib compression) is written by
// tracedat_v7.h from the same temporary files. User stacks unwound from
// DWARF, which no page holds, go in an option of their own (user_stack_table.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/stream/event_sink.h"
#include "src/tracedat/tracedat_metadata.h"
#include "src/tracedat/user_stack_table.h"
#include "util/result.h"

namespace kpp {

struct TraceDatOptions {
  bool with_kallsyms = true;  // kernel symbols, to resolve kernel probe addresses
  int file_version = 6;       // 6 or 7
  std::string compression;    // version 7 only: "zstd", "zlib", "none" or "" (none)
  // The events' user stacks that are not in the pages (DWARF-unwound:
  // `record --stack`), kept in an option of the file (user_stack_table.h).
  bool user_stacks = false;
};

class TraceDatWriter : public EventSink {
 public:
  // Creates `path` afresh now (create_output_file: never through a link), so a bad path fails before tracing
  // starts. Errors: cannot create the file, unsupported file version or
  // compression, compression asked for version 6.
  static Result<std::unique_ptr<TraceDatWriter>> create(const std::string &path, TraceDatOptions options = {});
  ~TraceDatWriter() override;

  // Events only for their user stacks (TraceDatOptions::user_stacks).
  bool wants_events() const override { return options_.user_stacks; }
  bool wants_pages() const override { return true; }
  Status on_event(const Event &event) override;
  // Reads the format files and opens one temporary data file per CPU.
  Status on_start(const StreamInfo &info) override;
  // Appends one page to `cpu`'s block. Error: write failed (disk full...).
  Status on_page(int cpu, std::span<const uint8_t> page) override;
  Status on_finish() override { return finish(); }

  // Writes the finished file. Idempotent: later calls return the first
  // result. Without on_start (nothing recorded) it is an error.
  Status finish();

  uint64_t pages() const { return pages_; }
  // Pages recorded but left out after a write error, to fit the file on the disk.
  uint64_t dropped_pages() const { return dropped_pages_; }
  // Things the user should know about the file being written, found by
  // create(): a compression the installed trace-cmd cannot read.
  const std::vector<std::string> &warnings() const { return warnings_; }
  const std::string &path() const { return path_; }

 private:
  TraceDatWriter(std::string path, int fd, TraceDatOptions options)
      : path_(std::move(path)), out_fd_(fd), options_(options) {}
  Status write_file();
  void make_room();
  Status sync_output();

  std::string path_;
  int out_fd_ = -1;
  TraceDatOptions options_;
  StreamInfo info_;
  tracedat::Metadata meta_;
  UserStackTable user_stacks_;
  std::vector<int> cpu_fds_;
  std::vector<uint64_t> cpu_bytes_;
  std::vector<std::string> warnings_;
  uint64_t pages_ = 0;
  bool started_ = false, finished_ = false;
  std::unique_ptr<Status> result_;
  std::unique_ptr<Status> write_error_;  // the first failed page write: recording stopped there
  uint64_t dropped_pages_ = 0;           // pages given up to make room for the file's head
};

// Builds the bytes that precede the CPU data of a version 6 file: the
// headers, all metadata, options and the flyrecord table for CPU blocks of
// `cpu_bytes` sizes placed page-aligned after it. Exposed for tests.
std::string build_tracedat_v6_head(const tracedat::Metadata &meta, int page_size,
                                   const std::vector<uint64_t> &cpu_bytes,
                                   std::vector<uint64_t> &cpu_offsets);

}  // namespace kpp
