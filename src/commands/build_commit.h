// The git commit this binary was built from, as `rocdoc --version` prints it (generated from
// cmake/build_commit.cpp.in when CMake configures).
#pragma once

namespace rocdoc {
extern const char* const k_build_commit;
}  // namespace rocdoc
