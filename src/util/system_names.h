// Symbolic names of errno values and signals ("EACCES", "SIGSEGV"), from rocdoc's own tables:
// glibc's strerrorname_np and sigabbrev_np exist only from 2.32, and the release binary runs
// on glibc 2.31 (scripts/build-release.sh).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rocdoc::util {

/// "EACCES"; "E" + the number for a value the table does not know.
std::string errno_symbol(int error);
/// "SIGSEGV"; the number for a signal the table does not know.
std::string signal_symbol(int signal);

/// Whether /etc/nsswitch.conf asks the files (/etc/passwd, /etc/group) first for `database`
/// ("passwd", "group"): "files" or "compat" is its first source. Then a name found in the file
/// is what getpwuid(3) / getgrgid(3) would answer, without their tries of nscd's socket first.
bool nss_asks_files_first(std::string_view nsswitch, std::string_view database);

/// The name of `id` in an /etc/passwd or /etc/group text ("name:x:id:...") as NSS's files
/// source finds it: the first line with that id, blank and '#' lines skipped; nullopt when no
/// line has it, or a NIS line ('+' or '-') comes first.
std::optional<std::string> name_of_id(std::string_view file, std::uint32_t id);

/// Closes every descriptor from `first` up (close_range(2), or one by one where the kernel
/// lacks it); glibc's closefrom exists only from 2.34. Safe between fork and exec.
void close_descriptors_from(int first);

}  // namespace rocdoc::util
