#include "src/knowledge/show.h"

#include <fmt/format.h>

#include "probes/torch_origin.h"
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

/// Writes one line. Rules text is untrusted with --rules DIR: control characters and line
/// breaks in it are shown escaped (util::printable), so a rule cannot forge or hide lines.
void put_line(std::ostream& out, std::string_view text) { out << util::printable(text) << '\n'; }

std::string wavefront_words(const std::vector<int>& sizes) {
  std::string text = "wave" + std::to_string(sizes.front());
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    text += " (wave" + std::to_string(sizes[i]) + " too)";
  }
  return text;
}

std::string since_words(const std::string& torch_since, const std::string& rocm_since) {
  std::string text = torch_since.empty() ? "" : " from torch " + torch_since;
  if (!rocm_since.empty()) {
    text += " built for ROCm " + rocm_since + " or later";
  }
  return text;
}

/// The lines of a target's compute abilities: what the hardware does, and the libraries.
void render_compute(const TargetCompute& compute, std::ostream& out) {
  put_line(out,
           fmt::format("  compute: {} · fp16 {} · bf16 {} · fp8 {} · int8 {} · matrix cores {}",
                       wavefront_words(compute.wavefronts), to_string(compute.fp16),
                       to_string(compute.bf16), to_string(compute.fp8), to_string(compute.int8),
                       to_string(compute.matrix)));
  if (compute.bf16 == Bf16Support::emulated) {
    put_line(out, "    bf16 is emulated: " + compute.bf16_how +
                      "; it runs slower than fp16 here: use fp16 for mixed precision");
  } else {
    put_line(out, "    bf16 in hardware: " + compute.bf16_how);
  }
  if (compute.hipblaslt) {
    put_line(out,
             fmt::format("  hipBLASLt: torch uses it{}{}",
                         since_words(compute.hipblaslt->torch_since, compute.hipblaslt->rocm_since),
                         compute.hipblaslt->preferred
                             ? ", by default"
                             : " when TORCH_BLAS_PREFER_HIPBLASLT=1 asks (rocBLAS by default)"));
  } else {
    put_line(out,
             "  hipBLASLt: torch does not use it on this target (TORCH_BLAS_PREFER_HIPBLASLT=1 "
             "falls back to rocBLAS)");
  }
  const FlashAttention& flash = compute.flash_attention;
  std::string sdpa = "none";
  if (flash.sdpa == SdpaSupport::experimental) {
    sdpa = "experimental (TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1)";
  } else if (flash.sdpa != SdpaSupport::none) {
    sdpa = std::string(to_string(flash.sdpa));
  }
  put_line(out, fmt::format("  flash attention: torch SDPA (AOTriton) {}{}; flash-attention's CK "
                            "backend {}, Triton backend {}",
                            sdpa, since_words(flash.torch_since, ""), to_string(flash.ck),
                            to_string(flash.triton)));
  put_line(out, "    source: " + compute.source);
}

}  // namespace

void render_target(const Knowledge& knowledge, const GfxTarget& target, std::ostream& out) {
  put_line(out, fmt::format("{}  (KFD gfx_target_version {}, {}, {})", target.name, target.kfd,
                            target.family, kind_name(target.kind)));
  if (!target.products.empty()) {
    put_line(out, "  products: " + util::join(target.products, ", "));
  }
  if (!target.processors.empty()) {
    put_line(out, "  in processors: " + util::join(target.processors, ", "));
  }
  std::vector<std::string> support;
  for (const auto& release : knowledge.rocm_releases) {
    const auto it = target.rocm.find(release.rocm);
    if (it != target.rocm.end()) {
      support.push_back(release.rocm + " " + it->second);
    }
  }
  put_line(out, "  ROCm on Linux: " +
                    (support.empty() ? "not listed by any release" : util::join(support, "; ")) +
                    (target.rocm_since.empty() ? "" : " (from " + target.rocm_since + ")"));
  std::vector<std::string> wheels;
  for (const auto& release : knowledge.torch_releases) {
    if (std::find(release.gfx.begin(), release.gfx.end(), target.name) != release.gfx.end()) {
      wheels.push_back(release.torch);
    }
  }
  put_line(out,
           "  official torch wheels: " +
               (wheels.empty() ? std::string("none") : wheels.front() + " ... " + wheels.back()));
  // AMD's per-target builds, which check recommends where pytorch.org has none (N27).
  if (const AmdWheelSet* set = knowledge.amd_wheels_for(target.name)) {
    put_line(out, fmt::format("  AMD's torch[device-{}] build: torch {} (ROCm {}) from {}",
                              target.name, set->torch, set->rocm, set->index_url));
  }
  if (target.compute) {
    render_compute(*target.compute, out);
  }
  if (target.memory_kernel) {
    put_line(out, fmt::format("  memory (apu.memory): kernel {} or later; {}",
                              target.memory_kernel->version, target.memory_kernel->says));
  }
  if (target.override_value) {
    const GfxOverride& o = *target.override_value;
    put_line(out, fmt::format("  HSA_OVERRIDE_GFX_VERSION{}: {}{}",
                              o.value.empty() ? "" : "=" + o.value, verdict_name(o.verdict),
                              o.unneeded_since_torch.empty()
                                  ? ""
                                  : fmt::format(" since torch {}", o.unneeded_since_torch)));
    if (!o.says.empty()) {
      put_line(out, "    " + o.says);
    }
    if (!o.note.empty()) {
      put_line(out, "    maintainer's note: " + o.note);
    }
    put_line(out, "    source: " + o.source);
  }
  std::vector<std::string> ids;
  for (const auto& entry : knowledge.pci_ids) {
    if (entry.gfx == target.name) {
      ids.push_back(fmt::format("{:04x}", entry.device));
    }
  }
  if (!ids.empty()) {
    put_line(out, "  PCI ids (1002:): " + util::join(ids, " "));
  }
  put_line(out, "  source: " + target.source);
}

