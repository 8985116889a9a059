// A fake libamd_smi for e2e.deep, written from amd_smi/amdsmi.h's public ABI (the prototypes of
// src/runtime/abi.h): one socket with two GPUs at 0000:03:00.0 and 0000:43:00.0, an "AMD
// Instinct MI210" with no ECC errors at 34 °C and an "AMD Instinct MI210" with 12 correctable
// and 2 uncorrectable at 41 °C, both with an MI210's MEC and PM (SMC) firmware (0x4a,
// 0x44e00), driver 6.10.5. ROCDOC_FAKE_AMDSMI_STATUS makes amdsmi_init return that status.
// The structs are written as the newest header lays them out (market_name[256], the error
// counts with deferred_count and reserved[5], driver strings of 256, the firmware list of
// AMDSMI_FW_ID__MAX = 80 entries), into the larger buffers rocdoc passes. Its soname is
// libamd_smi.so.26 (tests/CMakeLists.txt), whose firmware numbering rocdoc knows; the copy
// under fake_rocm/unknown_soname is libamd_smi.so.99, whose firmware rocdoc must not read.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "src/runtime/abi.h"

namespace abi = rocdoc::runtime_abi;

namespace {

int socket_tag = 0;
int gpu_tags[2] = {0, 1};

int gpu_of(void* handle) { return handle == &gpu_tags[0] ? 0 : handle == &gpu_tags[1] ? 1 : -1; }

struct AsicInfo {  // amdsmi_asic_info_t's leading fields
  char market_name[256];
  std::uint32_t vendor_id;
};

struct ErrorCount {  // amdsmi_error_count_t
  std::uint64_t correctable_count;
  std::uint64_t uncorrectable_count;
  std::uint64_t deferred_count;
  std::uint64_t reserved[5];
};

struct DriverInfo {  // amdsmi_driver_info_t
  char driver_version[256];
  char driver_date[256];
  char driver_name[256];
};

// amdsmi_fw_block_t's values (ROCm 6.1 on): AMDSMI_FW_ID_SMU 1, ..., AMDSMI_FW_ID_CP_MEC1 7,
// ..., AMDSMI_FW_ID_PM 77, AMDSMI_FW_ID_DMCU 78, AMDSMI_FW_ID_PLDM_BUNDLE 79, __MAX 80.
enum FwBlock : std::uint32_t { fw_smu = 1, fw_cp_mec1 = 7, fw_rlc = 9, fw_pm = 77, fw_max = 80 };

struct FwInfo {  // amdsmi_fw_info_t
  std::uint8_t num_fw_info;
  struct {
    FwBlock fw_id;
    std::uint64_t fw_version;
    std::uint64_t reserved[2];
  } fw_info_list[fw_max];
  std::uint32_t reserved[7];
};
static_assert(offsetof(FwInfo, fw_info_list) == 8 && sizeof FwInfo{}.fw_info_list[0] == 32);

}  // namespace

