// Sources of these rules (read, not run): ROCr core/runtime/amd_filter_device.cpp (RvdFilter,
// unchanged since 2020), CLR rocclr/device/rocm/rocdevice.cpp and rocclr/utils/flags.cpp,
// libhsakmt src/topology.c; docs/checks.md#envvisible-devices quotes them.
#include "src/checks/visible_devices.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>

#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

constexpr std::uint16_t k_amd = 0x1002;

/// std::getline's split on ',': a trailing comma adds no empty token, a leading one does.
std::vector<std::string> getline_tokens(std::string_view value) {
  std::vector<std::string> tokens;
  std::string current;
  for (const char c : value) {
    if (c == ',') {
      tokens.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) {
    tokens.push_back(current);
  }
  return tokens;
}

/// strtol(token, &end, 0) consuming the whole token; nullopt when it does not.
std::optional<long> c_integer(const std::string& token) {
  if (token.empty()) {
    return std::nullopt;
  }
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(token.c_str(), &end, 0);
  if (end != token.c_str() + token.size()) {
    return std::nullopt;
  }
  if (errno == ERANGE || value > INT_MAX || value < INT_MIN) {
    return -1;  // ROCr keeps it in an int: LONG_MAX truncates to -1
  }
  return value;
}

bool already(const MaskResult& result, int device) {
  return std::find(result.selected.begin(), result.selected.end(), device) != result.selected.end();
}

/// "01", "+1", " 1" and "0x1" are not HIP indices: atoi(token) must print back as token.
std::optional<long> canonical_decimal(const std::string& token) {
  if (token.empty() || token.size() > 9 ||
      token.find_first_not_of("0123456789") != std::string::npos ||
      (token.size() > 1 && token.front() == '0')) {
    return std::nullopt;
  }
  return std::stol(token);
}

/// CLR's removeQuotes: "0,1" in double quotes (blanks around them allowed) loses them.
std::string_view remove_quotes(std::string_view value) {
  const auto first = value.find_first_not_of(' ');
  if (first == std::string_view::npos || value[first] != '"') {
    return value;
  }
  const auto close = value.find('"', first + 1);
  if (close == std::string_view::npos ||
      value.find_first_not_of(" \t", close + 1) != std::string_view::npos) {
    return value;
  }
  return value.substr(first + 1, close - first - 1);
}

}  // namespace

std::string rocr_uuid(std::uint64_t unique_id) { return fmt::format("GPU-{:016X}", unique_id); }

std::string hip_uuid(std::uint64_t unique_id) { return fmt::format("GPU-{:016x}", unique_id); }

