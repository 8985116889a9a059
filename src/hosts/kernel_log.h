// The kernel log (/dev/kmsg) as rocdoc reads it: only this boot's lines that concern the GPU,
// read without blocking; nothing else of the log is ever kept.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/host.h"

namespace rocdoc {

/// What rocdoc reads of the log at most: real boots log a few thousand records.
inline constexpr std::size_t k_max_kernel_records = 100'000;
inline constexpr std::size_t k_max_kernel_lines = 2000;  ///< GPU lines kept
inline constexpr std::size_t k_max_kernel_line = 1024;   ///< bytes of one line kept

/// One /dev/kmsg record ("6,1234,7026427,-;kfd kfd: amdgpu: skipped device …\n KEY=…") as
/// dmesg prints it ("[    7.026427] kfd kfd: …") when it concerns the GPU; nullopt otherwise.
std::optional<std::string> gpu_kernel_line(std::string_view record);

/// Whether a message concerns the GPU: amdgpu, KFD, the IOMMU, radeon, Secure Boot's refusal
/// of unsigned modules.
bool is_gpu_kernel_message(std::string_view message);

/// Calls `each` with every record of klogctl(SYSLOG_ACTION_READ_ALL)'s `text` ("<6>[    7.026427]
/// msg\n", a prefix on each line of a message) as /dev/kmsg gives it: "6,0,7026427,-;msg", its
/// text escaped as the kernel escapes it there ("\x0a" between the lines of one message; the
/// sequence number is 0), and how many lines of the text it joins: consecutive lines with the
/// same prefix are one record (a message of several lines, or two messages of the same
/// microsecond). False, after the records before it, at a line without "<N>[    s.us] "
/// (printk.time=0, where /dev/kmsg still gives each record's time).
bool for_each_syslog_record(std::string_view text,
                            const std::function<void(std::string_view, std::size_t)>& each);

/// The GPU lines of klogctl's `text` that read_kernel_log gives from /dev/kmsg for the same
/// buffer, whose first record is `first_record` (as /dev/kmsg gave it); nullopt where they could
/// differ: a line without a time, a first record other than `first_record` (READ_ALL starts
/// after `dmesg -C`, /dev/kmsg does not), a GPU message of several lines (a printed record may
/// be cut short) or one close to the kernel's 1 KB of printed record, more records than
/// k_max_kernel_records.
std::optional<std::vector<std::string>> gpu_kernel_lines_of_syslog(std::string_view text,
                                                                   std::string_view first_record);

/// The whole kernel log buffer in one call: klogctl(SYSLOG_ACTION_SIZE_BUFFER), then
/// SYSLOG_ACTION_READ_ALL, which dmesg_restrict governs as it governs /dev/kmsg; nullopt when
/// refused (EPERM, a seccomp filter) or larger than rocdoc reads.
std::optional<std::string> read_syslog_buffer();

/// How read_kernel_log reads: the whole buffer in one klogctl call where that gives the same
/// lines as /dev/kmsg (checked against /dev/kmsg's first record), else /dev/kmsg one record at a
/// time; or only /dev/kmsg.
enum class KernelLogRead { whole_buffer_first, kmsg_records };

/// Reads `device` (/dev/kmsg) from the start of this boot's buffer to its end, non-blocking.
/// A `device` that cannot be opened is the error, whatever klogctl allows.
KernelLog read_kernel_log(const char* device = "/dev/kmsg",
                          KernelLogRead how = KernelLogRead::whole_buffer_first);

}  // namespace rocdoc
