// trial_read: reads a trace.dat once in a child process, all of it, before
// the real read. libtracecmd and libtraceevent trust the file: the sizes
// and offsets of its headers and options, and the commit word and event
// lengths of each ring-buffer page (libtraceevent's kbuffer_load_subbuffer
// reads the "lost events" count at the page's start plus its commit size,
// wherever that is). A damaged file can make either die of a signal. In a
// child that costs nothing: the child's death names the file as damaged,
// and says how far it got, before anything here has read it.
// Internal to kpp_tracedat.
#pragma once

#include <string>

#include "util/result.h"

namespace kpp::tracedat {

// Ok when libtracecmd opens `path` and walks every event of every buffer in
// it without dying (it may still refuse the file: the real read says why),
// or when no child can be started (the supervisor answers for a crash).
// An error naming the file, what libtracecmd was reading and how many
// events it had read, when the child died of a signal.
Status trial_read(const std::string &path);

}  // namespace kpp::tracedat
