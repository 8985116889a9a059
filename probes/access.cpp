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
    const auto gid = util::parse_number<std::uint32_t>(fields[2]);
    if (!gid) {
      continue;
    }
    GroupEntry entry;
    entry.name = std::string(fields[0]);
    entry.gid = *gid;
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

namespace {

std::optional<Identity> sudo_user_identity(const Host& host,
                                           const std::optional<std::vector<GroupEntry>>& groups) {
  const auto user = host.env("SUDO_USER");
  const auto uid = host.env("SUDO_UID");
  if (!user || user->empty() || *user == "root" || !uid) {
    return std::nullopt;
  }
  const auto uid_value = util::parse_number<std::uint32_t>(*uid);
  if (!uid_value) {
    return std::nullopt;
  }
  Identity identity;
  identity.user = *user;
  identity.uid = *uid_value;
  if (const auto gid = host.env("SUDO_GID")) {
    if (const auto value = util::parse_number<std::uint32_t>(*gid)) {
      identity.gid = *value;
    }
  }
  // The groups the user gets at the next login: the primary one and /etc/group's members.
  if (groups) {
    for (const auto& group : *groups) {
      const bool member =
          std::find(group.members.begin(), group.members.end(), *user) != group.members.end();
      if (member || group.gid == identity.gid) {
        identity.groups.push_back({group.name, group.gid});
      }
    }
  }
  return identity;
}

}  // namespace

AccessFacts probe_access(const ProbeContext& context) {
  const Host& host = context.host;
  AccessFacts facts;
  facts.identity = host.identity();
  if (const auto content = host.read_file("/etc/group", 1 << 20)) {
    facts.etc_group = parse_group_file(*content);
  }
  if (facts.identity.uid == 0) {
    facts.sudo_user = sudo_user_identity(host, facts.etc_group);
  }
  facts.kfd = read_node(host, "/dev/kfd", facts.etc_group);
  if (const auto names = host.list_dir("/dev/dri")) {
    check_bound(names->size(), 1024, "entries", "/dev/dri");  // a render node per GPU partition
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
