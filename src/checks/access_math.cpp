#include "src/checks/access_math.h"

#include <string>

namespace rocdoc::checks {

Permission node_permission(const DeviceNode& node, const AccessFacts& access) {
  constexpr std::uint32_t k_rw_owner = 0600;
  constexpr std::uint32_t k_rw_group = 0060;
  constexpr std::uint32_t k_rw_other = 0006;
  const std::uint32_t mode = node.stat.mode;
  const Identity& who = access.subject();
  if (who.uid == 0) {
    return Permission::granted;
  }
  if (who.uid == node.stat.uid) {
    return (mode & k_rw_owner) == k_rw_owner ? Permission::granted : Permission::denied;
  }
  if (access.process_has_gid(node.stat.gid)) {
    return (mode & k_rw_group) == k_rw_group ? Permission::granted : Permission::denied;
  }
  return (mode & k_rw_other) == k_rw_other ? Permission::granted : Permission::denied;
}

Permission directory_permission(const FileStat& stat, const AccessFacts& access) {
  constexpr std::uint32_t k_wx_owner = 0300;
  constexpr std::uint32_t k_wx_group = 0030;
  constexpr std::uint32_t k_wx_other = 0003;
  const Identity& who = access.subject();
  if (who.uid == 0) {
    return Permission::granted;
  }
  std::uint32_t needed = k_wx_other;
  if (who.uid == stat.uid) {
    needed = k_wx_owner;
  } else if (access.process_has_gid(stat.gid)) {
    needed = k_wx_group;
  }
  return (stat.mode & needed) == needed ? Permission::granted : Permission::denied;
}

bool denied_by_permissions(const DeviceNode& node, const AccessFacts& access) {
  if (access.sudo_user) {
    // root's open says nothing about the user: judge by mode, owner and the user's groups.
    return node_permission(node, access) == Permission::denied;
  }
  if (node.open.access == OpenAccess::read_write) {
    return false;
  }
  if (node.open.error == "EACCES") {
    return true;
  }
  return node.open.error == "EPERM" && node_permission(node, access) == Permission::denied;
}

std::string node_group(const DeviceNode& node) {
  return node.group_name.value_or(std::to_string(node.stat.gid));
}

}  // namespace rocdoc::checks
