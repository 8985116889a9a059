#include "probes/pci.h"

#include <algorithm>
#include <cctype>

#include "probes/pci_names.h"
#include "probes/pci_topology.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_devices = "/sys/bus/pci/devices";
constexpr std::uint16_t k_amd = 0x1002;
constexpr std::uint16_t k_nvidia = 0x10de;
constexpr std::uint16_t k_intel = 0x8086;

/// A sysfs hex register ("0x1002\n") as its real width; a value that does not fit is unreadable.
template <typename T>
std::optional<T> read_hex(const Host& host, const std::string& path) {
  const auto text = host.read_file(path, 64);
  if (!text) {
    return std::nullopt;
  }
  return util::parse_number<T>(*text, 0);
}

std::optional<std::string> read_text(const Host& host, const std::string& path) {
  const auto text = host.read_file(path, 256);
  if (!text) {
    return std::nullopt;
  }
  return std::string(util::trim(*text));
}

std::string last_component(std::string_view path) {
  while (!path.empty() && path.back() == '/') {
    path.remove_suffix(1);
  }
  return std::string(path.substr(path.rfind('/') + 1));
}

PciLink read_link_state(const Host& host, const std::string& dir) {
  PciLink link;
  link.current_speed = read_text(host, dir + "/current_link_speed");
  link.max_speed = read_text(host, dir + "/max_link_speed");
  if (const auto width = host.read_file(dir + "/current_link_width", 64)) {
    link.current_width = parse_link_width(*width);
  }
  if (const auto width = host.read_file(dir + "/max_link_width", 64)) {
    link.max_width = parse_link_width(*width);
  }
  return link;
}

/// The files of `dir` whose names end in `suffix`, by the rest of the name ("mes" for
/// mes_fw_version), with their text (at most `max_bytes`); a file that cannot be read is left out.
std::map<std::string, std::string> files_by_stem(const Host& host, const std::string& dir,
                                                 std::string_view suffix, std::size_t max_bytes) {
  std::map<std::string, std::string> files;
  if (const auto names = host.list_dir(dir)) {
    for (const auto& name : *names) {
      if (name.size() <= suffix.size() || name.substr(name.size() - suffix.size()) != suffix) {
        continue;
      }
      if (auto text = host.read_file(dir + "/" + name, max_bytes)) {
        files.emplace(name.substr(0, name.size() - suffix.size()), std::move(*text));
      }
    }
  }
  return files;
}

/// amdgpu's fw_version/<name>_fw_version files ("0x00000083"); a zero version has no file.
std::map<std::string, std::uint32_t> firmware_versions(const Host& host, const std::string& dir) {
  std::map<std::string, std::uint32_t> firmware;
  for (const auto& [name, text] : files_by_stem(host, dir + "/fw_version", "_fw_version", 64)) {
    if (const auto value = util::parse_number<std::uint32_t>(text, 0)) {
      firmware[name] = *value;
    }
  }
  return firmware;
}

/// amdgpu's RAS counts (ras/<block>_err_count), by block; empty without RAS (most Radeons).
std::map<std::string, RasCount> ras_counts(const Host& host, const std::string& dir) {
  std::map<std::string, RasCount> counts;
  for (const auto& [block, text] : files_by_stem(host, dir + "/ras", "_err_count", 256)) {
    if (const auto count = parse_ras_count(text)) {
      counts[block] = *count;
    }
  }
  return counts;
}

/// VRAM pages retired for errors: ras/gpu_vram_bad_pages, one "0x… : 0x… : R" line each.
std::optional<std::size_t> bad_page_count(const Host& host, const std::string& dir) {
  const auto text = host.read_file(dir + "/ras/gpu_vram_bad_pages", 1 << 20);
  if (!text) {
    return std::nullopt;
  }
  std::size_t pages = 0;
  for (const auto line : util::split(*text, '\n')) {
    pages += line.find(':') != std::string_view::npos ? 1 : 0;
  }
  return pages;
}

