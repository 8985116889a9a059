// Probe "system": OS release, kernel, NUMA balancing, IOMMU, containers, WSL, /dev/shm.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "rocdoc/facts.h"
#include "rocdoc/probes.h"

namespace rocdoc {

SystemFacts probe_system(const ProbeContext& context);

/// /etc/os-release: KEY=value lines, values optionally quoted.
std::map<std::string, std::string> parse_os_release(std::string_view content);

/// iommu=, amd_iommu=, intel_iommu= words of the kernel command line.
std::vector<std::string> parse_iommu_params(std::string_view cmdline);

/// The container runtime named in /proc/1/cgroup, if any.
std::optional<std::string> container_from_cgroup(std::string_view content);

/// A pod under a cgroup namespace (/proc/1/cgroup reads "0::/", no marker file), from the mount
/// table: Kubernetes' service-account mount, or a root overlay in containerd's snapshotter or
/// the kubelet's pod directories. "kubernetes", "containerd" or nothing.
std::optional<std::string> pod_from_mounts(const std::vector<Mount>& mounts);

/// /run/.containerenv as podman writes it: key="value" lines (engine, name, image, rootless).
std::map<std::string, std::string> parse_containerenv(std::string_view content);

/// Size of the tmpfs mounted at `mount_point` from /proc/mounts' size= option.
std::optional<std::uint64_t> tmpfs_size_from_mounts(std::string_view mounts,
                                                    std::string_view mount_point);

/// /proc/mounts: device, mount point, type and options of each line.
std::vector<Mount> parse_mounts(std::string_view content);

/// MemTotal of /proc/meminfo ("MemTotal:       65536000 kB"), in bytes.
std::optional<std::uint64_t> mem_total_from_meminfo(std::string_view content);

/// The mount whose point is the longest prefix of `path` (the last one of equal points).
std::optional<Mount> mount_holding(const std::vector<Mount>& mounts, std::string_view path);

/// The /etc/fstab lines (number and text) that mount something at `mount_point`.
std::vector<FstabLine> fstab_lines_for(std::string_view content, std::string_view mount_point);

enum class MountTable { fstab, proc_mounts };

/// What a snapshot keeps of /etc/fstab or /proc/mounts: only the lines that probe_system
/// reads (those that mount /dev or something under it; /proc/mounts' "/" too, which may hold
/// /dev/kfd), never a credential option (password=, credentials=, a secret or key) nor a
/// remote source (//server/share, host:/export). fstab's other lines become empty lines, so
/// the kept ones keep their line numbers.
std::string mount_table_to_record(std::string_view content, MountTable table);

/// "4.4.0-19041-Microsoft" → wsl1; "5.15.153.1-microsoft-standard-WSL2" → wsl2.
WslKind wsl_from_kernel_release(std::string_view release);

}  // namespace rocdoc
