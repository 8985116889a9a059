#include "probes/kfd_topology.h"

#include <fmt/format.h>
#include <algorithm>
#include <limits>

#include "probes/pci.h"
#include "rocdoc/gfx_target.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_nodes = "/sys/class/kfd/kfd/topology/nodes";
constexpr std::uint16_t k_amd = 0x1002;
// An 8-GPU MI300X in CPX mode has 64 GPU nodes and a few CPU nodes.
constexpr std::size_t k_max_kfd_nodes = 1024;

/// A property that fits T; nullopt when it is absent or out of T's range (never wrapped).
template <typename T>
std::optional<T> narrow(const std::map<std::string, std::uint64_t>& properties,
                        const std::string& key) {
  const auto it = properties.find(key);
  if (it == properties.end() ||
      it->second > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
    return std::nullopt;
  }
  return static_cast<T>(it->second);
}

/// A node's io_links/ or p2p_links/ (`kind`): each link's properties.
std::vector<KfdIoLink> read_links(const Host& host, const std::string& node_dir,
                                  std::string_view kind) {
  std::vector<KfdIoLink> links;
  const std::string dir = node_dir + "/" + std::string(kind);
  const auto names = host.list_dir(dir);
  if (!names) {
    return links;
  }
  check_bound(names->size(), k_max_kfd_nodes, "KFD links", dir);
  for (const auto& name : *names) {
    const auto index = util::parse_unsigned(name);
    const auto content = host.read_file(dir + "/" + name + "/properties", 16 * 1024);
    if (!index || *index > 0xffff || !content) {
      continue;
    }
    links.push_back(
        kfd_link_from_properties(static_cast<int>(*index), parse_kfd_properties(*content)));
  }
  std::sort(links.begin(), links.end(),
            [](const KfdIoLink& a, const KfdIoLink& b) { return a.index < b.index; });
  return links;
}

/// A GPU node's memory banks (mem_banks/<n>/properties: heap_type, size_in_bytes).
std::vector<KfdMemBank> read_mem_banks(const Host& host, const std::string& node_dir) {
  std::vector<KfdMemBank> banks;
  const auto names = host.list_dir(node_dir + "/mem_banks");
  if (!names) {
    return banks;
  }
  check_bound(names->size(), k_max_kfd_nodes, "memory banks", node_dir + "/mem_banks");
  for (const auto& name : *names) {
    const auto content = host.read_file(node_dir + "/mem_banks/" + name + "/properties", 16 * 1024);
    if (!util::parse_unsigned(name) || !content) {
      continue;
    }
    const auto properties = parse_kfd_properties(*content);
    const auto size = properties.find("size_in_bytes");
    if (size == properties.end()) {
      continue;
    }
    banks.push_back({narrow<std::uint32_t>(properties, "heap_type").value_or(0), size->second});
  }
  return banks;
}

}  // namespace

std::map<std::string, std::uint64_t> parse_kfd_properties(std::string_view content) {
  std::map<std::string, std::uint64_t> properties;
  for (const auto line : util::lines(content)) {
    const auto words = util::split_whitespace(line);
    if (words.size() != 2) {
      continue;
    }
    if (const auto value = util::parse_unsigned(words[1])) {
      properties.emplace(std::string(words[0]), *value);
    }
  }
  return properties;
}

KfdIoLink kfd_link_from_properties(int index,
                                   const std::map<std::string, std::uint64_t>& properties) {
  KfdIoLink link;
  link.index = index;
  link.type = narrow<std::uint32_t>(properties, "type").value_or(0);
  link.node_from = narrow<int>(properties, "node_from").value_or(0);
  link.node_to = narrow<int>(properties, "node_to").value_or(0);
  link.flags = narrow<std::uint32_t>(properties, "flags").value_or(0);
  link.weight = narrow<std::uint32_t>(properties, "weight");
  link.min_bandwidth = narrow<std::uint32_t>(properties, "min_bandwidth");
  link.max_bandwidth = narrow<std::uint32_t>(properties, "max_bandwidth");
  return link;
}

std::string bdf_from_location(std::uint32_t domain, std::uint32_t location_id) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, (location_id >> 8) & 0xff,
                     (location_id >> 3) & 0x1f, location_id & 0x7);
}

