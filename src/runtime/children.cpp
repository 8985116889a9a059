#include "src/runtime/children.h"

#include <array>
#include <cstring>
#include <memory>
#include <string_view>

#include "src/runtime/abi.h"
#include "src/runtime/protocol.h"
#include "src/util/dynlib.h"

namespace rocdoc::runtime {

namespace abi = runtime_abi;

namespace {

/// The first candidate that loads, never closed: the child ends with _exit, so the library's
/// destructors never run (one that hangs or crashes at exit cannot spoil the result).
const util::DynLib* load_first(const std::vector<std::string>& candidates,
                               const ResultWriter& out) {
  for (const auto& candidate : candidates) {
    auto lib =
        std::make_unique<util::DynLib>(std::initializer_list<const char*>{candidate.c_str()});
    if (!lib->loaded()) {
      out.line({"tried", candidate, lib->error()});
      continue;
    }
    out.line({"loaded", candidate, lib->real_path().value_or(candidate)});
    return lib.release();
  }
  return nullptr;
}

/// Looks up every symbol; writes each one that is missing. False when any is.
template <typename... Pointers>
bool find_symbols(const util::DynLib& lib, const ResultWriter& out,
                  std::pair<Pointers*, const char*>... symbols) {
  bool all = true;
  const auto find = [&](auto symbol) {
    using Pointer = std::remove_pointer_t<decltype(symbol.first)>;
    *symbol.first = lib.symbol<Pointer>(symbol.second);
    if (*symbol.first == nullptr) {
      out.line({"missing", symbol.second});
      all = false;
    }
  };
  (find(symbols), ...);
  return all;
}

std::string text(const char* c_string) { return c_string != nullptr ? c_string : ""; }

/// A NUL-terminated field of a fixed array, never read past its end.
std::string text(const char* array, std::size_t size) {
  return std::string(array, strnlen(array, size));
}

// ---- HIP ----------------------------------------------------------------------------------

struct Hip {
  abi::HipRuntimeGetVersionFn runtime_version = nullptr;
  abi::HipDriverGetVersionFn driver_version = nullptr;
  abi::HipGetDeviceCountFn device_count = nullptr;
  abi::HipGetDevicePropertiesFn properties = nullptr;
  abi::HipMallocFn allocate = nullptr;
  abi::HipMemcpyFn copy = nullptr;
  abi::HipFreeFn release = nullptr;
  abi::HipGetErrorNameFn error_name = nullptr;
  const ResultWriter* out = nullptr;

  /// Announces the call, makes it, writes its status; true on hipSuccess.
  template <typename Call>
  bool call(const char* function, Call make_call) const {
    out->line({"call", function});
    const abi::HipError status = make_call();
    out->line({"status", function, std::to_string(status), text(error_name(status))});
    return status == abi::k_hip_success;
  }
};

void hip_device(const Hip& hip, int index) {
  // The legacy struct is smaller than this buffer; whatever a newer runtime writes past the
  // fields rocdoc reads stays inside it.
  alignas(std::max_align_t) static std::array<unsigned char, abi::k_hip_device_prop_buffer> buffer;
  buffer.fill(0);
  auto* props = reinterpret_cast<abi::HipDevicePropPrefix*>(buffer.data());
  if (!hip.call("hipGetDeviceProperties", [&] { return hip.properties(props, index); })) {
    return;
  }
  const std::string i = std::to_string(index);
  const ResultWriter& out = *hip.out;
  out.line({"device", i, "name", text(props->name, sizeof props->name)});
  out.line({"device", i, "gcn_arch_name", text(props->gcnArchName, sizeof props->gcnArchName)});
  out.line({"device", i, "total_memory", std::to_string(props->totalGlobalMem)});
  out.line({"device", i, "pci_domain", std::to_string(props->pciDomainID)});
  out.line({"device", i, "pci_bus", std::to_string(props->pciBusID)});
  out.line({"device", i, "pci_device", std::to_string(props->pciDeviceID)});
}

/// 4 KiB to device 0 and back, compared byte for byte.
void hip_round_trip(const Hip& hip) {
  constexpr std::size_t k_bytes = 4096;
  std::array<unsigned char, k_bytes> sent{};
  std::array<unsigned char, k_bytes> back{};
  for (std::size_t i = 0; i < k_bytes; ++i) {
    sent[i] = static_cast<unsigned char>(i * 7 + 3);
  }
  void* device = nullptr;
  if (!hip.call("hipMalloc", [&] { return hip.allocate(&device, k_bytes); })) {
    return;
  }
  const bool copied = hip.call("hipMemcpy", [&] {
    return hip.copy(device, sent.data(), k_bytes, abi::k_hip_memcpy_host_to_device);
  }) && hip.call("hipMemcpy", [&] {
    return hip.copy(back.data(), device, k_bytes, abi::k_hip_memcpy_device_to_host);
  });
  if (copied) {
    hip.out->line({"value", "round_trip", sent == back ? "ok" : "mismatch"});
  }
  hip.call("hipFree", [&] { return hip.release(device); });
}

// ---- rocm_smi -----------------------------------------------------------------------------

struct Smi {
  abi::RsmiInitFn init = nullptr;
  abi::RsmiShutDownFn shut_down = nullptr;
  abi::RsmiNumMonitorDevicesFn num_devices = nullptr;
  abi::RsmiDevMemoryTotalGetFn memory_total = nullptr;
  abi::RsmiDevMemoryUsageGetFn memory_usage = nullptr;
  abi::RsmiDevPciIdGetFn pci_id = nullptr;
  abi::RsmiVersionStrGetFn version_string = nullptr;
  abi::RsmiTopoGetLinkTypeFn link_type = nullptr;
  abi::RsmiStatusStringFn status_string = nullptr;
  const ResultWriter* out = nullptr;

