// Sources: torvalds/linux drivers/gpu/drm/ttm/ttm_tt.c (pages_limit, pages of PAGE_SIZE) and
// ttm_device.c (default: half of the RAM); amdgpu_ttm.c (GTT follows ttm_tt_pages_limit() since
// 6.5; gttsize in MiB overrides it, deprecated since 6.15); kernel/module/main.c
// (unknown_module_param_cb: "%s: unknown parameter '%s' ignored"); superm1/amd-debug-tools
// src/amd_debug/ttm.py (MAX_MEMORY_PERCENTAGE = 90; GiB × 1024³ / 4096 pages).
#include "src/checks/memory_sizes.h"

#include <fmt/format.h>

#include <limits>

#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

constexpr std::uint64_t k_page = 4096;

std::optional<std::uint64_t> times(std::uint64_t value, std::uint64_t unit) {
  if (value > std::numeric_limits<std::uint64_t>::max() / unit) {
    return std::nullopt;
  }
  return value * unit;
}

}  // namespace

std::string gib_text(std::uint64_t bytes) {
  const double gib = static_cast<double>(bytes) / static_cast<double>(k_gib);
  const std::string text = fmt::format("{:.1f}", gib);
  return (text.size() > 2 && text.substr(text.size() - 2) == ".0" ? text.substr(0, text.size() - 2)
                                                                  : text) +
         " GiB";
}

std::string active_ttm_module(const DriverFacts& driver) {
  for (const char* module : {"amdttm", "ttm"}) {
    if (driver.module_parameters.count(module) != 0) {
      return module;
    }
  }
  return {};
}

std::optional<std::uint64_t> ttm_limit_bytes(const DriverFacts& driver) {
  const std::string* value = driver.parameter(active_ttm_module(driver), "pages_limit");
  if (value == nullptr) {
    return std::nullopt;
  }
  const auto pages = util::parse_number<std::uint64_t>(*value);
  return pages ? times(*pages, k_page) : std::nullopt;
}

std::optional<MemoryRequest> requested_gtt(const DriverFacts& driver) {
  const std::string active = active_ttm_module(driver);
  std::optional<MemoryRequest> pages_limit;
  std::optional<MemoryRequest> gttsize;
  for (const auto& setting : driver.memory_module_settings) {
    const std::string where = setting.file
                                  ? fmt::format("{}:{}", setting.file->file, setting.file->line)
                                  : "the kernel command line";
    const std::string text = setting.module + "." + setting.name + "=" + setting.value;
    if (setting.name == "pages_limit" && (setting.module == active || setting.module == "ttm")) {
      const auto pages = util::parse_number<std::uint64_t>(setting.value);
      const auto bytes = pages ? times(*pages, k_page) : std::nullopt;
      // The active module's own setting wins over one for ttm that amdttm does not read.
      if (bytes && *bytes > 0 && (!pages_limit || setting.module == active)) {
        pages_limit = MemoryRequest{*bytes, text, where};
      }
    } else if (setting.module == "amdgpu" && setting.name == "gttsize") {
      const auto mib = util::parse_number<std::uint64_t>(setting.value);
      const auto bytes = mib ? times(*mib, std::uint64_t{1} << 20) : std::nullopt;
      if (bytes && *bytes > 0) {
        gttsize = MemoryRequest{*bytes, text, where};
      }
    }
  }
  return pages_limit ? pages_limit : gttsize;
}

std::uint64_t suggested_gtt_gib(std::uint64_t mem_total) { return mem_total / 10 * 9 / k_gib; }

std::optional<UnknownParameter> parse_unknown_parameter(std::string_view line) {
  constexpr std::string_view marker = ": unknown parameter '";
  const auto at = line.find(marker);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  // "[    3.636913] amdgpu: unknown parameter 'gtt_size' ignored": the word before the marker.
  std::string_view before = line.substr(0, at);
  const auto space = before.find_last_of(" ]");
  const std::string_view module =
      space == std::string_view::npos ? before : before.substr(space + 1);
  const std::string_view rest = line.substr(at + marker.size());
  const auto quote = rest.find('\'');
  if (quote == std::string_view::npos || quote == 0 || rest.substr(quote) != "' ignored" ||
      (module != "amdgpu" && module != "ttm" && module != "amdttm")) {
    return std::nullopt;
  }
  return UnknownParameter{std::string(module), std::string(rest.substr(0, quote))};
}

}  // namespace rocdoc::checks
