// Permission checks: can this process open /dev/kfd and the AMD render nodes, and if not, why.
#include <fmt/format.h>
#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

#include "src/checks/access_math.h"
#include "src/checks/checks.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

bool in_container(const CheckContext& context) {
  return context.facts.system->container.has_value();
}

/// Render nodes that belong to AMD GPUs: by KFD's drm_render_minor when KFD lists GPUs,
/// else every render node (the vendor cannot be told apart then).
std::vector<const DeviceNode*> amd_render_nodes(const CheckContext& context) {
  const AccessFacts& access = *context.facts.access;
  std::set<int> minors;
  for (const auto& node : context.facts.kfd->nodes) {
    if (node.is_gpu() && node.vendor_id == 0x1002 && node.drm_render_minor) {
      minors.insert(*node.drm_render_minor);
    }
  }
  std::vector<const DeviceNode*> nodes;
  for (const auto& node : access.render_nodes) {
    if (minors.empty() ||
        (node.stat.minor && minors.count(static_cast<int>(*node.stat.minor)) != 0)) {
      nodes.push_back(&node);
    }
  }
  return nodes;
}

std::string describe_node(const DeviceNode& node) {
  return fmt::format("{}: mode {:04o}, owner uid {}, group {} (gid {}); open: {}{}", node.path,
                     node.stat.mode, node.stat.uid, node_group(node), node.stat.gid,
                     node.open.access == OpenAccess::read_write ? "read-write" : "failed",
                     node.open.error.empty() ? "" : " (" + node.open.error + ")");
}

