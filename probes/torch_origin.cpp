// The version forms come from real installs (docs/checks.md#how-rocdoc-tells-torch-builds-apart
// lists them with their sources): pytorch.org 2.6.0+rocm6.2.4 and nightlies
// 2.10.0.dev20251019+rocm7.0; AMD repo.radeon.com 2.1.2+rocm6.0, 2.6.0+rocm6.4.1.git1ded221d,
// 2.9.1+rocm7.2.0.lw.git7e1940d4; TheRock 2.11.0a0+rocm7.11.0a20260106, 2.9.0+rocmsdk20251202,
// +devrocm…; Debian 2.14.1+debian (INSTALLER "debian"), Fedora plain versions (INSTALLER "rpm"),
// Arch plain versions (no INSTALLER: python -m installer); source builds 2.11.0+gitd0c8b1f.
#include "probes/torch_origin.h"

#include <fmt/format.h>

#include <algorithm>

#include "src/util/strings.h"

namespace rocdoc {

namespace {

bool digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

bool digits_and_dots(std::string_view text) {
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text.front())) &&
         text.find_first_not_of("0123456789.") == std::string_view::npos;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

/// "7.11.0a20260106": a ROCm version with TheRock's nightly date.
bool therock_nightly(std::string_view rocm) {
  const auto a = rocm.find('a');
  return a != std::string_view::npos && digits_and_dots(rocm.substr(0, a)) &&
         digits(rocm.substr(a + 1)) && rocm.size() - a - 1 == 8;
}

bool published(const Knowledge& knowledge, std::string_view index) {
  return std::any_of(knowledge.torch_releases.begin(), knowledge.torch_releases.end(),
                     [&](const TorchRelease& release) {
                       return std::find(release.rocm_indexes.begin(), release.rocm_indexes.end(),
                                        index) != release.rocm_indexes.end();
                     });
}

void set(TorchInstall& torch, TorchOrigin origin, std::string detail) {
  torch.origin = origin;
  torch.origin_detail = std::move(detail);
}

void classify_rocm_tag(TorchInstall& torch, std::string_view base, std::string_view tag,
                       const Knowledge& knowledge) {
  const std::string_view rocm = tag.substr(4);
  if (starts_with(rocm, "sdk") && digits(rocm.substr(3))) {
    set(torch, TorchOrigin::therock, "AMD TheRock build (rocm-sdk, " + std::string(tag) + ")");
  } else if (therock_nightly(rocm)) {
    set(torch, TorchOrigin::therock, "AMD TheRock nightly (" + std::string(tag) + ")");
  } else if (rocm.find(".git") != std::string_view::npos ||
             rocm.find(".lw") != std::string_view::npos || !digits_and_dots(rocm)) {
    set(torch, TorchOrigin::amd, "AMD build (repo.radeon.com, " + std::string(tag) + ")");
  } else if (base.find(".dev") != std::string_view::npos) {
    set(torch, TorchOrigin::pytorch_org_nightly,
        "pytorch.org nightly (nightly/" + std::string(tag) + " index)");
  } else if (base.find('a') != std::string_view::npos) {
    set(torch, TorchOrigin::therock, "AMD pre-release build (" + std::string(base) + ")");
  } else if (const AmdWheelSet* wheels = knowledge.amd_wheels_with_torch(torch.version)) {
    set(torch, TorchOrigin::amd,
        fmt::format("AMD build (ROCm {} index, {})", wheels->rocm, wheels->index_url));
  } else if (const TorchRelease* release = knowledge.torch_release(base)) {
    const bool listed = std::find(release->rocm_indexes.begin(), release->rocm_indexes.end(),
                                  tag) != release->rocm_indexes.end();
    if (listed) {
      set(torch, TorchOrigin::pytorch_org, "pytorch.org wheel (" + std::string(tag) + " index)");
    } else {
      set(torch, TorchOrigin::amd,
          fmt::format("AMD or another build: pytorch.org never published torch {} for {}", base,
                      tag));
    }
  } else if (knowledge.torch_newer_than_rules(base) && published(knowledge, tag)) {
    set(torch, TorchOrigin::pytorch_org,
        "pytorch.org wheel (" + std::string(tag) + " index; a torch newer than these rules)");
  } else {
    set(torch, TorchOrigin::amd,
        fmt::format("AMD or another build: pytorch.org published no torch {} for {}", base, tag));
  }
}

}  // namespace

void classify_torch(TorchInstall& torch, std::string_view site_dir, const Knowledge& knowledge) {
  const std::string_view version = torch.version;
  const auto plus = version.find('+');
  const std::string_view base = version.substr(0, plus);
  const std::string_view tag =
      plus == std::string_view::npos ? std::string_view() : version.substr(plus + 1);
  const std::string installer = torch.installer.value_or("");
  if (installer == "debian" || tag == "debian" ||
      starts_with(site_dir, "/usr/lib/python3/dist-packages")) {
    set(torch, TorchOrigin::distribution, "Debian/Ubuntu package (apt)");
  } else if (installer == "rpm") {
    set(torch, TorchOrigin::distribution, "RPM package (dnf/zypper)");
  } else if (installer == "conda") {
    set(torch, TorchOrigin::conda, "conda package");
  } else if (starts_with(tag, "rocm")) {
    classify_rocm_tag(torch, base, tag, knowledge);
  } else if (starts_with(tag, "devrocm")) {
    set(torch, TorchOrigin::therock, "AMD TheRock development build (" + std::string(tag) + ")");
  } else if (starts_with(tag, "git")) {
    set(torch,
        tag.find(".rocm") != std::string_view::npos ? TorchOrigin::therock : TorchOrigin::source,
        tag.find(".rocm") != std::string_view::npos
            ? "AMD TheRock development build (" + std::string(tag) + ")"
            : "built from source (" + std::string(tag) + ")");
  } else if (starts_with(tag, "cu") || tag == "cpu" || starts_with(tag, "xpu")) {
    set(torch, TorchOrigin::pytorch_org, "pytorch.org wheel (" + std::string(tag) + " index)");
  } else if (tag.empty() && starts_with(site_dir, "/usr/lib") && installer != "pip" &&
             installer != "uv") {
    set(torch, TorchOrigin::distribution, "distribution package");
  } else if (tag.empty() && base.find('a') != std::string_view::npos) {
    set(torch, TorchOrigin::source, "built from source (" + std::string(base) + ")");
  } else if (tag.empty() && torch.build == TorchBuild::cuda) {
    set(torch, TorchOrigin::pypi, "PyPI wheel (CUDA build)");
  } else if (tag.empty() && torch.build == TorchBuild::rocm) {
    set(torch, TorchOrigin::source, "a ROCm build without a local version tag (source build)");
  } else {
    set(torch, TorchOrigin::unknown, "origin unknown");
  }
}

std::string_view to_string(TorchOrigin origin) {
  switch (origin) {
    case TorchOrigin::pytorch_org:
      return "pytorch.org";
    case TorchOrigin::pytorch_org_nightly:
      return "pytorch.org-nightly";
    case TorchOrigin::amd:
      return "amd";
    case TorchOrigin::therock:
      return "therock";
    case TorchOrigin::distribution:
      return "distribution";
    case TorchOrigin::conda:
      return "conda";
    case TorchOrigin::pypi:
      return "pypi";
    case TorchOrigin::source:
      return "source";
    case TorchOrigin::unknown:
      break;
  }
  return "unknown";
}

}  // namespace rocdoc
