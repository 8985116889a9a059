// The few functions and structs of the HIP runtime, rocm_smi_lib and the HSA runtime that
// --deep calls, declared here because their headers are not there when rocdoc is built on a
// user's machine, and rocdoc never links these libraries (it dlopens them in a child).
// tests/abi/runtime_abi_check.cpp compiles against the real headers (Debian's libamdhip64-dev,
// librocm-smi-dev, libhsa-runtime-dev) and proves every type and offset here matches them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rocdoc::runtime_abi {

// ---- HIP (hip/hip_runtime_api.h) ----------------------------------------------------------

/// hipError_t: an enum whose values are all positive, so unsigned int underneath.
using HipError = unsigned int;
inline constexpr HipError k_hip_success = 0;
/// hipMemcpyKind
using HipMemcpyKind = unsigned int;
inline constexpr HipMemcpyKind k_hip_memcpy_host_to_device = 1;
inline constexpr HipMemcpyKind k_hip_memcpy_device_to_host = 2;

/// The legacy hipDeviceProp_t (HIP 5.x) up to gcnArchName: what the exported symbol
/// `hipGetDeviceProperties` fills in every HIP release. HIP 6 headers #define that name to
/// hipGetDevicePropertiesR0600 with a different struct; rocdoc dlsyms the plain name, whose
/// layout ROCm keeps for old binaries (ROCm/clr hipamd/src/hip_device_deprecated.cpp). The
/// whole struct is larger: the call gets a zeroed buffer of k_hip_device_prop_buffer bytes.
struct HipDevicePropPrefix {
  char name[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  int memoryClockRate;
  int memoryBusWidth;
  std::size_t totalConstMem;
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  int computeMode;
  int clockInstructionRate;
  std::uint32_t arch;  ///< hipDeviceArch_t: bit fields in 32 bits
  int concurrentKernels;
  int pciDomainID;
  int pciBusID;
  int pciDeviceID;
  std::size_t maxSharedMemoryPerMultiProcessor;
  int isMultiGpuBoard;
  int canMapHostMemory;
  int gcnArch;
  char gcnArchName[256];
};
inline constexpr std::size_t k_hip_device_prop_buffer = 8192;

using HipRuntimeGetVersionFn = HipError (*)(int*);
using HipDriverGetVersionFn = HipError (*)(int*);
using HipGetDeviceCountFn = HipError (*)(int*);
using HipGetDevicePropertiesFn = HipError (*)(HipDevicePropPrefix*, int);
using HipMallocFn = HipError (*)(void**, std::size_t);
using HipMemcpyFn = HipError (*)(void*, const void*, std::size_t, HipMemcpyKind);
using HipFreeFn = HipError (*)(void*);
using HipGetErrorNameFn = const char* (*)(HipError);
using HipSetDeviceFn = HipError (*)(int);
/// hipMemsetD32(hipDeviceptr_t dest, int value, size_t count): hipDeviceptr_t is void*.
using HipMemsetD32Fn = HipError (*)(void*, int, std::size_t);
using HipDeviceSynchronizeFn = HipError (*)();
using HipHostMallocFn = HipError (*)(void**, std::size_t, unsigned int);
using HipHostFreeFn = HipError (*)(void*);
inline constexpr unsigned int k_hip_host_malloc_default = 0;

// ---- rocm_smi_lib (rocm_smi/rocm_smi.h) -----------------------------------------------------

using RsmiStatus = unsigned int;  ///< rsmi_status_t
inline constexpr RsmiStatus k_rsmi_success = 0;
using RsmiMemoryType = unsigned int;  ///< rsmi_memory_type_t
inline constexpr RsmiMemoryType k_rsmi_mem_type_vram = 0;
using RsmiSwComponent = unsigned int;  ///< rsmi_sw_component_t
inline constexpr RsmiSwComponent k_rsmi_sw_comp_driver = 0;
using RsmiIoLinkType = unsigned int;  ///< RSMI_IO_LINK_TYPE
inline constexpr RsmiIoLinkType k_rsmi_iolink_pcie = 1;
inline constexpr RsmiIoLinkType k_rsmi_iolink_xgmi = 2;

using RsmiInitFn = RsmiStatus (*)(std::uint64_t);
using RsmiShutDownFn = RsmiStatus (*)();
using RsmiNumMonitorDevicesFn = RsmiStatus (*)(std::uint32_t*);
using RsmiDevMemoryTotalGetFn = RsmiStatus (*)(std::uint32_t, RsmiMemoryType, std::uint64_t*);
using RsmiDevMemoryUsageGetFn = RsmiStatus (*)(std::uint32_t, RsmiMemoryType, std::uint64_t*);
using RsmiDevPciIdGetFn = RsmiStatus (*)(std::uint32_t, std::uint64_t*);
using RsmiVersionStrGetFn = RsmiStatus (*)(RsmiSwComponent, char*, std::uint32_t);
using RsmiTopoGetLinkTypeFn = RsmiStatus (*)(std::uint32_t, std::uint32_t, std::uint64_t*,
                                             RsmiIoLinkType*);
using RsmiStatusStringFn = RsmiStatus (*)(RsmiStatus, const char**);
using RsmiTemperatureMetric = unsigned int;  ///< rsmi_temperature_metric_t
inline constexpr std::uint32_t k_rsmi_temp_type_edge = 0;
inline constexpr RsmiTemperatureMetric k_rsmi_temp_current = 0;
using RsmiGpuBlock = unsigned long;  ///< rsmi_gpu_block_t: 64-bit flags (RESERVED is bit 63)
inline constexpr RsmiGpuBlock k_rsmi_gpu_block_umc = 0x1;
using RsmiFwBlock = unsigned int;  ///< rsmi_fw_block_t
inline constexpr RsmiFwBlock k_rsmi_fw_block_mec = 5;
inline constexpr RsmiFwBlock k_rsmi_fw_block_smc = 14;
struct RsmiErrorCount {  ///< rsmi_error_count_t
  std::uint64_t correctable_err;
  std::uint64_t uncorrectable_err;
};
using RsmiDevTempMetricGetFn = RsmiStatus (*)(std::uint32_t, std::uint32_t, RsmiTemperatureMetric,
                                              std::int64_t*);
using RsmiDevEccCountGetFn = RsmiStatus (*)(std::uint32_t, RsmiGpuBlock, RsmiErrorCount*);
using RsmiDevFirmwareVersionGetFn = RsmiStatus (*)(std::uint32_t, RsmiFwBlock, std::uint64_t*);

// ---- amd-smi (amd_smi/amdsmi.h of ROCm/amdsmi) ---------------------------------------------
// No distribution rocdoc builds on packages amdsmi.h, so these are declared from AMD's header
// and the fake of tests/deep/fake_amd_smi.cpp is written from the same. Structs whose layout
// changed between releases (amdsmi_asic_info_t's market_name went from 64 to 256 bytes,
// amdsmi_error_count_t gained deferred_count) are passed as oversized zeroed buffers and only
// their leading fields read: those never moved.

using AmdsmiStatus = unsigned int;  ///< amdsmi_status_t
inline constexpr AmdsmiStatus k_amdsmi_success = 0;
inline constexpr std::uint64_t k_amdsmi_init_amd_gpus = 1u << 1;  ///< AMDSMI_INIT_AMD_GPUS
inline constexpr unsigned int k_amdsmi_temperature_edge = 0;      ///< AMDSMI_TEMPERATURE_TYPE_EDGE
inline constexpr unsigned int k_amdsmi_temp_current = 0;          ///< AMDSMI_TEMP_CURRENT
inline constexpr std::size_t k_amdsmi_buffer = 4096;  ///< for amdsmi_asic_info_t and others
inline constexpr std::size_t k_amdsmi_max_handles = 256;

using AmdsmiInitFn = AmdsmiStatus (*)(std::uint64_t);
using AmdsmiShutDownFn = AmdsmiStatus (*)();
/// amdsmi_socket_handle and amdsmi_processor_handle are void*.
using AmdsmiGetSocketHandlesFn = AmdsmiStatus (*)(std::uint32_t*, void**);
using AmdsmiGetProcessorHandlesFn = AmdsmiStatus (*)(void*, std::uint32_t*, void**);
/// amdsmi_bdf_t: a union of bit fields in one uint64_t (function 3 bits, device 5, bus 8,
/// domain 48, from the low bits up).
using AmdsmiGetGpuDeviceBdfFn = AmdsmiStatus (*)(void*, std::uint64_t*);
/// amdsmi_asic_info_t starts with char market_name[64 or 256].
using AmdsmiGetGpuAsicInfoFn = AmdsmiStatus (*)(void*, void*);
/// amdsmi_error_count_t starts with uint64_t correctable_count, uncorrectable_count.
using AmdsmiGetGpuTotalEccCountFn = AmdsmiStatus (*)(void*, void*);
using AmdsmiGetTempMetricFn = AmdsmiStatus (*)(void*, unsigned int, unsigned int, std::int64_t*);
using AmdsmiStatusCodeToStringFn = AmdsmiStatus (*)(AmdsmiStatus, const char**);
/// amdsmi_driver_info_t starts with char driver_version[64 (ROCm 6.1) or 256 (later)].
using AmdsmiGetGpuDriverInfoFn = AmdsmiStatus (*)(void*, void*);
inline constexpr std::size_t k_amdsmi_driver_version_size = 64;  ///< the smaller of the two
/// amdsmi_fw_info_t: uint8_t num_fw_info, then at offset 8 an array of { amdsmi_fw_block_t
/// fw_id; uint64_t fw_version; uint64_t reserved[2]; } (32 bytes each), in every release.
using AmdsmiGetFwInfoFn = AmdsmiStatus (*)(void*, void*);
inline constexpr std::size_t k_amdsmi_fw_list_offset = 8;
inline constexpr std::size_t k_amdsmi_fw_entry_size = 32;
inline constexpr std::size_t k_amdsmi_fw_version_offset = 8;  ///< within an entry

/// The amdsmi_fw_block_t values of the two firmware blocks rocm_smi calls MEC and SMC (amd-smi
/// maps AMDSMI_FW_ID_CP_MEC1 to RSMI_FW_BLOCK_MEC and AMDSMI_FW_ID_PM to RSMI_FW_BLOCK_SMC:
/// src/amd_smi/amd_smi.cc, amdsmi_get_fw_info). The enum is numbered implicitly and has moved:
/// ROCm 5.7's header called the SMU firmware FW_ID_SMC at 76, and ROCm 6.0 inserted
/// FW_ID_MES_KIQ at 47, moving it to FW_ID_PM at 77. So the numbers are known per soname only,
/// and a library of a soname not listed here has its firmware left unread, not guessed.
struct AmdsmiFirmwareIds {
  const char* soname;
  unsigned int mec;  ///< AMDSMI_FW_ID_CP_MEC1
  unsigned int pm;   ///< AMDSMI_FW_ID_PM
};
/// Counted from amdsmi.h: ROCm/amdsmi tags rocm-6.1.0 and rocm-6.2.0 and 0ceca28 (2024-10-23,
/// soname 24); ROCm/rocm-systems a8810687 projects/amdsmi/include/amd_smi/amdsmi.h and ROCm/rccl
/// 1841ac93 src/include/amdsmi_wrap.h (its copy of the newest enum, which appends
/// AMDSMI_FW_ID_PLDM_BUNDLE after AMDSMI_FW_ID_DMCU): CP_MEC1 is 7 and PM 77 in all of them.
/// Soname 25 (ROCm 6.4) is between two that agree, and amd-smi has only appended to the enum
/// since ROCm 6.0.
inline constexpr AmdsmiFirmwareIds k_amdsmi_firmware_ids[] = {{"libamd_smi.so.24", 7, 77},
                                                              {"libamd_smi.so.25", 7, 77},
                                                              {"libamd_smi.so.26", 7, 77},
                                                              {"libamd_smi.so.27", 7, 77}};

/// The firmware block numbers of the library whose DT_SONAME is `soname`; null when unknown.
constexpr const AmdsmiFirmwareIds* amdsmi_firmware_ids(std::string_view soname) {
  for (const AmdsmiFirmwareIds& ids : k_amdsmi_firmware_ids) {
    if (soname == ids.soname) {
      return &ids;
    }
  }
  return nullptr;
}

// ---- HSA runtime (hsa/hsa.h) ----------------------------------------------------------------

using HsaStatus = unsigned int;  ///< hsa_status_t
inline constexpr HsaStatus k_hsa_success = 0;
inline constexpr HsaStatus k_hsa_status_info_break = 0x1;
using HsaAgentInfo = unsigned int;                           ///< hsa_agent_info_t
inline constexpr HsaAgentInfo k_hsa_agent_info_name = 0;     ///< char[64]
inline constexpr HsaAgentInfo k_hsa_agent_info_device = 17;  ///< hsa_device_type_t
using HsaDeviceType = unsigned int;                          ///< hsa_device_type_t
inline constexpr HsaDeviceType k_hsa_device_cpu = 0;
inline constexpr HsaDeviceType k_hsa_device_gpu = 1;
inline constexpr HsaDeviceType k_hsa_device_dsp = 2;

/// hsa_agent_t: an opaque handle passed by value.
struct HsaAgentHandle {
  std::uint64_t handle;
};

using HsaInitFn = HsaStatus (*)();
using HsaShutDownFn = HsaStatus (*)();
using HsaAgentCallback = HsaStatus (*)(HsaAgentHandle, void*);
using HsaIterateAgentsFn = HsaStatus (*)(HsaAgentCallback, void*);
using HsaAgentGetInfoFn = HsaStatus (*)(HsaAgentHandle, HsaAgentInfo, void*);
using HsaStatusStringFn = HsaStatus (*)(HsaStatus, const char**);

}  // namespace rocdoc::runtime_abi
