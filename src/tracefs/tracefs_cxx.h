// Include this instead of <tracefs/tracefs.h> from C++.
//
// libtracefs 1.6's header has no extern "C" guard, and one inline helper
// (tracefs_hist_start & co.) passes an int where C++ wants the enum
// tracefs_hist_command. We wrap the header in extern "C" and route that one
// call through a C++ overload taking int, which forwards to the real C
// function with the enum cast.
#pragma once

#include <traceevent/event-parse.h>

struct tracefs_instance;
struct tracefs_hist;

// Declared before the header so its inline helpers pick this overload.
int kpp_tracefs_hist_command(struct tracefs_instance *instance, struct tracefs_hist *hist, int cmd);

#define tracefs_hist_command kpp_tracefs_hist_command
extern "C" {
#include <tracefs/tracefs.h>
}
#undef tracefs_hist_command

extern "C" int tracefs_hist_command(struct tracefs_instance *instance, struct tracefs_hist *hist,
                                    enum kpp_tracefs_hist_command cmd);

inline int kpp_tracefs_hist_command(struct tracefs_instance *instance, struct tracefs_hist *hist, int cmd) {  // NOLINT
  return tracefs_hist_command(instance, hist, static_cast<enum kpp_tracefs_hist_command>(cmd));
}