/// amdgpu's mem_info_{vram,vis_vram,gtt}_total: decimal bytes.
GpuMemory read_gpu_memory(const Host& host, const std::string& dir) {
  const auto bytes = [&](const char* name) -> std::optional<std::uint64_t> {
    const auto text = host.read_file(dir + "/" + name, 64);
    return text ? util::parse_number<std::uint64_t>(util::trim(*text)) : std::nullopt;
  };
  return {bytes("mem_info_vram_total"), bytes("mem_info_vis_vram_total"),
          bytes("mem_info_gtt_total")};
}

/// The render node amdgpu made for this function: drm/renderD<N>.
std::optional<int> render_minor_of(const Host& host, const std::string& dir) {
  if (const auto names = host.list_dir(dir + "/drm")) {
    for (const auto& name : *names) {
      if (name.rfind("renderD", 0) == 0) {
        if (const auto minor = util::parse_unsigned(name.substr(7)); minor && *minor < 1u << 20) {
          return static_cast<int>(*minor);
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<PciDevice> read_device(const Host& host, const std::string& bdf) {
  const std::string dir = std::string(k_devices) + "/" + bdf;
  const auto vendor = read_hex<std::uint16_t>(host, dir + "/vendor");
  const auto device = read_hex<std::uint16_t>(host, dir + "/device");
  const auto class_code = read_hex<std::uint32_t>(host, dir + "/class");
  if (!vendor || !device || !class_code || *class_code > 0xffffff) {
    return std::nullopt;  // a class is 24 bits
  }
  PciDevice result;
  result.bdf = bdf;
  result.vendor = *vendor;
  result.device = *device;
  result.class_code = *class_code;
  if (const auto value = read_hex<std::uint8_t>(host, dir + "/revision")) {
    result.revision = *value;
  }
  if (const auto driver = host.read_link(dir + "/driver")) {
    result.driver = last_component(*driver);
  }
  result.gpu = classify_gpu(result.vendor, result.class_code);
  if (!result.gpu && !result.is_bridge()) {
    return result;  // subsystem, link and topology matter only for GPUs and the bridges above them
  }
  result.subsystem_vendor = read_hex<std::uint16_t>(host, dir + "/subsystem_vendor");
  result.subsystem_device = read_hex<std::uint16_t>(host, dir + "/subsystem_device");
  result.link = read_link_state(host, dir);
  if (result.gpu) {
    result.render_minor = render_minor_of(host, dir);
  }
  if (result.is_amd_gpu()) {
    result.memory = read_gpu_memory(host, dir);
    result.firmware = firmware_versions(host, dir);
    result.ras = ras_counts(host, dir);
    if (!result.ras.empty()) {
      result.bad_pages = bad_page_count(host, dir);
    }
  }
  if (const auto path = host.read_link(dir)) {
    result.upstream = upstream_from_sysfs_path(*path);
  }
  if (result.is_amd_gpu()) {
    read_placement(host, dir, result);
  }
  return result;
}

/// Vendor names for when pci.ids (libpci) is not there or does not know the vendor.
std::string fallback_vendor_name(std::uint16_t vendor) {
  switch (vendor) {
    case 0x1234:
      return "QEMU/Bochs (emulated VGA)";
    case 0x1af4:
      return "Red Hat, Inc. (virtio)";
    case 0x1414:
      return "Microsoft Corporation (Hyper-V / WSL)";
    case k_nvidia:
      return "NVIDIA Corporation";
    case k_intel:
      return "Intel Corporation";
    default:
      return "";
  }
}

void name_devices(const ProbeContext& context, PciFacts& facts) {
  // Naming a device costs a look at pci.ids (its vendor's block, or all of it through libpci
  // where pci.ids is not a plain file): do it only for GPUs that rules/ cannot name (other
  // vendors, AMD ids missing from the table).
  const auto known_to_rules = [&](const PciDevice& device) {
    return device.vendor == k_amd && context.knowledge.get().amd_pci_id(device.device) != nullptr;
  };
  bool wants_names = false;
  for (const auto& device : facts.devices) {
    wants_names = wants_names || (device.gpu.has_value() && !known_to_rules(device));
  }
  facts.names_from = "rules only";
  std::optional<PciNameSource> names;
  if (wants_names) {
    names.emplace(context.host.local_path("/sys/bus/pci"));
    facts.names_from = names->available() ? names->source() : "rules only";
    if (!names->available()) {
      facts.names_problem = names->problem();
    }
  }
  for (auto& device : facts.devices) {
    if (!device.gpu) {
      continue;  // only GPU names appear in the report; skip pci.ids for the rest
    }
    if (names && names->available() && !known_to_rules(device)) {
      if (auto found = names->lookup(device.vendor, device.device)) {
        device.vendor_name = std::move(found->vendor);
        device.device_name = std::move(found->device);
      }
    }
    if (device.vendor_name.empty()) {
      device.vendor_name = fallback_vendor_name(device.vendor);
    }
    if (device.vendor == k_amd) {
      if (device.vendor_name.empty()) {
        device.vendor_name = "Advanced Micro Devices, Inc. [AMD/ATI]";
      }
      if (const auto* known = context.knowledge.get().amd_pci_id(device.device)) {
        // rules/ is newer than most pci.ids, and names the product of this revision.
        device.device_name = known->name_for(device.revision);
      }
    }
  }
}

}  // namespace

bool is_bdf(std::string_view text) {
  // dddd:bb:dd.f
  if (text.size() != 12 || text[4] != ':' || text[7] != ':' || text[10] != '.') {
    return false;
  }
  for (const std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u, 11u}) {
    if (!std::isxdigit(static_cast<unsigned char>(text[i]))) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> upstream_from_sysfs_path(std::string_view path) {
  std::vector<std::string> chain;
  for (const auto part : util::split(path, '/')) {
    if (is_bdf(part)) {
      chain.emplace_back(part);
    }
  }
  if (!chain.empty()) {
    chain.pop_back();  // the function itself
  }
  return chain;
}

std::optional<int> parse_link_width(std::string_view text) {
  const auto value = util::parse_unsigned(text);
  if (!value || *value == 0 || *value > 32) {
    return std::nullopt;
  }
  return static_cast<int>(*value);
}

std::optional<RasCount> parse_ras_count(std::string_view text) {
  std::optional<std::uint64_t> ue;
  std::optional<std::uint64_t> ce;
  for (const auto line : util::split(text, '\n')) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      continue;
    }
    const auto key = util::trim(line.substr(0, colon));
    const auto value = util::parse_unsigned(util::trim(line.substr(colon + 1)));
    if (key == "ue") {
      ue = value;
    } else if (key == "ce") {
      ce = value;
    }
  }
  if (!ue || !ce) {
    return std::nullopt;
  }
  return RasCount{*ue, *ce};
}

std::optional<GpuVendor> classify_gpu(std::uint16_t vendor, std::uint32_t class_code) {
  const std::uint32_t base = class_code >> 16;
  if (base != 0x03 && base != 0x12) {
    return std::nullopt;
  }
  switch (vendor) {
    case k_amd:
      return GpuVendor::amd;
    case k_nvidia:
      return GpuVendor::nvidia;
    case k_intel:
      return GpuVendor::intel;
    case 0x1af4:  // virtio-gpu
    case 0x1234:  // QEMU/Bochs stdvga
    case 0x15ad:  // VMware SVGA
    case 0x80ee:  // VirtualBox
    case 0x1414:  // Hyper-V
    case 0x1013:  // Cirrus (emulated)
    case 0x1b36:  // QEMU/Red Hat QXL
      return GpuVendor::virtual_display;
    default:
      break;
  }
  return GpuVendor::other;
}

PciFacts probe_pci(const ProbeContext& context) {
  PciFacts facts;
  const auto entries = context.host.list_dir(k_devices);
  if (!entries) {
    return facts;  // no PCI bus visible (WSL, some containers)
  }
  // Large servers, SR-IOV virtual functions included, have a few thousand functions.
  check_bound(entries->size(), 16384, "PCI functions", k_devices);
  for (const auto& name : *entries) {
    if (!is_bdf(name)) {
      continue;
    }
    if (auto device = read_device(context.host, name)) {
      facts.devices.push_back(std::move(*device));
    }
  }
  std::sort(facts.devices.begin(), facts.devices.end(),
            [](const PciDevice& a, const PciDevice& b) { return a.bdf < b.bdf; });
  read_bridge_acs(context.host, facts.devices);
  name_devices(context, facts);
  return facts;
}

}  // namespace rocdoc
