// Symbolic names of errno values and signals ("EACCES", "SIGSEGV"), from rocdoc's own tables:
// glibc's strerrorname_np and sigabbrev_np exist only from 2.32, and the release binary runs
// on glibc 2.31 (scripts/build-release.sh).
#pragma once

#include <string>

namespace rocdoc::util {

/// "EACCES"; "E" + the number for a value the table does not know.
std::string errno_symbol(int error);
/// "SIGSEGV"; the number for a signal the table does not know.
std::string signal_symbol(int signal);

/// Closes every descriptor from `first` up (close_range(2), or one by one where the kernel
/// lacks it); glibc's closefrom exists only from 2.34. Safe between fork and exec.
void close_descriptors_from(int first);

}  // namespace rocdoc::util
