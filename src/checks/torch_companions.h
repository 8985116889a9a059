// Whether torchvision, torchaudio and the Triton package suit the torch beside them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rocdoc/check.h"

namespace rocdoc::checks {

/// The ROCm version in a local tag: "rocm6.2.4" → "6.2.4", "rocm7.2.0.git7e1940d4" → "7.2.0",
/// "rocm6.2" → "6.2"; nullopt without one.
std::optional<std::string> tag_rocm_version(const std::string& tag);

/// The date of a nightly: "2.10.0.dev20251019+rocm7.0" → 20251019.
std::optional<int> nightly_date(const std::string& version);

/// Days between two yyyymmdd dates.
int days_between(int a, int b);

/// Mismatches that need no table (nightlies, AMD and TheRock builds, distributions, versions
/// newer than the rules): torchaudio's major.minor is torch's (or the last torchaudio,
/// `last_torchaudio`, beside a newer torch; never newer than torch), torchvision is
/// 0.(minor+15), nightly dates within two days, the same ROCm in the local tags.
std::vector<std::string> structural_mismatches(const TorchInstall& torch,
                                               const PythonPackage& package,
                                               const std::string& last_torchaudio);

/// The Triton package a ROCm torch from pytorch.org needs: pytorch-triton-rocm before 2.10,
/// triton-rocm from 2.10. What is wrong with the Triton packages installed; nullopt when fine.
std::optional<std::string> triton_mismatch(const PythonEnvironment& environment,
                                           const TorchRelease* release);

/// The newest torchaudio the knowledge base lists as published ("2.11.0").
std::string last_torchaudio(const Knowledge& knowledge);

}  // namespace rocdoc::checks
