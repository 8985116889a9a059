// The arithmetic of GPU memory limits: GiB and TTM pages, the limit the running TTM module
// sets, and the kernel log's word on a parameter it did not know.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rocdoc/facts.h"

namespace rocdoc::checks {

inline constexpr std::uint64_t k_gib = std::uint64_t{1} << 30;
/// Pages of 4 KiB in one GiB: ttm.pages_limit=<GiB × 262144>.
inline constexpr std::uint64_t k_pages_per_gib = 262144;

/// "15.5 GiB" (one decimal; whole numbers without it: "96 GiB").
std::string gib_text(std::uint64_t bytes);

/// The TTM module whose limit amdgpu obeys: amdttm where AMD's DKMS driver loaded it, else the
/// kernel's ttm; empty when neither is loaded (or the facts predate module parameters).
std::string active_ttm_module(const DriverFacts& driver);

/// That module's pages_limit in bytes; nullopt when unknown.
std::optional<std::uint64_t> ttm_limit_bytes(const DriverFacts& driver);

/// What the user asked for the GPU's system memory, in bytes: the pages_limit set for the active
/// TTM module (or for ttm, which AMD's DKMS driver ignores), else amdgpu.gttsize (MiB); nullopt
/// when nothing was set.
struct MemoryRequest {
  std::uint64_t bytes = 0;
  std::string setting;  ///< "ttm.pages_limit=25165824" as given
  std::string where;    ///< "the kernel command line" or "/etc/modprobe.d/ttm.conf:1"
};
std::optional<MemoryRequest> requested_gtt(const DriverFacts& driver);

/// The GiB AMD's amd-ttm tool sets without asking: 90 % of the RAM the OS has, whole GiB.
std::uint64_t suggested_gtt_gib(std::uint64_t mem_total);

/// "amdgpu: unknown parameter 'gtt_size' ignored" (kernel/module/main.c) → {amdgpu, gtt_size};
/// nullopt for any other line or module.
struct UnknownParameter {
  std::string module;
  std::string name;
};
std::optional<UnknownParameter> parse_unknown_parameter(std::string_view line);

}  // namespace rocdoc::checks