std::vector<const TorchRelease*> torch_releases_named(const Knowledge& knowledge,
                                                      std::string_view version) {
  const std::string base(version.substr(0, version.find('+')));
  std::vector<const TorchRelease*> named;
  for (const auto& release : knowledge.torch_releases) {
    if (util::version_within(release.torch, base)) {
      named.push_back(&release);
    }
  }
  return named;
}

bool render_torch(const Knowledge& knowledge, const std::string& prefix, std::ostream& out) {
  const auto named = torch_releases_named(knowledge, prefix);
  for (const TorchRelease* entry : named) {
    const TorchRelease& release = *entry;
    put_line(out,
             fmt::format(
                 "torch {}: torchvision {}, torchaudio {}{}{}", release.torch, release.torchvision,
                 release.audio(), release.torchaudio.empty() ? " (no torchaudio of its own)" : "",
                 release.triton_rocm.empty()
                     ? ""
                     : fmt::format(", {} {}",
                                   util::version_numbers(release.torch) >= std::vector<int>{2, 10}
                                       ? "triton-rocm"
                                       : "pytorch-triton-rocm",
                                   release.triton_rocm)));
    put_line(out, "  ROCm indexes: " + util::join(release.rocm_indexes, ", "));
    put_line(out, "  gfx targets: " + util::join(release.gfx, " "));
    for (const auto& [index, targets] : release.gfx_exceptions) {
      put_line(out, "    " + index + " wheels: " + util::join(targets, " "));
    }
    for (const auto& index : release.rocm_indexes) {
      put_line(out,
               fmt::format("  pip install torch=={} torchvision=={} torchaudio=={} --index-url "
                           "https://download.pytorch.org/whl/{}",
                           release.torch, release.torchvision, release.audio(), index));
    }
    put_line(out, "  source: " + release.source);
  }
  return !named.empty();
}

void render_pci_id_line(const PciIdEntry& entry, std::ostream& out) {
  put_line(out, fmt::format("1002:{:04x}  {}  ->  {}", entry.device, entry.name, entry.gfx));
}

void render_pci_id(const Knowledge& knowledge, const PciIdEntry& entry, std::ostream& out) {
  render_pci_id_line(entry, out);
  put_line(out, "  source: " + entry.source);
  if (const GfxTarget* target = knowledge.target(entry.gfx)) {
    render_target(knowledge, *target, out);
  }
}

void render_rocm_release(const Knowledge& knowledge, const RocmRelease& release,
                         std::ostream& out) {
  put_line(out, "ROCm " + release.rocm);
  put_line(out, "  HIP version: " +
                    (release.hip.empty() ? release.rocm : release.hip + " (not the ROCm number)"));
  if (!release.without.empty()) {
    put_line(out, "  no longer built or installed: " + util::join(release.without, ", "));
  }
  std::vector<std::string> systems;
  for (const auto& os : release.os) {
    systems.push_back(os.id + " " + util::join(os.versions, ", "));
  }
  put_line(out, "  systems: " + util::join(systems, "; "));
  std::vector<std::string> official;
  for (const auto& target : knowledge.targets) {
    const auto it = target.rocm.find(release.rocm);
    if (it != target.rocm.end() && it->second != "unsupported") {
      official.push_back(target.name + (it->second == "deprecated" ? " (deprecated)" : ""));
    }
  }
  put_line(out, "  AMD's GPU support list: " +
                    (official.empty() ? "none recorded" : util::join(official, " ")));
  put_line(out, "  libraries have code for: " + (release.library_targets.empty()
                                                     ? std::string("unknown (AMD's list stands in)")
                                                     : util::join(release.library_targets, " ")));
  std::vector<std::string> drivers;
  for (const auto& driver : knowledge.driver_versions) {
    if (driver.rocm == release.rocm) {
      drivers.push_back(driver.module);
    }
  }
  if (!drivers.empty()) {
    put_line(out, "  amdgpu DKMS module: " + util::join(drivers, ", "));
  }
  std::vector<std::string> wheels;
  for (const auto& torch : knowledge.torch_releases) {
    for (const auto& index : torch.rocm_indexes) {
      if (util::version_within(index, "rocm" + release.rocm)) {
        wheels.push_back(torch.torch + " (" + index + ")");
      }
    }
  }
  put_line(out,
           "  pytorch.org torch wheels: " + (wheels.empty() ? "none" : util::join(wheels, ", ")));
  for (const auto& set : knowledge.amd_wheels) {
    if (set.rocm == release.rocm) {
      put_line(out, fmt::format("  AMD per-target wheels: torch[device-gfxNNNN]=={} from {}",
                                set.torch, set.index_url));
    }
  }
  for (const auto& set : knowledge.radeon_wheels) {
    if (util::version_within(set.rocm, release.rocm)) {
      put_line(out,
               fmt::format("  AMD wheel files ({}): torch {}, torchvision {}, torchaudio {} in "
                           "{} (CPython {})",
                           set.rocm, set.torch, set.torchvision, set.torchaudio, set.url,
                           util::join(set.python, ", ")));
    }
  }
  for (const auto& wsl : knowledge.wsl_releases) {
    if (util::version_within(wsl.rocm, release.rocm)) {
      put_line(out, fmt::format("  WSL ({}): {}", wsl.rocm,
                                wsl.supported ? wsl.runtime_library : "no WSL runtime"));
    }
  }
  put_line(out, "  source: " + release.source);
}

