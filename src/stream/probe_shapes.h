// The probe events among parsed format files (a live stream's or a
// trace.dat's), as the companion recogniser takes them: kprobe and uprobe
// events have "__probe_ip", their return probes "__probe_func".
#pragma once

#include <vector>

#include "src/stream/companions.h"

struct tep_handle;

namespace kpp {

std::vector<ProbeShape> probe_shapes_of(tep_handle *tep);

}  // namespace kpp