/// A name shadow-utils' groupadd accepts (its default, POSIX's portable filename characters):
/// letters, digits, '.', '_' and '-', not starting with '-', at most 32 bytes, with an optional
/// trailing '$' (Samba machine accounts). A bare gid, used when /etc/group has no name, passes.
bool is_group_name(std::string_view name) {
  if (name.size() > 1 && name.back() == '$') {
    name.remove_suffix(1);
  }
  if (name.empty() || name.size() > 32 || name.front() == '-') {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

/// What is wrong with the name /etc/group gives a node's group; nullopt when it is a valid name.
std::optional<std::string> group_name_problem(const DeviceNode& node) {
  const std::string group = node_group(node);
  if (is_group_name(group)) {
    return std::nullopt;
  }
  return fmt::format(
      "the name of {}'s group (gid {}) in /etc/group, \"{}\", is not a valid group name; "
      "repair /etc/group",
      node.path, node.stat.gid, util::excerpt(group));
}

/// The problems of the group names of these nodes, each once, for the finding's message.
std::string group_name_problems(const std::vector<const DeviceNode*>& nodes) {
  std::vector<std::string> problems;
  std::vector<std::uint32_t> seen;
  for (const auto* node : nodes) {
    if (std::find(seen.begin(), seen.end(), node->stat.gid) != seen.end()) {
      continue;
    }
    seen.push_back(node->stat.gid);
    if (auto problem = group_name_problem(*node)) {
      problems.push_back(std::move(*problem));
    }
  }
  return problems.empty() ? std::string() : "; " + util::join(problems, "; ");
}

/// The groups a user must join for these nodes, by name where /etc/group knows it.
std::vector<std::string> needed_groups(const std::vector<const DeviceNode*>& nodes,
                                       const AccessFacts& access) {
  std::vector<std::string> groups;
  for (const auto* node : nodes) {
    const std::string group = node_group(*node);
    if (std::find(groups.begin(), groups.end(), group) == groups.end() &&
        !access.process_has_gid(node->stat.gid)) {
      groups.push_back(group);
    }
  }
  // AMD's install guide adds video as well as render: older udev rules give /dev/kfd to video.
  // Only when the user is not in video already.
  if (access.etc_group && std::find(groups.begin(), groups.end(), "render") != groups.end() &&
      std::find(groups.begin(), groups.end(), "video") == groups.end()) {
    const auto video = std::find_if(access.etc_group->begin(), access.etc_group->end(),
                                    [](const GroupEntry& g) { return g.name == "video"; });
    if (video != access.etc_group->end() && !access.process_has_gid(video->gid) &&
        !access.group_file_lists_user(video->gid)) {
      groups.push_back("video");
    }
  }
  return groups;
}

/// The kernel's overflow gid: a host group that a rootless container's user namespace does not
/// map shows as 65534 (nogroup/nobody) inside it.
constexpr std::uint32_t k_overflow_gid = 65534;

/// A rootless container cannot add the host's group by number (65534 maps to a subgid, not to
/// it): keep the caller's supplementary groups instead (podman with crun; runc ignores it).
/// Alternatives: one for each tool that starts the container, run on the host. toolbx gets no
/// command: `toolbox create` passes nothing to podman (what follows `--` is not read).
std::vector<Fix> rootless_fixes(const SystemFacts& system) {
  std::vector<Fix> fix{
      {"The device nodes belong to a host group this rootless container does not map (it "
       "shows as 65534). Keep your own host groups instead: podman with the crun runtime "
       "(add to podman run; --group-add 65534 does not work)",
       "--group-add keep-groups", false, FixKind::container_flag}};
  if (system.toolbox) {
    fix.push_back(
        {"toolbox: `toolbox create` passes no options to podman, so it cannot add "
         "this; run the GPU work in a distrobox or a podman container started as above",
         "", false, FixKind::manual});
    return fix;
  }
  const std::string box = system.container_name.value_or("");
  if (!box.empty() && util::is_shell_safe(box)) {
    // A copy of the user's box with the flag: nothing installed in it is lost, and the old box
    // stays until the user removes it. distrobox cannot clone a running box.
    const std::string copy = box + "-gpu";
    fix.push_back({fmt::format("distrobox (on the host): make a copy of the box {} that keeps "
                               "your host groups, then enter the copy",
                               box),
                   fmt::format("distrobox stop {} && distrobox create --clone {} --name {} "
                               "--additional-flags \"--group-add keep-groups\" && distrobox "
                               "enter {}",
                               box, box, copy, copy),
                   false});
  } else {
    fix.push_back(
        {"distrobox (on the host): create the box with --group-add keep-groups (name "
         "it and choose its image as you did before)",
         "distrobox create --name NAME --image IMAGE --additional-flags \"--group-add "
         "keep-groups\"",
         false, FixKind::manual});
  }
  return fix;
}

/// The pod spec's supplementalGroups line: the kubelet adds these gids to every container.
Fix pod_groups_fix(const std::vector<std::uint32_t>& gids) {
  std::vector<std::string> numbers;
  for (const auto gid : gids) {
    numbers.push_back(std::to_string(gid));
  }
  return {fmt::format("Give the pod the device nodes' groups (numeric gids from the node): in "
                      "the pod spec, under spec.securityContext, then recreate the pod"),
          fmt::format("supplementalGroups: [{}]", util::join(numbers, ", ")), false,
          FixKind::file_edit};
}

std::vector<Fix> permission_fixes(const CheckContext& context,
                                  const std::vector<const DeviceNode*>& denied) {
  const AccessFacts& access = *context.facts.access;
  std::vector<Fix> fix;
  if (in_container(context)) {
    if (std::any_of(denied.begin(), denied.end(),
                    [](const DeviceNode* n) { return n->stat.gid == k_overflow_gid; })) {
      return rootless_fixes(*context.facts.system);
    }
    std::vector<std::uint32_t> gids;
    for (const auto* node : denied) {
      if (std::find(gids.begin(), gids.end(), node->stat.gid) == gids.end()) {
        gids.push_back(node->stat.gid);
      }
    }
    const std::string& runtime = *context.facts.system->container;
    if (runtime == "kubernetes") {
      return {pod_groups_fix(gids)};
    }
    std::vector<std::string> flags;
    for (const auto gid : gids) {
      flags.push_back(fmt::format("--group-add {}", gid));
    }
    fix.push_back(
        {"Start the container with the device nodes' groups (numeric gids from the "
         "host; add to docker/podman/nerdctl run)",
         util::join(flags, " "), false, FixKind::container_flag});
    if (runtime == "containerd") {
      fix.push_back(pod_groups_fix(gids));  // containerd's root: a pod, or nerdctl's container
    }
    return fix;
  }
  for (const auto* node : denied) {
    if ((node->stat.mode & 0060) == 0060) {
      continue;
    }
    // The kernel names the nodes kfd and renderD<N>; udev gives them their group and mode.
    const bool kfd = node->path == "/dev/kfd";
    if (!is_group_name(node_group(*node))) {
      fix.push_back({fmt::format("{}'s mode does not let its group read and write: repair the "
                                 "group's name in /etc/group, then restore the udev rule that "
                                 "gives {} that group and mode 0660",
                                 node->path, node->path),
                     "", true});
      break;
    }
    fix.push_back(
        {fmt::format("{}'s mode does not let its group read and write: restore the udev rule",
                     node->path),
         fmt::format("echo 'SUBSYSTEM==\"{}\", KERNEL==\"{}\", GROUP=\"{}\", MODE=\"0660\"' | "
                     "sudo tee /etc/udev/rules.d/70-rocdoc-{}.rules && sudo udevadm control "
                     "--reload && sudo udevadm trigger",
                     kfd ? "kfd" : "drm", kfd ? "kfd" : "renderD*", node_group(*node),
                     kfd ? "kfd" : "render"),
         true});
    break;
  }
  const bool listed = std::all_of(denied.begin(), denied.end(), [&](const DeviceNode* n) {
    return access.group_file_lists_user(n->stat.gid);
  });
  if (listed) {
    const std::string group = node_group(*denied.front());
    if (!is_group_name(group)) {
      fix.push_back(
          {"/etc/group already lists you, under a group name that is not valid: repair "
           "/etc/group, then log out and back in (or reboot)",
           "", false, FixKind::manual, false, true});
      return fix;
    }
    fix.push_back(
        {"/etc/group already lists you; this session started before that. Log out and "
         "back in (or reboot); for this shell only:",
         "newgrp " + util::shell_word(group), false, FixKind::shell, false, true});
    return fix;
  }
  const auto groups = needed_groups(denied, access);
  if (std::any_of(groups.begin(), groups.end(),
                  [](const std::string& group) { return !is_group_name(group); })) {
    fix.push_back({fmt::format("Repair the group's name in /etc/group, then add {} to the group",
                               access.subject().user),
                   "", true, FixKind::manual, false, true});
  } else if (!groups.empty()) {
    fix.push_back(
        {fmt::format("Add {} to the {} group{}, then log out and back in", access.subject().user,
                     util::join(groups, " and "), groups.size() == 1 ? "" : "s"),
         fmt::format("sudo usermod -aG {} {}", util::shell_word(util::join(groups, ",")),
                     util::shell_quote(access.subject().user)),
         true, FixKind::shell, false, true});
  }
  return fix;
}

/// permission_fixes' order: in a container the remedies are one per tool that starts it
/// (alternatives); on a host they are steps (restore the udev rule, then join the group).
FixOrder permission_fix_order(const CheckContext& context, const std::vector<Fix>& fix) {
  return in_container(context) && fix.size() > 1 ? FixOrder::alternatives : FixOrder::steps;
}

CheckResult node_check(const CheckContext& context, const std::vector<const DeviceNode*>& nodes,
                       const std::string& what) {
  const AccessFacts& access = *context.facts.access;
  std::vector<std::string> evidence;
  std::vector<const DeviceNode*> denied;
  bool any_open = false;
  for (const auto* node : nodes) {
    evidence.push_back(describe_node(*node));
    // Under sudo root opens everything: only the user's permissions count.
    any_open = any_open || (!access.sudo_user && node->open.access == OpenAccess::read_write);
    if (denied_by_permissions(*node, access)) {
      denied.push_back(node);
    }
  }
  if (any_open) {
    return pass(what + " opens read-write", evidence);
  }
  if (denied.empty()) {
    if (access.sudo_user) {
      return pass(fmt::format("{}'s groups and the mode let {} open {} read-write",
                              access.sudo_user->user, access.sudo_user->user, what),
                  evidence);
    }
    return pass(fmt::format("permissions allow {}; its open fails for another reason", what),
                evidence);
  }
  std::vector<std::string> groups;
  const Identity& who = access.subject();
  for (const auto& group : who.groups) {
    groups.push_back(group.name.empty() ? std::to_string(group.gid) : group.name);
  }
  evidence.push_back(access.sudo_user ? fmt::format("/etc/group puts {} (uid {}) in: {}", who.user,
                                                    who.uid, util::join(groups, ","))
                                      : fmt::format("process {}(uid {}) has groups: {}",
                                                    who.user.empty() ? "" : who.user + " ", who.uid,
                                                    util::join(groups, ",")));
  CheckResult result = finding(
      Severity::error,
      access.sudo_user
          ? fmt::format("{} cannot open {} read-write: permission denied (group {}; judged from "
                        "/etc/group, because rocdoc runs as root through sudo)",
                        who.user, what, node_group(*denied.front())) +
                group_name_problems(denied)
          : fmt::format("This process cannot open {} read-write: permission denied (group {})",
                        what, node_group(*denied.front())) +
                group_name_problems(denied),
      evidence, permission_fixes(context, denied));
  result.fix_order = permission_fix_order(context, result.fix);
  return result;
}

}  // namespace

CheckResult perm_kfd(const CheckContext& context) {
  const AccessFacts& access = *context.facts.access;
  if (!access.kfd) {
    return skip("no /dev/kfd (see driver.kfd-missing)");
  }
  return node_check(context, {&*access.kfd}, "/dev/kfd");
}

CheckResult perm_render(const CheckContext& context) {
  const auto nodes = amd_render_nodes(context);
  if (nodes.empty()) {
    return skip("no render node of an AMD GPU under /dev/dri");
  }
  return node_check(context, nodes,
                    nodes.size() == 1 ? nodes.front()->path : "any AMD render node");
}

CheckResult perm_relogin(const CheckContext& context) {
  if (context.facts.access->sudo_user) {
    return skip("rocdoc runs under sudo: the groups of " + context.facts.access->sudo_user->user +
                "'s own session cannot be seen; run it without sudo to check them");
  }
  if (in_container(context)) {
    return skip("inside a container /etc/group is the image's (see perm.container-groups)");
  }
  const AccessFacts& access = *context.facts.access;
  if (!access.etc_group) {
    return skip("/etc/group is not readable");
  }
  std::vector<const DeviceNode*> nodes = amd_render_nodes(context);
  if (access.kfd) {
    nodes.insert(nodes.begin(), &*access.kfd);
  }
  if (nodes.empty()) {
    return skip("no /dev/kfd or AMD render node");
  }
  std::vector<std::string> stale;
  std::vector<const DeviceNode*> stale_nodes;
  std::string group;
  for (const auto* node : nodes) {
    if (denied_by_permissions(*node, access) && access.group_file_lists_user(node->stat.gid) &&
        !access.process_has_gid(node->stat.gid)) {
      stale.push_back(fmt::format("{} (group {})", node->path, node_group(*node)));
      stale_nodes.push_back(node);
      group = group.empty() ? node_group(*node) : group;
    }
  }
  if (stale.empty()) {
    return pass("the session has every group /etc/group gives the user for the GPU nodes");
  }
  const Fix relogin =
      is_group_name(group)
          ? Fix{"Log out and back in (or reboot) so the session picks up the group; for this "
                "shell only:",
                "newgrp " + util::shell_word(group),
                false,
                FixKind::shell,
                false,
                true}
          : Fix{"Repair the group's name in /etc/group, then log out and back in (or reboot)",
                "",
                false,
                FixKind::manual,
                false,
                true};
  return finding(Severity::error,
                 fmt::format("/etc/group lists {} in {}, but this session does not have that group "
                             "yet: {}",
                             access.identity.user, group, util::join(stale, ", ")) +
                     group_name_problems(stale_nodes),
                 {fmt::format("/etc/group: {} is a member of {}", access.identity.user, group)},
                 {relogin});
}

CheckResult perm_container_groups(const CheckContext& context) {
  if (!in_container(context)) {
    return skip("not in a container");
  }
  const AccessFacts& access = *context.facts.access;
  std::vector<const DeviceNode*> nodes = amd_render_nodes(context);
  if (access.kfd) {
    nodes.insert(nodes.begin(), &*access.kfd);
  }
  if (nodes.empty()) {
    return skip("no GPU device nodes in this container (see driver.kfd-missing)");
  }
  std::vector<const DeviceNode*> missing;
  for (const auto* node : nodes) {
    if (denied_by_permissions(*node, access) && !access.process_has_gid(node->stat.gid)) {
      missing.push_back(node);
    }
  }
  if (missing.empty()) {
    return pass("the container process has the device nodes' groups");
  }
  std::vector<std::string> evidence;
  for (const auto* node : missing) {
    evidence.push_back(describe_node(*node));
  }
  CheckResult result =
      finding(Severity::error,
              "The device nodes are in the container, but their groups were not added to it",
              evidence, permission_fixes(context, missing));
  result.fix_order = permission_fix_order(context, result.fix);
  return result;
}

}  // namespace rocdoc::checks
