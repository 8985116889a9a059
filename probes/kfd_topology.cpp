#include "probes/kfd_topology.h"

#include <fmt/format.h>
#include <algorithm>

#include "rocdoc/gfx_target.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_nodes = "/sys/class/kfd/kfd/topology/nodes";

std::uint64_t value_or_zero(const std::map<std::string, std::uint64_t>& properties,
                            const std::string& key) {
  const auto it = properties.find(key);
  return it == properties.end() ? 0 : it->second;
}

std::vector<KfdIoLink> read_io_links(const Host& host, const std::string& node_dir) {
  std::vector<KfdIoLink> links;
  const auto names = host.list_dir(node_dir + "/io_links");
  if (!names) {
    return links;
  }
  for (const auto& name : *names) {
    const auto index = util::parse_unsigned(name);
    const auto content = host.read_file(node_dir + "/io_links/" + name + "/properties", 16 * 1024);
    if (!index || !content) {
      continue;
    }
    const auto properties = parse_kfd_properties(*content);
    KfdIoLink link;
    link.index = static_cast<int>(*index);
    link.type = static_cast<std::uint32_t>(value_or_zero(properties, "type"));
    link.node_from = static_cast<int>(value_or_zero(properties, "node_from"));
    link.node_to = static_cast<int>(value_or_zero(properties, "node_to"));
    link.flags = static_cast<std::uint32_t>(value_or_zero(properties, "flags"));
    links.push_back(link);
  }
  std::sort(links.begin(), links.end(),
            [](const KfdIoLink& a, const KfdIoLink& b) { return a.index < b.index; });
  return links;
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

std::string bdf_from_location(std::uint32_t domain, std::uint32_t location_id) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, (location_id >> 8) & 0xff,
                     (location_id >> 3) & 0x1f, location_id & 0x7);
}

KfdNode kfd_node_from_properties(int index,
                                 const std::map<std::string, std::uint64_t>& properties) {
  KfdNode node;
  node.index = index;
  node.simd_count = static_cast<std::uint32_t>(value_or_zero(properties, "simd_count"));
  node.gfx_target_version =
      static_cast<std::uint32_t>(value_or_zero(properties, "gfx_target_version"));
  node.vendor_id = static_cast<std::uint16_t>(value_or_zero(properties, "vendor_id"));
  node.device_id = static_cast<std::uint16_t>(value_or_zero(properties, "device_id"));
  if (node.is_gpu()) {
    node.gfx_target = gfx_name_from_kfd(node.gfx_target_version).value_or("");
    if (properties.count("drm_render_minor") != 0) {
      node.drm_render_minor = static_cast<int>(value_or_zero(properties, "drm_render_minor"));
    }
    if (properties.count("location_id") != 0) {
      node.bdf =
          bdf_from_location(static_cast<std::uint32_t>(value_or_zero(properties, "domain")),
                            static_cast<std::uint32_t>(value_or_zero(properties, "location_id")));
    }
  }
  return node;
}

KfdFacts probe_kfd_topology(const ProbeContext& context) {
  const Host& host = context.host;
  KfdFacts facts;
  const auto names = host.list_dir(k_nodes);
  if (!names) {
    return facts;
  }
  facts.topology_present = true;
  for (const auto& name : *names) {
    const auto index = util::parse_unsigned(name);
    const std::string dir = std::string(k_nodes) + "/" + name;
    const auto content = host.read_file(dir + "/properties", 64 * 1024);
    if (!index || !content) {
      continue;
    }
    KfdNode node =
        kfd_node_from_properties(static_cast<int>(*index), parse_kfd_properties(*content));
    if (const auto node_name = host.read_file(dir + "/name", 256)) {
      node.name = std::string(util::trim(*node_name));
    }
    if (const auto gpu_id = host.read_file(dir + "/gpu_id", 64)) {
      if (const auto value = util::parse_unsigned(*gpu_id)) {
        node.gpu_id = static_cast<std::uint32_t>(*value);
      }
    }
    node.io_links = read_io_links(host, dir);
    facts.nodes.push_back(std::move(node));
  }
  std::sort(facts.nodes.begin(), facts.nodes.end(),
            [](const KfdNode& a, const KfdNode& b) { return a.index < b.index; });
  return facts;
}

}  // namespace rocdoc
