#include "rocdoc/gfx_target.h"

#include <fmt/format.h>

#include "src/util/strings.h"

namespace rocdoc {

std::optional<std::string> gfx_name_from_kfd(std::uint32_t gfx_target_version) {
  const std::uint32_t major = gfx_target_version / 10000;
  const std::uint32_t minor = (gfx_target_version / 100) % 100;
  const std::uint32_t stepping = gfx_target_version % 100;
  // The same bounds as kfd_from_gfx_name(), so every name made here reads back to its number.
  if (major == 0 || major > 63 || minor > 15 || stepping > 15) {
    return std::nullopt;
  }
  return fmt::format("gfx{}{:x}{:x}", major, minor, stepping);
}

std::optional<std::uint32_t> kfd_from_gfx_name(std::string_view name) {
  if (const auto colon = name.find(':'); colon != std::string_view::npos) {
    name = name.substr(0, colon);  // gfx90a:xnack- → gfx90a
  }
  if (name.size() < 6 || name.substr(0, 3) != "gfx") {
    return std::nullopt;
  }
  const std::string_view digits = name.substr(3);
  const auto major = util::parse_unsigned(digits.substr(0, digits.size() - 2), 10);
  const auto minor = util::parse_unsigned(digits.substr(digits.size() - 2, 1), 16);
  const auto stepping = util::parse_unsigned(digits.substr(digits.size() - 1, 1), 16);
  if (!major || !minor || !stepping || *major == 0 || *major > 63) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(*major * 10000 + *minor * 100 + *stepping);
}

bool code_runs_on(std::string_view code, std::string_view processor, std::string_view generic,
                  Xnack xnack) {
  if (code == "amdgcnspirv") {
    return true;
  }
  const auto colon = code.find(':');
  const std::string_view code_processor = code.substr(0, colon);
  if (code_processor != processor && (generic.empty() || code_processor != generic)) {
    return false;
  }
  std::string_view features = colon == std::string_view::npos ? "" : code.substr(colon + 1);
  while (!features.empty()) {
    const auto next = features.find(':');
    const std::string_view feature = features.substr(0, next);
    if (feature == "xnack+" && xnack != Xnack::on) {
      return false;
    }
    if (feature == "xnack-" && xnack != Xnack::off) {
      return false;
    }
    features = next == std::string_view::npos ? "" : features.substr(next + 1);
  }
  return true;
}

std::string_view target_processor(std::string_view target_id) {
  return target_id.substr(0, target_id.find(':'));
}

}  // namespace rocdoc
