// The probe events tracefs defines, as the companion recogniser takes them
// (src/stream/companions.h): with their binaries and sites, so that only a
// set the builder wrote -- same entry site, owner in the same binary -- is
// taken as an entry-value companion set.
#pragma once

#include <vector>

#include "src/definition/trace_definition.h"
#include "src/stream/companions.h"

namespace kpp {

std::vector<ProbeShape> probe_shapes(const std::vector<TraceDefinition> &definitions);

}  // namespace kpp
