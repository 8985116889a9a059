#include "probes/pci_topology.h"

#include <algorithm>
#include <set>

#include "src/util/pci_config.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_devices = "/sys/bus/pci/devices";
constexpr std::uint64_t k_resource_mem = 0x200;        // IORESOURCE_MEM
constexpr std::uint64_t k_resource_prefetch = 0x2000;  // IORESOURCE_PREFETCH
constexpr std::uint64_t k_resource_mem_64 = 0x100000;  // IORESOURCE_MEM_64
constexpr std::size_t k_bars = 6;
constexpr std::uint16_t k_acs_id = 0x000d;  // PCI_EXT_CAP_ID_ACS

/// "0x00000000fc000000" → 0xfc000000.
std::optional<std::uint64_t> hex_word(std::string_view word) {
  return util::parse_unsigned(word, 0);
}

}  // namespace

std::vector<PciBar> parse_pci_resources(std::string_view content) {
  std::vector<PciBar> bars;
  int index = 0;
  for (const auto line : util::lines(content)) {
    if (static_cast<std::size_t>(index) >= k_bars) {
      break;
    }
    const auto words = util::split_whitespace(line);
    const int this_index = index++;
    if (words.size() != 3) {
      continue;
    }
    const auto start = hex_word(words[0]);
    const auto end = hex_word(words[1]);
    const auto flags = hex_word(words[2]);
    if (!start || !end || !flags || *end <= *start || (*flags & k_resource_mem) == 0) {
      continue;
    }
    bars.push_back({this_index, *end - *start + 1, (*flags & k_resource_prefetch) != 0,
                    (*flags & k_resource_mem_64) != 0});
  }
  return bars;
}

std::optional<PciAcs> parse_acs(std::string_view config) {
  if (config.size() < 256) {
    return std::nullopt;  // 64 bytes: read by a user who is not root
  }
  PciAcs acs;
  if (const auto at = util::pci_extended_capability(config, k_acs_id)) {
    acs.present = true;
    acs.control = static_cast<std::uint16_t>(util::little_endian(config, *at + 6, 2));
  }
  return acs;
}

std::optional<int> parse_numa_node(std::string_view content) {
  const auto value = util::parse_unsigned(util::trim(content));
  if (!value || *value > 4096) {
    return std::nullopt;
  }
  return static_cast<int>(*value);
}

void read_placement(const Host& host, const std::string& dir, PciDevice& device) {
  if (const auto text = host.read_file(dir + "/numa_node", 64)) {
    device.numa_node = parse_numa_node(*text);
  }
  if (const auto text = host.read_file(dir + "/local_cpulist", 4096)) {
    const auto cpus = util::trim(*text);
    if (!cpus.empty()) {
      device.local_cpus = std::string(cpus);
    }
  }
  if (const auto text = host.read_file(dir + "/resource", 4096)) {
    device.bars = parse_pci_resources(*text);
  }
  if (const auto group = host.read_link(dir + "/iommu_group")) {
    const auto slash = group->find_last_of('/');
    const std::string number = slash == std::string::npos ? *group : group->substr(slash + 1);
    if (util::parse_unsigned(number)) {
      device.iommu_group = number;
      if (const auto type = host.read_file("/sys/kernel/iommu_groups/" + number + "/type", 64)) {
        device.iommu_domain = std::string(util::trim(*type));
      }
    }
  }
}

void read_bridge_acs(const Host& host, std::vector<PciDevice>& devices) {
  std::set<std::string> bridges;
  int amd_gpus = 0;
  for (const auto& device : devices) {
    if (device.is_amd_gpu()) {
      ++amd_gpus;
      bridges.insert(device.upstream.begin(), device.upstream.end());
    }
  }
  if (amd_gpus < 2) {
    return;  // peer-to-peer needs two
  }
  for (auto& device : devices) {
    if (device.is_bridge() && bridges.count(device.bdf) != 0) {
      if (const auto config =
              host.read_file(std::string(k_devices) + "/" + device.bdf + "/config", 4096)) {
        device.acs = parse_acs(*config);
      }
    }
  }
}

}  // namespace rocdoc