  template <typename Call>
  bool call(const char* function, Call make_call) const {
    out->line({"call", function});
    const abi::RsmiStatus status = make_call();
    const char* description = nullptr;
    if (status_string(status, &description) != abi::k_rsmi_success) {
      description = nullptr;
    }
    out->line(
        {"status", function, std::to_string(status), smi_status_name(status), text(description)});
    return status == abi::k_rsmi_success;
  }

  /// rsmi_status_t's names (rocm_smi/rocm_smi.h).
  static std::string smi_status_name(abi::RsmiStatus status) {
    static constexpr std::array<std::string_view, 18> k_names = {"RSMI_STATUS_SUCCESS",
                                                                 "RSMI_STATUS_INVALID_ARGS",
                                                                 "RSMI_STATUS_NOT_SUPPORTED",
                                                                 "RSMI_STATUS_FILE_ERROR",
                                                                 "RSMI_STATUS_PERMISSION",
                                                                 "RSMI_STATUS_OUT_OF_RESOURCES",
                                                                 "RSMI_STATUS_INTERNAL_EXCEPTION",
                                                                 "RSMI_STATUS_INPUT_OUT_OF_BOUNDS",
                                                                 "RSMI_STATUS_INIT_ERROR",
                                                                 "RSMI_STATUS_NOT_YET_IMPLEMENTED",
                                                                 "RSMI_STATUS_NOT_FOUND",
                                                                 "RSMI_STATUS_INSUFFICIENT_SIZE",
                                                                 "RSMI_STATUS_INTERRUPT",
                                                                 "RSMI_STATUS_UNEXPECTED_SIZE",
                                                                 "RSMI_STATUS_NO_DATA",
                                                                 "RSMI_STATUS_UNEXPECTED_DATA",
                                                                 "RSMI_STATUS_BUSY",
                                                                 "RSMI_STATUS_REFCOUNT_OVERFLOW"};
    if (status < k_names.size()) {
      return std::string(k_names[status]);
    }
    return status == 0xFFFFFFFFu ? "RSMI_STATUS_UNKNOWN_ERROR"
                                 : "rsmi_status " + std::to_string(status);
  }
};

void smi_device(const Smi& smi, std::uint32_t index) {
  const std::string i = std::to_string(index);
  std::uint64_t value = 0;
  if (smi.call("rsmi_dev_memory_total_get",
               [&] { return smi.memory_total(index, abi::k_rsmi_mem_type_vram, &value); })) {
    smi.out->line({"device", i, "vram_total", std::to_string(value)});
  }
  if (smi.call("rsmi_dev_memory_usage_get",
               [&] { return smi.memory_usage(index, abi::k_rsmi_mem_type_vram, &value); })) {
    smi.out->line({"device", i, "vram_used", std::to_string(value)});
  }
  if (smi.call("rsmi_dev_pci_id_get", [&] { return smi.pci_id(index, &value); })) {
    smi.out->line({"device", i, "pci_id", std::to_string(value)});
  }
}

// ---- HSA ----------------------------------------------------------------------------------

struct Hsa {
  abi::HsaInitFn init = nullptr;
  abi::HsaShutDownFn shut_down = nullptr;
  abi::HsaIterateAgentsFn iterate_agents = nullptr;
  abi::HsaAgentGetInfoFn agent_info = nullptr;
  abi::HsaStatusStringFn status_string = nullptr;
  const ResultWriter* out = nullptr;
  int agents = 0;

