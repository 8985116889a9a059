// Whether a device node's mode, owner and group let this process open it read-write.
#pragma once

#include "rocdoc/facts.h"

namespace rocdoc::checks {

enum class Permission { granted, denied };

Permission node_permission(const DeviceNode& node, const AccessFacts& access);

/// Whether the judged user (AccessFacts::subject) may create files in a directory: write and
/// search permission by mode, owner and the process's groups; root may anywhere.
Permission directory_permission(const FileStat& stat, const AccessFacts& access);

/// The open failed for lack of permission (EACCES, or EPERM where the mode denies it).
bool denied_by_permissions(const DeviceNode& node, const AccessFacts& access);

/// Group name of a node for messages: its /etc/group name, else the numeric gid.
std::string node_group(const DeviceNode& node);

}  // namespace rocdoc::checks
