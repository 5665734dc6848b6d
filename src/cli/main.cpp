// kprobe-probe: parse the command line, run the command, print any error once.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <optional>

#include "dwarf/debug_info.h"
#include "dwarf/debuginfod.h"
#include "src/cli/cli_options.h"
#include "src/cli/commands.h"
#include "src/cli/download_progress.h"
#include "src/cli/supervisor.h"
#include "src/spec/error_format.h"
#include "src/stream/stop_signal.h"
#include "src/stream/trace_instance.h"

namespace {

// A size claimed by a damaged file that the checks before it did not bound
// (dwarf/elf/elf_bounds.h) ends as an error with status 1, not an abort.
[[noreturn]] void on_uncaught_exception() {
  try {
    if (std::current_exception()) std::rethrow_exception(std::current_exception());
  } catch (const std::bad_alloc &) {
    std::fputs(kpp::format_error(kpp::Error("out of memory",
                                            "a file's debug information may claim sizes it does not have"))
                   .c_str(),
               stderr);
    std::exit(1);  // atexit handlers still remove trace instances
  } catch (...) {
  }
  std::abort();
}

}  // namespace

int main(int argc, char **argv) {
  std::set_terminate(on_uncaught_exception);
  using kpp::CliOptions;
  auto options = kpp::parse_cli(argc, argv);
  if (!options) {
    std::fputs(kpp::format_error(options.error()).c_str(), stderr);
    return 1;
  }
  // From here on a child does the work, and this process answers for it if it crashes.
  kpp::run_supervised();
  // Instances are removed by their destructors; this covers paths that skip them.
  kpp::install_trace_instance_cleanup_at_exit();
  // trace, record and live catch their stop signals from here on: a signal
  // while they set up ends the session cleanly once it starts.
  std::optional<kpp::StopSignalScope> stop_signals;
  if (options->command == CliOptions::Command::Trace || options->command == CliOptions::Command::Record ||
      options->command == CliOptions::Command::Live || options->command == CliOptions::Command::Export ||
      options->command == CliOptions::Command::Hist)
    stop_signals.emplace();
  kpp::show_download_progress_on_terminal();  // debuginfod downloads
  kpp::dwarf::set_debuginfod_cancel(&kpp::stop_requested);  // Ctrl-C ends one within ~50 ms
  kpp::Status status = kpp::Ok{};
  int exit_status = 0;
  // trace, record, live, hist: the traced command's status is ours.
  auto session_command = [&](kpp::Result<int> r) {
    if (r) exit_status = *r;
    else status = std::move(r).error();
  };
  // A file whose DWARF LLVM must not read ends the command where it was met
  // (DamagedDwarf, dwarf/debug_info.h): its message, status 1.
  try {
    switch (options->command) {
      case CliOptions::Command::Help: std::fputs(kpp::usage_text(), stdout); return 0;
      case CliOptions::Command::Version: std::printf("kprobe-probe %s\n", KPP_VERSION); return 0;
      case CliOptions::Command::Probe: status = kpp::run_probe_command(*options); break;
      case CliOptions::Command::Trace: session_command(kpp::run_trace_command(*options)); break;
      case CliOptions::Command::Record: session_command(kpp::run_record_command(*options)); break;
      case CliOptions::Command::Report: status = kpp::run_report_command(*options); break;
      case CliOptions::Command::Demo: status = kpp::run_demo_command(*options); break;
      case CliOptions::Command::Live: session_command(kpp::run_live_command(*options)); break;
      case CliOptions::Command::Export: session_command(kpp::run_export_command(*options)); break;
      case CliOptions::Command::Hist: session_command(kpp::run_hist_command(*options)); break;
    }
  } catch (const kpp::dwarf::DamagedDwarf &damaged) {
    status = damaged.error();
  }
  if (!status) {
    std::fputs(kpp::format_error(status.error()).c_str(), stderr);
    return 1;
  }
  return exit_status;
}