  template <typename Call>
  bool call(const char* function, Call make_call) const {
    out->line({"call", function});
    const abi::HsaStatus status = make_call();
    const char* description = nullptr;
    if (status_string(status, &description) != abi::k_hsa_success) {
      description = nullptr;
    }
    const std::string text_of = text(description);
    // hsa_status_string: "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to ..."
    const auto colon = text_of.find(':');
    const std::string name = status == abi::k_hsa_success ? "HSA_STATUS_SUCCESS"
                             : colon != std::string::npos && text_of.rfind("HSA_", 0) == 0
                                 ? text_of.substr(0, colon)
                                 : "hsa_status " + std::to_string(status);
    out->line({"status", function, std::to_string(status), name, text_of});
    return status == abi::k_hsa_success;
  }
};

abi::HsaStatus hsa_agent(abi::HsaAgentHandle agent, void* data) {
  auto& hsa = *static_cast<Hsa*>(data);
  if (++hsa.agents > k_max_devices) {
    return abi::k_hsa_status_info_break;
  }
  std::array<char, 64> name{};
  abi::HsaDeviceType type = 0;
  const bool named =
      hsa.agent_info(agent, abi::k_hsa_agent_info_name, name.data()) == abi::k_hsa_success;
  const bool typed =
      hsa.agent_info(agent, abi::k_hsa_agent_info_device, &type) == abi::k_hsa_success;
  const std::string kind = !typed                          ? "unknown"
                           : type == abi::k_hsa_device_cpu ? "cpu"
                           : type == abi::k_hsa_device_gpu ? "gpu"
                           : type == abi::k_hsa_device_dsp ? "dsp"
                                                           : std::to_string(type);
  hsa.out->line({"agent", kind, named ? text(name.data(), name.size()) : ""});
  return abi::k_hsa_success;
}

}  // namespace

int hip_child(const std::vector<std::string>& candidates, int result_fd) {
  const ResultWriter out(result_fd);
  const util::DynLib* lib = load_first(candidates, out);
  if (lib == nullptr) {
    out.line({"end"});
    return 0;
  }
  Hip hip;
  hip.out = &out;
  if (!find_symbols(*lib, out, std::pair{&hip.runtime_version, "hipRuntimeGetVersion"},
                    std::pair{&hip.driver_version, "hipDriverGetVersion"},
                    std::pair{&hip.device_count, "hipGetDeviceCount"},
                    std::pair{&hip.allocate, "hipMalloc"}, std::pair{&hip.copy, "hipMemcpy"},
                    std::pair{&hip.release, "hipFree"},
                    std::pair{&hip.error_name, "hipGetErrorName"})) {
    out.line({"end"});
    return 0;
  }
  // The legacy export: optional, so that a release that drops it still gets its count
  // compared (without gfx names).
  hip.properties = lib->symbol<abi::HipGetDevicePropertiesFn>("hipGetDeviceProperties");
  int version = 0;
  if (hip.call("hipRuntimeGetVersion", [&] { return hip.runtime_version(&version); })) {
    out.line({"value", "runtime_version", std::to_string(version)});
  }
  if (hip.call("hipDriverGetVersion", [&] { return hip.driver_version(&version); })) {
    out.line({"value", "driver_version", std::to_string(version)});
  }
  int count = 0;
  if (hip.call("hipGetDeviceCount", [&] { return hip.device_count(&count); })) {
    out.line({"value", "device_count", std::to_string(count)});
    for (int i = 0; i < count && i < k_max_devices && hip.properties != nullptr; ++i) {
      hip_device(hip, i);
    }
    if (count > 0) {
      hip_round_trip(hip);
    }
  }
  out.line({"end"});
  return 0;
}

int smi_child(const std::vector<std::string>& candidates, int result_fd) {
  const ResultWriter out(result_fd);
  const util::DynLib* lib = load_first(candidates, out);
  if (lib == nullptr) {
    out.line({"end"});
    return 0;
  }
  Smi smi;
  smi.out = &out;
  if (!find_symbols(*lib, out, std::pair{&smi.init, "rsmi_init"},
                    std::pair{&smi.shut_down, "rsmi_shut_down"},
                    std::pair{&smi.num_devices, "rsmi_num_monitor_devices"},
                    std::pair{&smi.memory_total, "rsmi_dev_memory_total_get"},
                    std::pair{&smi.memory_usage, "rsmi_dev_memory_usage_get"},
                    std::pair{&smi.pci_id, "rsmi_dev_pci_id_get"},
                    std::pair{&smi.version_string, "rsmi_version_str_get"},
                    std::pair{&smi.link_type, "rsmi_topo_get_link_type"},
                    std::pair{&smi.status_string, "rsmi_status_string"})) {
    out.line({"end"});
    return 0;
  }
  if (!smi.call("rsmi_init", [&] { return smi.init(0); })) {
    out.line({"end"});
    return 0;
  }
  std::uint32_t count = 0;
  if (smi.call("rsmi_num_monitor_devices", [&] { return smi.num_devices(&count); })) {
    out.line({"value", "device_count", std::to_string(count)});
  }
  std::array<char, 256> driver{};
  if (smi.call("rsmi_version_str_get", [&] {
        return smi.version_string(abi::k_rsmi_sw_comp_driver, driver.data(),
                                  static_cast<std::uint32_t>(driver.size()));
      })) {
    out.line({"value", "driver_version", text(driver.data(), driver.size())});
  }
  const std::uint32_t devices = std::min<std::uint32_t>(count, k_max_devices);
  for (std::uint32_t i = 0; i < devices; ++i) {
    smi_device(smi, i);
  }
  for (std::uint32_t from = 0; from < devices; ++from) {
    for (std::uint32_t to = from + 1; to < devices; ++to) {
      std::uint64_t hops = 0;
      abi::RsmiIoLinkType type = 0;
      if (smi.call("rsmi_topo_get_link_type",
                   [&] { return smi.link_type(from, to, &hops, &type); })) {
        out.line({"link", std::to_string(from), std::to_string(to), std::to_string(type),
                  std::to_string(hops)});
      }
    }
  }
  smi.call("rsmi_shut_down", [&] { return smi.shut_down(); });
  out.line({"end"});
  return 0;
}

int hsa_child(const std::vector<std::string>& candidates, int result_fd) {
  const ResultWriter out(result_fd);
  const util::DynLib* lib = load_first(candidates, out);
  if (lib == nullptr) {
    out.line({"end"});
    return 0;
  }
  Hsa hsa;
  hsa.out = &out;
  if (!find_symbols(*lib, out, std::pair{&hsa.init, "hsa_init"},
                    std::pair{&hsa.shut_down, "hsa_shut_down"},
                    std::pair{&hsa.iterate_agents, "hsa_iterate_agents"},
                    std::pair{&hsa.agent_info, "hsa_agent_get_info"},
                    std::pair{&hsa.status_string, "hsa_status_string"})) {
    out.line({"end"});
    return 0;
  }
  if (hsa.call("hsa_init", [&] { return hsa.init(); })) {
    hsa.call("hsa_iterate_agents", [&] { return hsa.iterate_agents(hsa_agent, &hsa); });
    hsa.call("hsa_shut_down", [&] { return hsa.shut_down(); });
  }
  out.line({"end"});
  return 0;
}

}  // namespace rocdoc::runtime
