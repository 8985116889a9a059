// The kernel log (/dev/kmsg) as rocdoc reads it: only this boot's lines that concern the GPU,
// read without blocking; nothing else of the log is ever kept.
#pragma once

#include <optional>
#include <string>
#include <string_view>

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

/// Reads `device` (/dev/kmsg) from the start of this boot's buffer to its end, non-blocking.
KernelLog read_kernel_log(const char* device = "/dev/kmsg");

}  // namespace rocdoc