void render_driver(const Knowledge& knowledge, const DriverVersion& driver, std::ostream& out) {
  put_line(out,
           fmt::format("amdgpu DKMS module {}{}: ships with ROCm {}", driver.module,
                       driver.package.empty() ? "" : " (AMD GPU Driver " + driver.package + ")",
                       driver.rocm));
  put_line(out, "  source: " + driver.source);
  if (const RocmRelease* release = knowledge.rocm_release(driver.rocm)) {
    render_rocm_release(knowledge, *release, out);
  }
}

TorchInstall torch_of_version(const Knowledge& knowledge, const std::string& version) {
  TorchInstall torch;
  torch.version = version;
  const std::string tag =
      version.find('+') == std::string::npos ? "" : version.substr(version.find('+') + 1);
  torch.build = tag.rfind("cu", 0) == 0       ? TorchBuild::cuda
                : tag == "cpu" || tag.empty() ? TorchBuild::cpu
                                              : TorchBuild::rocm;
  classify_torch(torch, "", knowledge);
  return torch;
}

void render_torch_version(const Knowledge& knowledge, const std::string& version,
                          std::ostream& out) {
  const TorchInstall torch = torch_of_version(knowledge, version);
  put_line(out, fmt::format("torch {}: {}", version, torch.origin_detail));
  if (torch.build != TorchBuild::rocm) {
    // N27: the ROCm wheels below are pytorch.org's of the same version, not this build.
    put_line(out,
             fmt::format("  {}: it cannot use an AMD GPU; the ROCm build of the same "
                         "version is below",
                         torch.build == TorchBuild::cuda ? "a CUDA build" : "a CPU-only build"));
  }
  if (const RadeonWheelSet* files = knowledge.radeon_wheels_with_torch(version)) {
    put_line(out, fmt::format("  AMD's wheel files of ROCm {} (no index: installed by URL): "
                              "torchvision {}, torchaudio {}{} in {} for CPython {}",
                              files->rocm, files->torchvision, files->torchaudio,
                              files->triton.empty() ? "" : ", Triton " + files->triton, files->url,
                              util::join(files->python, ", ")));
  }
  const std::string base = version.substr(0, version.find('+'));
  const bool pytorch_org =
      torch.origin == TorchOrigin::pytorch_org || torch.origin == TorchOrigin::pytorch_org_nightly;
  if (!pytorch_org && knowledge.torch_release(base) != nullptr) {
    put_line(out, fmt::format("  not a pytorch.org wheel: pytorch.org's torch {} below is for "
                              "comparison; its companions and targets do not describe this build",
                              base));
  }
  if (!render_torch(knowledge, base, out)) {
    put_line(out, fmt::format("  torch {} is not in these rules (revision {})", base,
                              knowledge.revision));
  }
}

void render_rules_summary(const Knowledge& knowledge, std::ostream& out) {
  put_line(out,
           fmt::format("rules ({}, revision {}): {} gfx targets, {} PCI ids, {} ROCm releases, {} "
                       "driver versions, "
                       "{} torch releases, {} AMD wheel sets, {} environment variables, {} WSL "
                       "releases, {} triage signatures",
                       knowledge.origin, knowledge.revision, knowledge.targets.size(),
                       knowledge.pci_ids.size(), knowledge.rocm_releases.size(),
                       knowledge.driver_versions.size(), knowledge.torch_releases.size(),
                       knowledge.amd_wheels.size(), knowledge.env_variables.size(),
                       knowledge.wsl_releases.size(), knowledge.triage_signatures.size()));
}

}  // namespace rocdoc
