#include "probes/access.h"

#include <algorithm>

#include "src/util/strings.h"

namespace rocdoc {

namespace {

std::optional<DeviceNode> read_node(const Host& host, const std::string& path,
                                    const std::optional<std::vector<GroupEntry>>& groups) {
  const auto stat = host.stat(path);
  if (!stat) {
    return std::nullopt;
  }
  DeviceNode node;
  node.path = path;
  node.stat = *stat;
  node.open = host.open_device(path);
  if (groups) {
    const auto it = std::find_if(groups->begin(), groups->end(),
                                 [&](const GroupEntry& g) { return g.gid == stat->gid; });
    if (it != groups->end()) {
      node.group_name = it->name;
    }
  }
  return node;
}

}  // namespace

std::vector<GroupEntry> parse_group_file(std::string_view content) {
  std::vector<GroupEntry> groups;
  for (const auto raw : util::lines(content)) {
    const std::string_view line = util::trim(raw);
    if (line.empty() || line.front() == '#') {
      continue;
    }
    const auto fields = util::split(line, ':');
    if (fields.size() < 3 || fields[0].empty()) {
      continue;
    }
    const auto gid = util::parse_unsigned(fields[2]);
    if (!gid) {
      continue;
    }
    GroupEntry entry;
    entry.name = std::string(fields[0]);
    entry.gid = static_cast<std::uint32_t>(*gid);
    if (fields.size() >= 4) {
      for (const auto member : util::split(fields[3], ',')) {
        if (!util::trim(member).empty()) {
          entry.members.emplace_back(util::trim(member));
        }
      }
    }
    groups.push_back(std::move(entry));
  }
  return groups;
}

AccessFacts probe_access(const ProbeContext& context) {
  const Host& host = context.host;
  AccessFacts facts;
  facts.identity = host.identity();
  if (const auto content = host.read_file("/etc/group", 1 << 20)) {
    facts.etc_group = parse_group_file(*content);
  }
  facts.kfd = read_node(host, "/dev/kfd", facts.etc_group);
  if (const auto names = host.list_dir("/dev/dri")) {
    for (const auto& name : *names) {
      if (name.rfind("renderD", 0) == 0) {
        if (auto node = read_node(host, "/dev/dri/" + name, facts.etc_group)) {
          facts.render_nodes.push_back(std::move(*node));
        }
      }
    }
  }
  return facts;
}

}  // namespace rocdoc