KfdNode kfd_node_from_properties(int index,
                                 const std::map<std::string, std::uint64_t>& properties) {
  KfdNode node;
  node.index = index;
  node.simd_count = narrow<std::uint32_t>(properties, "simd_count").value_or(0);
  node.vendor_id = narrow<std::uint16_t>(properties, "vendor_id").value_or(0);
  node.device_id = narrow<std::uint16_t>(properties, "device_id").value_or(0);
  if (!node.is_gpu()) {
    return node;
  }
  node.gfx_target_version = narrow<std::uint32_t>(properties, "gfx_target_version");
  node.wave_front_size = narrow<std::uint32_t>(properties, "wave_front_size");
  if (node.wave_front_size == 0U) {
    node.wave_front_size.reset();  // a value KFD did not fill in
  }
  if (node.gfx_target_version && *node.gfx_target_version != 0) {
    if (auto name = gfx_name_from_kfd(*node.gfx_target_version)) {
      node.gfx_target = std::move(*name);
      node.target_source = TargetSource::gfx_target_version;
    }
  }
  if (properties.count("unique_id") != 0) {
    node.unique_id = properties.at("unique_id");
  }
  node.drm_render_minor = narrow<int>(properties, "drm_render_minor");
  node.io_links_count = narrow<std::uint32_t>(properties, "io_links_count");
  node.p2p_links_count = narrow<std::uint32_t>(properties, "p2p_links_count");
  if (properties.count("hive_id") != 0) {
    node.hive_id = properties.at("hive_id");
  }
  const auto location = narrow<std::uint32_t>(properties, "location_id");
  if (location) {
    node.bdf =
        bdf_from_location(narrow<std::uint32_t>(properties, "domain").value_or(0), *location);
  }
  return node;
}

void target_from_device_id(KfdNode& node, const Knowledge& knowledge) {
  if (!node.is_gpu() || !node.gfx_target.empty() || node.vendor_id != k_amd) {
    return;
  }
  if (const PciIdEntry* known = knowledge.amd_pci_id(node.device_id)) {
    node.gfx_target = known->gfx;
    node.target_source = TargetSource::device_id;
  }
}

std::optional<std::string> bdf_of_device_link(std::string_view target) {
  // "../../../0000:03:00.0" or "/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0"
  const auto slash = target.find_last_of('/');
  const std::string_view last = slash == std::string_view::npos ? target : target.substr(slash + 1);
  if (!is_bdf(last)) {
    return std::nullopt;
  }
  return std::string(last);
}

KfdFacts probe_kfd_topology(const ProbeContext& context) {
  const Host& host = context.host;
  KfdFacts facts;
  const auto names = host.list_dir(k_nodes);
  if (!names) {
    return facts;
  }
  facts.topology_present = true;
  check_bound(names->size(), k_max_kfd_nodes, "KFD topology nodes", k_nodes);
  for (const auto& name : *names) {
    const auto index = util::parse_unsigned(name);
    if (!index || *index > 0xffff) {
      continue;
    }
    const std::string dir = std::string(k_nodes) + "/" + name;
    const FileRead properties = host.read_file_or_error(dir + "/properties", 64 * 1024);
    KfdNode node;
    if (properties.content) {
      node = kfd_node_from_properties(static_cast<int>(*index),
                                      parse_kfd_properties(*properties.content));
    } else {
      node.index = static_cast<int>(*index);
      node.unreadable = properties.error.empty() ? "EIO" : properties.error;
      facts.nodes.push_back(std::move(node));
      continue;  // name and gpu_id are refused alike (kfd_topology.c node_show)
    }
    target_from_device_id(node, context.knowledge.get());
    if (const auto node_name = host.read_file(dir + "/name", 256)) {
      node.name = std::string(util::trim(*node_name));
    }
    if (const auto gpu_id = host.read_file(dir + "/gpu_id", 64)) {
      node.gpu_id = util::parse_number<std::uint32_t>(*gpu_id);
    }
    if (node.is_gpu() && node.drm_render_minor) {
      if (const auto link = host.read_link(
              fmt::format("/sys/class/drm/renderD{}/device", *node.drm_render_minor))) {
        node.render_bdf = bdf_of_device_link(*link);
      }
    }
    node.io_links = read_links(host, dir, "io_links");
    if (node.is_gpu()) {
      if (node.p2p_links_count) {
        node.p2p_links = read_links(host, dir, "p2p_links");
      }
      node.mem_banks = read_mem_banks(host, dir);
    }
    facts.nodes.push_back(std::move(node));
  }
  std::sort(facts.nodes.begin(), facts.nodes.end(),
            [](const KfdNode& a, const KfdNode& b) { return a.index < b.index; });
  return facts;
}

}  // namespace rocdoc
