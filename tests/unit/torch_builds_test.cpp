// How torch builds are told apart, and the companion rules that need no table: tables of
// version strings from real installs (docs/checks.md lists their sources).
#include <catch2/catch.hpp>

#include "probes/torch_origin.h"
#include "rocdoc/knowledge_loader.h"
#include "src/checks/software.h"
#include "src/checks/torch_companions.h"

using namespace rocdoc;
using namespace rocdoc::checks;

namespace {

const Knowledge& knowledge() {
  static const Knowledge k = load_embedded_knowledge();
  return k;
}

TorchInstall torch(const std::string& version, TorchBuild build = TorchBuild::rocm,
                   std::optional<std::string> installer = "pip") {
  TorchInstall t;
  t.version = version;
  t.build = build;
  t.installer = std::move(installer);
  return t;
}

TorchOrigin origin_of(
    TorchInstall t, const std::string& site_dir = "/home/alice/venv/lib/python3.12/site-packages") {
  classify_torch(t, site_dir, knowledge());
  return t.origin;
}

}  // namespace

TEST_CASE("torch builds are classified by where they come from", "[torch][origin]") {
  struct Row {
    const char* version;
    TorchOrigin origin;
  };
  const Row rows[] = {
      // pytorch.org release wheels: the rules know these indexes for these releases.
      {"2.6.0+rocm6.2.4", TorchOrigin::pytorch_org},
      {"2.7.1+rocm6.3", TorchOrigin::pytorch_org},
      {"2.11.0+rocm7.2", TorchOrigin::pytorch_org},
      {"2.3.1+rocm6.0", TorchOrigin::pytorch_org},
      // pytorch.org nightlies.
      {"2.3.0.dev20240308+rocm6.0", TorchOrigin::pytorch_org_nightly},
      {"2.10.0.dev20251019+rocm7.0", TorchOrigin::pytorch_org_nightly},
      // AMD's repo.radeon.com builds: a git hash, or an index pytorch.org never published.
      {"2.6.0+rocm6.4.1.git1ded221d", TorchOrigin::amd},
      {"2.9.1+rocm7.2.0.git7e1940d4", TorchOrigin::amd},
      {"2.9.1+rocm7.2.0.lw.git7e1940d4", TorchOrigin::amd},
      {"2.1.2+rocm6.1.3", TorchOrigin::amd},
      {"2.5.1+rocm6.3.2", TorchOrigin::amd},
      // TheRock builds and nightlies.
      {"2.11.0a0+rocm7.11.0a20260106", TorchOrigin::therock},
      {"2.10.0+rocm7.13.0a20260318", TorchOrigin::therock},
      {"2.9.0+rocmsdk20251202", TorchOrigin::therock},
      {"2.12.0a0+git1a2b3c4d.rocm7.10.0", TorchOrigin::therock},
      // Source builds.
      {"2.11.0+gitd0c8b1f", TorchOrigin::source},
  };
  for (const auto& row : rows) {
    INFO(row.version);
    CHECK(origin_of(torch(row.version)) == row.origin);
  }
}

TEST_CASE("distribution packages are recognised by installer and place", "[torch][origin]") {
  // Debian sid python3-torch: INSTALLER "debian", version 2.14.1+debian.
  CHECK(origin_of(torch("2.14.1+debian", TorchBuild::cpu, "debian"),
                  "/usr/lib/python3/dist-packages") == TorchOrigin::distribution);
  // Debian 12 python3-torch 1.13.1: an egg-info, no INSTALLER, in /usr/lib/python3/dist-packages.
  CHECK(origin_of(torch("1.13.0a0", TorchBuild::cpu, std::nullopt),
                  "/usr/lib/python3/dist-packages") == TorchOrigin::distribution);
  // Fedora python3-torch (ROCm on x86_64): INSTALLER rewritten to "rpm", plain version.
  CHECK(origin_of(torch("2.13.0", TorchBuild::rocm, "rpm"),
                  "/usr/lib64/python3.14/site-packages") == TorchOrigin::distribution);
  // Arch python-pytorch-rocm: installed by python -m installer, which writes no INSTALLER.
  CHECK(origin_of(torch("2.9.1", TorchBuild::rocm, std::nullopt),
                  "/usr/lib/python3.13/site-packages") == TorchOrigin::distribution);
  // PyPI's default Linux wheel is a CUDA build without a local tag.
  CHECK(origin_of(torch("2.6.0", TorchBuild::cuda)) == TorchOrigin::pypi);
  CHECK(origin_of(torch("2.6.0+cu124", TorchBuild::cuda)) == TorchOrigin::pytorch_org);
}