MaskResult apply_rocr_visible_devices(std::string_view value,
                                      const std::vector<std::optional<std::uint64_t>>& uuids) {
  MaskResult result;
  const int count = static_cast<int>(uuids.size());
  bool stopped = false;
  int read = 0;
  for (std::string token : getline_tokens(value)) {
    std::transform(token.begin(), token.end(), token.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    token = std::string(util::trim(token));
    MaskToken entry{token, TokenVerdict::not_read, std::nullopt};
    if (stopped || read >= count) {
      result.tokens.push_back(entry);
      continue;
    }
    ++read;
    if (token.empty()) {
      entry.verdict = TokenVerdict::empty;
      result.init_fails = true;
    } else if (token.front() == 'G') {
      std::vector<int> matches;
      for (int i = 0; i < count; ++i) {
        if (uuids[static_cast<std::size_t>(i)].value_or(0) != 0 &&
            rocr_uuid(*uuids[static_cast<std::size_t>(i)]).rfind(token, 0) == 0) {
          matches.push_back(i);
        }
      }
      if (token.size() < 5 || token.size() > 20) {
        entry.verdict = TokenVerdict::malformed;
      } else if (matches.empty()) {
        entry.verdict = TokenVerdict::unknown_uuid;
      } else if (matches.size() > 1) {
        entry.verdict = TokenVerdict::ambiguous_uuid;
      } else {
        entry.device = matches.front();
        entry.verdict =
            already(result, matches.front()) ? TokenVerdict::duplicate : TokenVerdict::selected;
      }
    } else if (const auto index = c_integer(token)) {
      if (*index < 0 || *index >= count) {
        entry.verdict = TokenVerdict::out_of_range;
      } else {
        entry.device = static_cast<int>(*index);
        entry.verdict = already(result, static_cast<int>(*index)) ? TokenVerdict::duplicate
                                                                  : TokenVerdict::selected;
      }
    } else {
      entry.verdict = TokenVerdict::malformed;
    }
    if (entry.verdict == TokenVerdict::selected) {
      result.selected.push_back(*entry.device);
    } else {
      stopped = true;  // RvdFilter stops at the first token it cannot use
    }
    result.tokens.push_back(entry);
  }
  if (result.init_fails) {
    result.selected.clear();
  }
  return result;
}

MaskResult apply_hip_visible_devices(std::string_view value,
                                     const std::vector<std::optional<std::uint64_t>>& uuids) {
  MaskResult result;
  const int count = static_cast<int>(uuids.size());
  // CLR stores a variable set to "" as " ": an invalid first token, so no device.
  const std::string text = value.empty() ? std::string(" ") : std::string(remove_quotes(value));
  bool stopped = false;
  std::size_t position = 0;
  while (position < text.size()) {
    const auto comma = text.find(',', position);
    const std::string token =
        text.substr(position, comma == std::string::npos ? std::string::npos : comma - position);
    position = comma == std::string::npos ? text.size() : comma + 1;
    MaskToken entry{token, TokenVerdict::not_read, std::nullopt};
    if (stopped) {
      result.tokens.push_back(entry);
      continue;
    }
    std::optional<int> device;
    if (token.find("GPU-") != std::string::npos) {
      for (int i = 0; i < count && !device; ++i) {
        const auto uuid = uuids[static_cast<std::size_t>(i)].value_or(0);
        const std::string name = uuid == 0 ? std::string("GPU-XX") : hip_uuid(uuid);
        if (name.find(token) != std::string::npos) {
          device = i;
        }
      }
      entry.verdict = device ? TokenVerdict::selected : TokenVerdict::unknown_uuid;
    } else if (const auto index = canonical_decimal(token)) {
      if (*index < count) {
        device = static_cast<int>(*index);
        entry.verdict = TokenVerdict::selected;
      } else {
        entry.verdict = TokenVerdict::out_of_range;
      }
    } else {
      entry.verdict = token.rfind('-', 0) == 0 && canonical_decimal(token.substr(1))
                          ? TokenVerdict::out_of_range
                          : TokenVerdict::malformed;
    }
    if (device) {
      entry.device = device;
      if (already(result, *device)) {
        entry.verdict = TokenVerdict::duplicate;  // skipped; parsing goes on
      } else {
        result.selected.push_back(*device);
      }
    } else {
      stopped = true;
    }
    result.tokens.push_back(entry);
  }
  return result;
}

bool DeviceView::hip_sees(const AmdGpu& gpu) const {
  return std::any_of(hip_devices.begin(), hip_devices.end(),
                     [&](const RuntimeDevice& d) { return d.gpu == &gpu; });
}

std::optional<int> DeviceView::agent_index(const AmdGpu& gpu) const {
  for (std::size_t i = 0; i < agents.size(); ++i) {
    if (agents[i].gpu == &gpu) {
      return static_cast<int>(i);
    }
  }
  return std::nullopt;
}

namespace {

std::vector<std::optional<std::uint64_t>> uuids_of(const std::vector<RuntimeDevice>& devices) {
  std::vector<std::optional<std::uint64_t>> uuids;
  for (const auto& device : devices) {
    uuids.push_back(device.node->unique_id);
  }
  return uuids;
}

std::vector<RuntimeDevice> pick(const std::vector<RuntimeDevice>& from, const MaskResult& mask) {
  std::vector<RuntimeDevice> picked;
  for (const int position : mask.selected) {
    picked.push_back(from[static_cast<std::size_t>(position)]);
  }
  return picked;
}

/// libhsakmt's GPU nodes: KFD order, without nodes whose render node this process cannot
/// open for want of the device (ENOENT, EPERM), and without GPUs this process was not given.
std::vector<RuntimeDevice> kfd_gpus(const CheckContext& context) {
  std::vector<RuntimeDevice> devices;
  if (!context.facts.kfd) {
    return devices;
  }
  const auto* access = context.facts.access ? &*context.facts.access : nullptr;
  for (const auto& node : context.facts.kfd->nodes) {
    if (!node.is_gpu() || node.vendor_id != k_amd) {
      continue;
    }
    const AmdGpu* owner = nullptr;
    for (const auto& gpu : context.amd_gpus) {
      if (std::find(gpu.kfd_nodes.begin(), gpu.kfd_nodes.end(), &node) != gpu.kfd_nodes.end()) {
        owner = &gpu;
      }
    }
    if (owner == nullptr) {
      continue;
    }
    if (access != nullptr && !access->render_nodes.empty() && node.drm_render_minor) {
      const auto render = std::find_if(
          access->render_nodes.begin(), access->render_nodes.end(), [&](const DeviceNode& n) {
            return n.stat.minor && static_cast<int>(*n.stat.minor) == *node.drm_render_minor;
          });
      if (render == access->render_nodes.end() || render->open.error == "ENOENT" ||
          render->open.error == "EPERM") {
        continue;
      }
    }
    devices.push_back({&node, owner});
  }
  return devices;
}

bool nvidia_present(const CheckContext& context) {
  return context.facts.pci &&
         std::any_of(context.facts.pci->devices.begin(), context.facts.pci->devices.end(),
                     [](const PciDevice& d) { return d.gpu == GpuVendor::nvidia; });
}

}  // namespace

DeviceView compose_visible_devices(const CheckContext& context) {
  DeviceView view;
  view.kfd_gpus = kfd_gpus(context);
  view.agents = view.kfd_gpus;
  const EnvFacts* env = context.facts.env ? &*context.facts.env : nullptr;
  const auto variable = [&](const char* name) -> const std::string* {
    return env != nullptr ? env->find(name) : nullptr;
  };
  if (const std::string* rocr = variable("ROCR_VISIBLE_DEVICES")) {
    MaskResult result = apply_rocr_visible_devices(*rocr, uuids_of(view.kfd_gpus));
    view.agents = pick(view.kfd_gpus, result);
    view.rocr = AppliedMask{"ROCR_VISIBLE_DEVICES", *rocr, std::move(result)};
  }
  view.hip_devices = view.agents;
  const std::string* hip = variable("HIP_VISIBLE_DEVICES");
  const std::string* cuda = nvidia_present(context) ? nullptr : variable("CUDA_VISIBLE_DEVICES");
  if (hip != nullptr && cuda != nullptr) {
    view.shadowed = "CUDA_VISIBLE_DEVICES";
  }
  if (const std::string* chosen = hip != nullptr ? hip : cuda) {
    MaskResult result = apply_hip_visible_devices(*chosen, uuids_of(view.agents));
    view.hip_devices = pick(view.agents, result);
    view.hip = AppliedMask{hip != nullptr ? "HIP_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES", *chosen,
                           std::move(result)};
  }
  view.opencl_devices = view.agents;
  if (const std::string* ordinal = variable("GPU_DEVICE_ORDINAL")) {
    MaskResult result = apply_hip_visible_devices(*ordinal, uuids_of(view.agents));
    view.opencl_devices = pick(view.agents, result);
    view.ordinal = AppliedMask{"GPU_DEVICE_ORDINAL", *ordinal, std::move(result)};
  }
  return view;
}

}  // namespace rocdoc::checks
