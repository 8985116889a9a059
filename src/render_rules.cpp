#include "src/render_rules.h"

#include <fmt/format.h>

#include "src/util/strings.h"

namespace rocdoc {

namespace {

std::string_view verdict_name(OverrideVerdict verdict) {
  switch (verdict) {
    case OverrideVerdict::works:
      return "works (unofficial)";
    case OverrideVerdict::unneeded:
      return "unneeded";
    case OverrideVerdict::dangerous:
      return "DANGEROUS - never use";
    case OverrideVerdict::none:
      return "no value works";
  }
  return "unknown";
}

std::string_view kind_name(GpuKind kind) {
  switch (kind) {
    case GpuKind::radeon:
      return "Radeon (discrete)";
    case GpuKind::instinct:
      return "Instinct";
    case GpuKind::apu:
      return "APU (integrated)";
  }
  return "";
}

}  // namespace

void render_target(const Knowledge& knowledge, const GfxTarget& target, std::ostream& out) {
  out << fmt::format("{}  (KFD gfx_target_version {}, {}, {})\n", target.name, target.kfd,
                     target.family, kind_name(target.kind));
  if (!target.products.empty()) {
    out << "  products: " << util::join(target.products, ", ") << "\n";
  }
  std::vector<std::string> support;
  for (const auto& release : knowledge.rocm_releases) {
    const auto it = target.rocm.find(release.rocm);
    if (it != target.rocm.end()) {
      support.push_back(release.rocm + " " + it->second);
    }
  }
  out << "  ROCm on Linux: "
      << (support.empty() ? "not listed by any release" : util::join(support, "; "));
  out << (target.rocm_since.empty() ? "" : " (from " + target.rocm_since + ")") << "\n";
  std::vector<std::string> wheels;
  for (const auto& release : knowledge.torch_releases) {
    if (std::find(release.gfx.begin(), release.gfx.end(), target.name) != release.gfx.end()) {
      wheels.push_back(release.torch);
    }
  }
  out << "  official torch wheels: "
      << (wheels.empty() ? std::string("none") : wheels.front() + " ... " + wheels.back()) << "\n";
  if (target.override_value) {
    const GfxOverride& o = *target.override_value;
    out << fmt::format("  HSA_OVERRIDE_GFX_VERSION{}: {}", o.value.empty() ? "" : "=" + o.value,
                       verdict_name(o.verdict));
    if (!o.unneeded_since_torch.empty()) {
      out << fmt::format(" since torch {}", o.unneeded_since_torch);
    }
    out << "\n    " << o.note << "\n    source: " << o.source << "\n";
  }
  std::vector<std::string> ids;
  for (const auto& entry : knowledge.pci_ids) {
    if (entry.gfx == target.name) {
      ids.push_back(fmt::format("{:04x}", entry.device));
    }
  }
  if (!ids.empty()) {
    out << "  PCI ids (1002:): " << util::join(ids, " ") << "\n";
  }
  out << "  source: " << target.source << "\n";
}

bool render_torch(const Knowledge& knowledge, const std::string& prefix, std::ostream& out) {
  bool found = false;
  for (const auto& release : knowledge.torch_releases) {
    if (release.torch != prefix && release.torch.rfind(prefix + ".", 0) != 0) {
      continue;
    }
    found = true;
    out << fmt::format(
        "torch {}: torchvision {}, torchaudio {}{}{}\n", release.torch, release.torchvision,
        release.audio(), release.torchaudio.empty() ? " (no torchaudio of its own)" : "",
        release.triton_rocm.empty() ? "" : ", pytorch-triton-rocm " + release.triton_rocm);
    out << "  ROCm indexes: " << util::join(release.rocm_indexes, ", ") << "\n";
    out << "  gfx targets: " << util::join(release.gfx, " ") << "\n";
    for (const auto& [index, targets] : release.gfx_exceptions) {
      out << "    " << index << " wheels: " << util::join(targets, " ") << "\n";
    }
    for (const auto& index : release.rocm_indexes) {
      out << fmt::format(
          "  pip install torch=={} torchvision=={} torchaudio=={} --index-url "
          "https://download.pytorch.org/whl/{}\n",
          release.torch, release.torchvision, release.audio(), index);
    }
    out << "  source: " << release.source << "\n";
  }
  return found;
}

void render_pci_id(const Knowledge& knowledge, const PciIdEntry& entry, std::ostream& out) {
  out << fmt::format("1002:{:04x}  {}  ->  {}\n  source: {}\n", entry.device, entry.name, entry.gfx,
                     entry.source);
  if (const GfxTarget* target = knowledge.target(entry.gfx)) {
    render_target(knowledge, *target, out);
  }
}

void render_rules_summary(const Knowledge& knowledge, std::ostream& out) {
  out << fmt::format(
      "rules ({}): {} gfx targets, {} PCI ids, {} ROCm releases, {} driver versions, "
      "{} torch releases, {} environment variables, {} WSL releases\n",
      knowledge.origin, knowledge.targets.size(), knowledge.pci_ids.size(),
      knowledge.rocm_releases.size(), knowledge.driver_versions.size(),
      knowledge.torch_releases.size(), knowledge.env_variables.size(),
      knowledge.wsl_releases.size());
}

}  // namespace rocdoc
