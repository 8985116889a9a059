// Rules without a table (docs/checks.md#torchcompanions): torchvision 0.(minor+15) holds for
// every torch 2.x (pytorch/vision README); torchaudio shares torch's major.minor until its
// last release (pytorch/audio#3902: maintenance mode; 2.11 pairs with every later torch in
// TheRock's and Debian's sets); nightlies of one night can carry dates a day apart
// (torch 2.10.0.dev20251019 with torchvision 0.25.0.dev20251020, AMD-AGI/Primus#249).
#include "src/checks/torch_companions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "src/checks/software.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

constexpr int k_nightly_days = 2;

bool has(const PythonEnvironment& environment, const std::string& name) {
  return environment.package(name) != nullptr;
}

std::optional<std::pair<int, int>> major_minor_numbers(const std::string& version) {
  const auto numbers = util::version_numbers(base_version(version));
  if (!numbers || numbers->size() < 2) {
    return std::nullopt;
  }
  return std::pair((*numbers)[0], (*numbers)[1]);
}

/// Days since an epoch, for yyyymmdd (proleptic Gregorian).
long day_number(int date) {
  int y = date / 10000;
  const int m = (date / 100) % 100;
  const int d = date % 100;
  y -= m <= 2 ? 1 : 0;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<long>(era) * 146097 + doe;
}

}  // namespace

std::optional<std::string> tag_rocm_version(const std::string& tag) {
  if (tag.rfind("rocm", 0) != 0) {
    return std::nullopt;
  }
  std::string version = tag.substr(4, tag.find_first_not_of("0123456789.", 4) - 4);
  while (!version.empty() && version.back() == '.') {
    version.pop_back();
  }
  return version.empty() ? std::nullopt : std::optional(version);
}

std::optional<int> nightly_date(const std::string& version) {
  const auto dev = version.find(".dev");
  if (dev == std::string::npos) {
    return std::nullopt;
  }
  const std::string date = version.substr(dev + 4, 8);
  const auto value = util::parse_unsigned(date);
  if (date.size() != 8 || !value) {
    return std::nullopt;
  }
  return static_cast<int>(*value);
}

int days_between(int a, int b) {
  return static_cast<int>(std::labs(day_number(a) - day_number(b)));
}

std::vector<std::string> structural_mismatches(const TorchInstall& torch,
                                               const PythonPackage& package,
                                               const std::string& last_torchaudio) {
  std::vector<std::string> found;
  const auto t = major_minor_numbers(torch.version);
  const auto p = major_minor_numbers(package.version);
  // Nightlies and pre-releases (TheRock's 2.10.0a0 shipped torchaudio 2.8.0a0, TheRock#2110)
  // carry whatever torchaudio version its branch had: only releases share major.minor.
  const std::string base = base_version(torch.version);
  const bool nightly = nightly_date(torch.version).has_value() ||
                       base.find_first_not_of("0123456789.") != std::string::npos;
  // Nightlies of one night come from one index, whatever their numbers say: torch
  // 2.8.0.dev20250529 with torchvision 0.22.0.dev20250530 (ROCm/legacy-rocm-build#4864) is such
  // a pair; the day check below judges them.
  const auto torch_night = nightly_date(torch.version);
  const auto package_night = nightly_date(package.version);
  const bool same_night =
      torch_night && package_night && days_between(*torch_night, *package_night) <= k_nightly_days;
  if (t && p && t->first == 2 && package.name == "torchvision" && !same_night &&
      (p->first != 0 || p->second != t->second + 15)) {
    found.push_back(fmt::format("torchvision {} is not the 0.{} series that torch {}.{} needs",
                                package.version, t->second + 15, t->first, t->second));
  }
  if (t && p && !nightly && package.name == "torchaudio" && *p != *t) {
    const auto last = major_minor_numbers(last_torchaudio);
    const bool final_release = last && *p == *last && *t > *last;
    if (!final_release) {
      found.push_back(fmt::format("torchaudio {} does not share torch {}'s major.minor{}",
                                  package.version, torch.version, *p > *t ? " (it is newer)" : ""));
    }
  }
  const auto torch_date = nightly_date(torch.version);
  const auto package_date = nightly_date(package.version);
  if (torch_date && package_date && days_between(*torch_date, *package_date) > k_nightly_days) {
    found.push_back(fmt::format("{} {} is a nightly of another day than torch {}", package.name,
                                package.version, torch.version));
  }
  const auto torch_rocm = tag_rocm_version(local_tag(torch.version));
  const auto package_rocm = tag_rocm_version(local_tag(package.version));
  if (torch_rocm && package_rocm && *torch_rocm != *package_rocm) {
    found.push_back(fmt::format("{} {} is built for ROCm {}, torch {} for ROCm {}", package.name,
                                package.version, *package_rocm, torch.version, *torch_rocm));
  }
  return found;
}

std::optional<std::string> triton_mismatch(const PythonEnvironment& environment,
                                           const TorchRelease* release) {
  const TorchInstall& torch = *environment.torch;
  const auto version = util::version_numbers(base_version(torch.version));
  if (!version || version->size() < 2 || (*version)[0] < 2) {
    return std::nullopt;
  }
  const bool renamed = *version >= std::vector<int>{2, 10};
  const std::string right = renamed ? "triton-rocm" : "pytorch-triton-rocm";
  const std::string wrong = renamed ? "pytorch-triton-rocm" : "triton-rocm";
  if (const PythonPackage* stale = environment.package(wrong); stale && !has(environment, right)) {
    return fmt::format("torch {} needs {}, but {} {} is installed (the Triton of torch {} 2.10)",
                       torch.version, right, wrong, stale->version, renamed ? "before" : "from");
  }
  if (const PythonPackage* cuda = environment.package("triton");
      cuda && local_tag(cuda->version).rfind("rocm", 0) != 0) {
    return fmt::format(
        "triton {} (PyPI's CUDA build) is installed beside torch {}: it owns the same `triton` "
        "module as {} and breaks torch.compile on ROCm",
        cuda->version, torch.version, right);
  }
  const PythonPackage* triton = environment.package(right);
  // Compared by major.minor: 2.14.1 pins triton-rocm~=3.8.0, any 3.8.x.
  if (triton != nullptr && release != nullptr && !release->triton_rocm.empty() &&
      major_minor_numbers(triton->version) != major_minor_numbers(release->triton_rocm)) {
    return fmt::format("{} {} does not pair with torch {} (it pairs with {})", right,
                       triton->version, release->torch, release->triton_rocm);
  }
  return std::nullopt;
}

std::string last_torchaudio(const Knowledge& knowledge) {
  for (auto it = knowledge.torch_releases.rbegin(); it != knowledge.torch_releases.rend(); ++it) {
    if (!it->torchaudio.empty()) {
      return it->torchaudio;
    }
  }
  return "";
}

}  // namespace rocdoc::checks