extern "C" {

abi::AmdsmiStatus amdsmi_init(std::uint64_t flags) {
  if (flags != abi::k_amdsmi_init_amd_gpus) {
    return 1;  // AMDSMI_STATUS_INVAL: rocdoc asks for AMD GPUs only
  }
  const char* status = std::getenv("ROCDOC_FAKE_AMDSMI_STATUS");
  return status != nullptr ? static_cast<abi::AmdsmiStatus>(std::atoi(status)) : 0;
}

abi::AmdsmiStatus amdsmi_shut_down() { return 0; }

abi::AmdsmiStatus amdsmi_get_socket_handles(std::uint32_t* count, void** handles) {
  if (handles == nullptr) {
    *count = 1;
    return 0;
  }
  if (*count < 1) {
    return 41;  // AMDSMI_STATUS_INSUFFICIENT_SIZE
  }
  handles[0] = &socket_tag;
  *count = 1;
  return 0;
}

abi::AmdsmiStatus amdsmi_get_processor_handles(void* socket, std::uint32_t* count, void** handles) {
  if (socket != &socket_tag) {
    return 1;
  }
  if (handles == nullptr) {
    *count = 2;
    return 0;
  }
  const std::uint32_t n = *count < 2 ? *count : 2;
  for (std::uint32_t i = 0; i < n; ++i) {
    handles[i] = &gpu_tags[i];
  }
  *count = n;
  return 0;
}

abi::AmdsmiStatus amdsmi_get_gpu_device_bdf(void* gpu, std::uint64_t* bdf) {
  const int index = gpu_of(gpu);
  if (index < 0) {
    return 1;
  }
  const std::uint64_t bus = index == 0 ? 0x03 : 0x43;
  *bdf = bus << 8;  // function 0, device 0, domain 0
  return 0;
}

abi::AmdsmiStatus amdsmi_get_gpu_asic_info(void* gpu, void* info) {
  if (gpu_of(gpu) < 0) {
    return 1;
  }
  auto* asic = static_cast<AsicInfo*>(info);
  std::strncpy(asic->market_name, "AMD Instinct MI210", sizeof asic->market_name - 1);
  asic->vendor_id = 0x1002;
  return 0;
}

abi::AmdsmiStatus amdsmi_get_gpu_total_ecc_count(void* gpu, void* counts) {
  const int index = gpu_of(gpu);
  if (index < 0) {
    return 1;
  }
  auto* ec = static_cast<ErrorCount*>(counts);
  ec->correctable_count = index == 0 ? 0 : 12;
  ec->uncorrectable_count = index == 0 ? 0 : 2;
  return 0;
}

abi::AmdsmiStatus amdsmi_get_temp_metric(void* gpu, unsigned int sensor, unsigned int metric,
                                         std::int64_t* value) {
  const int index = gpu_of(gpu);
  if (index < 0 || sensor != abi::k_amdsmi_temperature_edge ||
      metric != abi::k_amdsmi_temp_current) {
    return 2;  // AMDSMI_STATUS_NOT_SUPPORTED
  }
  *value = index == 0 ? 34 : 41;
  return 0;
}

abi::AmdsmiStatus amdsmi_get_gpu_driver_info(void* gpu, void* info) {
  if (gpu_of(gpu) < 0) {
    return 1;
  }
  auto* driver = static_cast<DriverInfo*>(info);
  std::strncpy(driver->driver_version, "6.10.5", sizeof driver->driver_version - 1);
  std::strncpy(driver->driver_date, "2015/01/01 00:00", sizeof driver->driver_date - 1);
  std::strncpy(driver->driver_name, "amdgpu", sizeof driver->driver_name - 1);
  return 0;
}

abi::AmdsmiStatus amdsmi_get_fw_info(void* gpu, void* info) {
  if (gpu_of(gpu) < 0) {
    return 1;
  }
  // In the order amd-smi fills it (a std::map of its blocks, so by number): MEC1, RLC, PM.
  auto* firmware = static_cast<FwInfo*>(info);
  firmware->num_fw_info = 3;
  firmware->fw_info_list[0].fw_id = fw_cp_mec1;
  firmware->fw_info_list[0].fw_version = 0x4a;
  firmware->fw_info_list[1].fw_id = fw_rlc;
  firmware->fw_info_list[1].fw_version = 0x11;
  firmware->fw_info_list[2].fw_id = fw_pm;
  firmware->fw_info_list[2].fw_version = 0x44e00;
  return 0;
}

abi::AmdsmiStatus amdsmi_status_code_to_string(abi::AmdsmiStatus status, const char** text) {
  *text = status == 0    ? "AMDSMI_STATUS_SUCCESS: Call succeeded"
          : status == 18 ? "AMDSMI_STATUS_INIT_ERROR: An error occurred when initializing "
                           "internal data structures"
                         : "An unknown error occurred";
  return 0;
}

}  // extern "C"
