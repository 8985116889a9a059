// A fake librocm_smi64 for e2e.deep: two devices joined by XGMI (one hop), as an MI210 pair
// reports them; the prototypes of src/runtime/abi.h.
#include <cstdint>
#include <cstring>

#include "src/runtime/abi.h"

namespace abi = rocdoc::runtime_abi;

extern "C" {

abi::RsmiStatus rsmi_init(std::uint64_t) { return 0; }
abi::RsmiStatus rsmi_shut_down() { return 0; }

abi::RsmiStatus rsmi_num_monitor_devices(std::uint32_t* count) {
  *count = 2;
  return 0;
}

abi::RsmiStatus rsmi_dev_memory_total_get(std::uint32_t, abi::RsmiMemoryType,
                                          std::uint64_t* bytes) {
  *bytes = std::uint64_t{64} << 30;
  return 0;
}

abi::RsmiStatus rsmi_dev_memory_usage_get(std::uint32_t, abi::RsmiMemoryType,
                                          std::uint64_t* bytes) {
  *bytes = std::uint64_t{1} << 20;
  return 0;
}

abi::RsmiStatus rsmi_dev_pci_id_get(std::uint32_t device, std::uint64_t* bdfid) {
  *bdfid = device == 0 ? (0x03u << 8) : (0x43u << 8);
  return 0;
}

abi::RsmiStatus rsmi_version_str_get(abi::RsmiSwComponent, char* text, std::uint32_t size) {
  std::strncpy(text, "6.8.5", size);
  return 0;
}

abi::RsmiStatus rsmi_topo_get_link_type(std::uint32_t, std::uint32_t, std::uint64_t* hops,
                                        abi::RsmiIoLinkType* type) {
  *hops = 1;
  *type = abi::k_rsmi_iolink_xgmi;
  return 0;
}

// Readings: 45000 m°C at the edge (rocm_smi answers in millidegrees), no UMC errors, MEC and
// SMC firmware as an MI210's (0x4a, 0x44e00).
abi::RsmiStatus rsmi_dev_temp_metric_get(std::uint32_t, std::uint32_t sensor,
                                         abi::RsmiTemperatureMetric metric, std::int64_t* value) {
  if (sensor != abi::k_rsmi_temp_type_edge || metric != abi::k_rsmi_temp_current) {
    return 2;  // RSMI_STATUS_NOT_SUPPORTED
  }
  *value = 45000;
  return 0;
}

abi::RsmiStatus rsmi_dev_ecc_count_get(std::uint32_t, abi::RsmiGpuBlock block,
                                       abi::RsmiErrorCount* counts) {
  if (block != abi::k_rsmi_gpu_block_umc) {
    return 2;
  }
  counts->correctable_err = 0;
  counts->uncorrectable_err = 0;
  return 0;
}

abi::RsmiStatus rsmi_dev_firmware_version_get(std::uint32_t, abi::RsmiFwBlock block,
                                              std::uint64_t* version) {
  *version = block == abi::k_rsmi_fw_block_mec ? 0x4a : 0x44e00;
  return 0;
}

abi::RsmiStatus rsmi_status_string(abi::RsmiStatus status, const char** text) {
  *text = status == 0 ? "RSMI_STATUS_SUCCESS: The function has been executed successfully."
                      : "RSMI_STATUS_UNKNOWN_ERROR";
  return 0;
}

}  // extern "C"