TEST_CASE("only pytorch.org builds are judged by pytorch.org's pairings", "[torch][origin]") {
  TorchInstall amd = torch("2.1.2+rocm6.1.3");
  classify_torch(amd, "/opt/venv/lib/python3.10/site-packages", knowledge());
  CHECK(is_other_rocm_build(amd));
  CHECK_FALSE(wheel_index(amd).has_value());
  TorchInstall wheel = torch("2.6.0+rocm6.2.4");
  classify_torch(wheel, "/opt/venv/lib/python3.10/site-packages", knowledge());
  CHECK_FALSE(is_other_rocm_build(wheel));
  CHECK(wheel_index(wheel) == "rocm6.2.4");
}

TEST_CASE("a wheel's ROCm release keeps its patch level", "[torch][rocm]") {
  CHECK(wheel_rocm_release(torch("2.3.1+rocm6.0"), knowledge()) == "6.0");
  CHECK(wheel_rocm_release(torch("2.6.0+rocm6.2.4"), knowledge()) == "6.2.4");
  CHECK(wheel_rocm_release(torch("2.9.1+rocm7.2.0.git7e1940d4"), knowledge()) == "7.2.0");
  CHECK(rocm_release_of("6.0.2-115") == "6.0.2");
  CHECK(rocm_release_of("6.2.41134-65d174c3e") == "6.2.41134");
  CHECK(same_rocm("6.0", "6.0.0"));
  CHECK_FALSE(same_rocm("6.0", "6.0.2"));
  CHECK(same_rocm("6.2.4", "6.2.4"));
}

TEST_CASE("a build known only by torch.version.hip is read through the HIP table",
          "[torch][rocm]") {
  // From ROCm 10.0 HIP is not numbered as ROCm: 10.0 ships HIP 7.15, 10.1 HIP 7.16.
  CHECK(knowledge().rocm_of_hip("7.15.26333") == "10.0");
  CHECK(knowledge().rocm_of_hip("7.16.26405-abc") == "10.1");
  CHECK(knowledge().rocm_of_hip("7.14.60850") == "7.14");
  CHECK(knowledge().rocm_of_hip("6.2.41134-65d174c3e") == "6.2");
  CHECK(knowledge().rocm_of_hip("5.5.30201") == "5.5");            // older than the table: the same
  CHECK_FALSE(knowledge().rocm_of_hip("7.17.26301").has_value());  // 10.2 previews: unknown
  CHECK_FALSE(knowledge().rocm_of_hip("hip").has_value());
  TorchInstall built = torch("2.13.0a0");  // a local build: no +rocm tag
  built.hip = "7.15.26333";
  CHECK(wheel_rocm(built, knowledge()) == "10.0");
  CHECK(wheel_rocm_release(built, knowledge()) == "10.0");
  built.hip = "7.17.26301";
  CHECK_FALSE(wheel_rocm(built, knowledge()).has_value());
  built.hip = "6.4.43482";
  CHECK(wheel_rocm(built, knowledge()) == "6.4");
}

