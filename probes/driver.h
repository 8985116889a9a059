// Probe "driver": the amdgpu kernel module, blacklists, kernel command line, Secure Boot.
#pragma once

#include <string_view>
#include <vector>

#include "rocdoc/facts.h"
#include "rocdoc/probes.h"

namespace rocdoc {

DriverFacts probe_driver(const ProbeContext& context);

/// Lines of a modprobe.d file that keep amdgpu from loading: "blacklist amdgpu" and
/// "install amdgpu /bin/false" (or /bin/true). Comments are ignored.
std::vector<ModprobeLine> find_amdgpu_blacklist(std::string_view content, const std::string& file);

/// Whether rocdoc reads the parameters of this module: amdgpu, ttm and amdttm (AMD's DKMS copy of
/// ttm), which set how much memory a GPU can use.
bool is_memory_module(std::string_view module);

/// The `options amdgpu|ttm|amdttm name=value …` settings of a modprobe.d file, one per value.
std::vector<ModuleParameterSetting> find_module_options(std::string_view content,
                                                        const std::string& file);

/// What the kernel command line says about amdgpu: nomodeset, modprobe.blacklist, amdgpu.*, and
/// the memory modules' settings (amdgpu.*, ttm.*, amdttm.*).
void parse_cmdline_for_driver(std::string_view cmdline, DriverFacts& facts);

/// The kernel a DKMS make.log header names ("... for kernel 6.14.0-24-generic (x86_64)").
std::optional<std::string> make_log_kernel(std::string_view header);

/// The SecureBoot efivar: 4 attribute bytes, then 1 = enabled.
std::optional<bool> parse_secure_boot_var(std::string_view content);

}  // namespace rocdoc
