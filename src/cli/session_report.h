// What trace, record, live and demo share around a Session: options from the
// command line, the summary on stderr, the exit status.
#pragma once

#include <memory>

#include "dwarf/opened_files.h"
#include "src/cli/cli_options.h"
#include "src/definition/trace_definition.h"
#include "src/stream/session.h"

namespace kpp {

// The session the command line asks for; the companions are recognised from
// the definitions tracefs lists (when it can be read).
SessionOptions session_options_from(const CliOptions &options, CommandOutput command_output);

// --stack's options of `options` into `s`: stack, user_stack, stack_window,
// and with --stack the unwinder (DWARF) and the symbolizer that names the
// frames (this boot's kallsyms and DWARF vmlinux, the programs' maps).
void set_stack_options(const CliOptions &options, SessionOptions &s, const std::vector<TraceDefinition> &definitions);

// The sites of the definitions of the events `patterns` name (-e), for
// events to say which site fired (debug info opened once per program, from `files`,
// which other readers of the same probes may share).
EventSites event_sites(const std::vector<TraceDefinition> &definitions, const std::vector<std::string> &patterns,
                       std::shared_ptr<dwarf::OpenedFiles> files);

// The enumerators of the enum-typed fields (value_fixup.h's q<handle> step)
// of the uprobe events `patterns` name, from their programs' DWARF: a type
// is kept only when the handle names an enumeration there that fits the
// field. Kprobes' enums are left as numbers.
EventEnums event_enums(const std::vector<TraceDefinition> &definitions, const std::vector<std::string> &patterns,
                       dwarf::OpenedFiles &files);

// The summary's notes and warnings (stale instances removed, events lost).
void report_session_notes(const SessionSummary &summary);

// Warnings and notes, then "123 events (interrupted); prog exited 7" unless quiet.
void report_session(const SessionSummary &summary, bool quiet);

// The traced command's status (its exit code, 128+N when signal N killed
// it), as shells report it; 0 without a command.
int exit_status_of(const SessionSummary &summary);

}  // namespace kpp