TEST_CASE("companion rules that need no table", "[torch][companions]") {
  CHECK(tag_rocm_version("rocm6.2.4") == "6.2.4");
  CHECK(tag_rocm_version("rocm7.2.0.git7e1940d4") == "7.2.0");
  CHECK_FALSE(tag_rocm_version("cu124").has_value());
  CHECK(nightly_date("2.10.0.dev20251019+rocm7.0") == 20251019);
  CHECK_FALSE(nightly_date("2.10.0+rocm7.0").has_value());
  CHECK(days_between(20251019, 20251020) == 1);
  CHECK(days_between(20251231, 20260101) == 1);
  CHECK(days_between(20240229, 20240301) == 1);

  const auto mismatches = [](const char* t, const char* name, const char* version) {
    return structural_mismatches(torch(t), PythonPackage{name, version, {}}, "2.11.0");
  };
  // AMD's 7.2 set: torch 2.9.1, torchvision 0.24.0, torchaudio 2.9.0 (patch levels drift).
  CHECK(mismatches("2.9.1+rocm7.2.0.git7e1940d4", "torchvision", "0.24.0+rocm7.2.0.gitb919bd0c")
            .empty());
  CHECK(mismatches("2.9.1+rocm7.2.0.git7e1940d4", "torchaudio", "2.9.0+rocm7.2.0.giteb537180")
            .empty());
  CHECK(mismatches("2.9.1+rocm7.2.0.git7e1940d4", "torchvision", "0.23.0+rocm7.2.0").size() == 1);
  CHECK(mismatches("2.9.1+rocm7.2.0.git7e1940d4", "torchaudio", "2.10.0+rocm7.2.0").size() == 1);
  // torchaudio ended at 2.11, which pairs with every later torch (TheRock, Debian).
  CHECK(mismatches("2.14.1+debian", "torchaudio", "2.11.0").empty());
  CHECK(mismatches("2.14.1+debian", "torchaudio", "2.10.0").size() == 1);
  // Debian pairs torch 2.14.1 with torchvision 0.27.0: not the 0.29 series.
  CHECK(mismatches("2.14.1+debian", "torchvision", "0.27.0").size() == 1);
  // One night's nightlies may carry dates a day apart (AMD-AGI/Primus#249).
  CHECK(mismatches("2.10.0.dev20251019+rocm7.0", "torchvision", "0.25.0.dev20251020+rocm7.0")
            .empty());
  CHECK(mismatches("2.10.0.dev20251019+rocm7.0", "torchvision", "0.25.0.dev20251101+rocm7.0")
            .size() == 1);
  // One night's torchvision may not carry the series number yet (ROCm/legacy-rocm-build#4864:
  // torch 2.8.0.dev20250529 with torchvision 0.22.0.dev20250530): no finding; another night's is.
  CHECK(
      mismatches("2.8.0.dev20250529+rocm6.4", "torchvision", "0.22.0.dev20250530+rocm6.4").empty());
  CHECK(
      mismatches("2.8.0.dev20250529+rocm6.4", "torchvision", "0.22.0.dev20250301+rocm6.4").size() ==
      2);  // the series and the night
  // Built for another ROCm.
  CHECK(
      mismatches("2.9.1+rocm7.2.0.git7e1940d4", "torchvision", "0.24.0+rocm7.1.1.gitabc").size() ==
      1);
}

TEST_CASE("the Triton companion is named by the torch release", "[torch][companions]") {
  PythonEnvironment environment;
  environment.torch = torch("2.10.0+rocm7.0");
  environment.packages = {{"torch", "2.10.0+rocm7.0", {}}, {"pytorch-triton-rocm", "3.5.1", {}}};
  CHECK(triton_mismatch(environment, nullptr).has_value());
  environment.packages.push_back({"triton-rocm", "3.6.0", {}});
  CHECK_FALSE(triton_mismatch(environment, nullptr).has_value());
  environment.torch = torch("2.9.1+rocm6.4");
  environment.packages = {{"torch", "2.9.1+rocm6.4", {}}, {"pytorch-triton-rocm", "3.5.1", {}}};
  CHECK_FALSE(triton_mismatch(environment, nullptr).has_value());
  environment.packages.push_back({"triton", "3.5.1", {}});  // PyPI's CUDA triton beside it
  CHECK(triton_mismatch(environment, nullptr).has_value());
  CHECK(last_torchaudio(knowledge()) == "2.11.0");
}
