// kprobe-probe: parse the command line, run the command, print any error once.
#include <cstdio>

#include "src/cli/cli_options.h"
#include "src/cli/commands.h"
#include "src/spec/error_format.h"
#include "src/stream/trace_instance.h"

int main(int argc, char **argv) {
  using kpp::CliOptions;
  auto options = kpp::parse_cli(argc, argv);
  if (!options) {
    std::fputs(kpp::format_error(options.error()).c_str(), stderr);
    return 1;
  }
  // Instances are removed by their destructors; this covers paths that skip them.
  kpp::install_trace_instance_cleanup_at_exit();
  kpp::Status status = kpp::Ok{};
  switch (options->command) {
    case CliOptions::Command::Help: std::fputs(kpp::usage_text(), stdout); return 0;
    case CliOptions::Command::Version: std::printf("kprobe-probe %s\n", KPP_VERSION); return 0;
    case CliOptions::Command::Probe: status = kpp::run_probe_command(*options); break;
    case CliOptions::Command::Trace: status = kpp::run_trace_command(*options); break;
    case CliOptions::Command::Record: status = kpp::run_record_command(*options); break;
    case CliOptions::Command::Report: status = kpp::run_report_command(*options); break;
    case CliOptions::Command::Demo: status = kpp::run_demo_command(*options); break;
    case CliOptions::Command::Live: status = kpp::run_live_command(*options); break;
    case CliOptions::Command::Hist: status = kpp::run_hist_command(*options); break;
  }
  if (!status) {
    std::fputs(kpp::format_error(status.error()).c_str(), stderr);
    return 1;
  }
  return 0;
}
