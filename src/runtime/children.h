// What each --deep child does once forked (src/runtime/runner.cpp forks them): load the
// first candidate that loads, call the library, and write every step on the result channel
// (src/runtime/protocol.h). Only ever run in a child: a library that hangs, crashes or
// prints ends or soils that child alone.
#pragma once

#include <string>
#include <vector>

namespace rocdoc::runtime {

/// Each returns the child's exit status (0 when it wrote its "end" line).
int hip_child(const std::vector<std::string>& candidates, int result_fd);
int smi_child(const std::vector<std::string>& candidates, int result_fd);
int hsa_child(const std::vector<std::string>& candidates, int result_fd);
int amdsmi_child(const std::vector<std::string>& candidates, int result_fd);

}  // namespace rocdoc::runtime
