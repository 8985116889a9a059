// Compiled with -fsyntax-only against the real headers (ctest abi.runtime): proves that the
// declarations of src/runtime/abi.h, which rocdoc uses without these headers, match
// Debian's libamdhip64-dev, librocm-smi-dev and libhsa-runtime-dev. Never part of the binary.
#include <hip/hip_runtime_api.h>
#include <hsa/hsa.h>
#include <rocm_smi/rocm_smi.h>

#include <cstddef>
#include <type_traits>

#include "src/runtime/abi.h"

namespace abi = rocdoc::runtime_abi;

namespace {

/// A type as the ABI passes it: an enum as its underlying integer.
template <typename T, bool = std::is_enum_v<T>>
struct AbiType {
  using type = T;
};
template <typename T>
struct AbiType<T, true> {
  using type = std::underlying_type_t<T>;
};

/// Whether ours (A) and theirs (B) are passed alike: the same type, an enum and its integer,
/// pointers to such, or function pointers whose return and every parameter are.
template <typename A, typename B>
struct Same : std::is_same<typename AbiType<A>::type, typename AbiType<B>::type> {};
template <typename A, typename B>
struct Same<A*, B*> : Same<A, B> {};
template <typename A, typename B>
struct Same<const A, const B> : Same<A, B> {};
template <typename RA, typename... PA, typename RB, typename... PB>
struct Same<RA (*)(PA...), RB (*)(PB...)>
    : std::bool_constant<sizeof...(PA) == sizeof...(PB) && Same<RA, RB>::value &&
                         (Same<PA, PB>::value && ...)> {};
// Our structs stand for theirs: their fields are compared below.
template <>
struct Same<abi::HipDevicePropPrefix, hipDeviceProp_t> : std::true_type {};
template <>
struct Same<abi::HsaAgentHandle, hsa_agent_t> : std::true_type {};
template <>
struct Same<abi::RsmiErrorCount, rsmi_error_count_t> : std::true_type {};

template <typename Ours, typename Theirs>
constexpr bool same_v = Same<Ours, Theirs>::value;

// HIP: the plain exported names (HIP 5.2's header has no R0600 renaming).
static_assert(same_v<abi::HipRuntimeGetVersionFn, decltype(&hipRuntimeGetVersion)>);
static_assert(same_v<abi::HipDriverGetVersionFn, decltype(&hipDriverGetVersion)>);
static_assert(same_v<abi::HipGetDeviceCountFn, decltype(&hipGetDeviceCount)>);
static_assert(same_v<abi::HipGetDevicePropertiesFn, decltype(&hipGetDeviceProperties)>);
static_assert(
    same_v<abi::HipMallocFn, decltype(static_cast<hipError_t (*)(void**, size_t)>(&hipMalloc))>);
static_assert(same_v<abi::HipMemcpyFn, decltype(&hipMemcpy)>);
static_assert(same_v<abi::HipFreeFn, decltype(&hipFree)>);
static_assert(same_v<abi::HipGetErrorNameFn, decltype(&hipGetErrorName)>);
static_assert(same_v<abi::HipSetDeviceFn, decltype(&hipSetDevice)>);
static_assert(same_v<abi::HipMemsetD32Fn, decltype(&hipMemsetD32)>);
static_assert(same_v<abi::HipDeviceSynchronizeFn, decltype(&hipDeviceSynchronize)>);
static_assert(
    same_v<abi::HipHostMallocFn,
           decltype(static_cast<hipError_t (*)(void**, size_t, unsigned int)>(&hipHostMalloc))>);
static_assert(same_v<abi::HipHostFreeFn, decltype(&hipHostFree)>);
static_assert(abi::k_hip_host_malloc_default == hipHostMallocDefault);
static_assert(std::is_same_v<abi::HipError, std::underlying_type_t<hipError_t>>);
static_assert(abi::k_hip_success == hipSuccess);
static_assert(abi::k_hip_memcpy_host_to_device == hipMemcpyHostToDevice);
static_assert(abi::k_hip_memcpy_device_to_host == hipMemcpyDeviceToHost);
static_assert(hipErrorNoDevice == 100 && hipErrorInsufficientDriver == 35 &&
              hipErrorInvalidDeviceFunction == 98 && hipErrorNoBinaryForGpu == 209);
// runtime.compute's causes (src/checks/runtime_compute.cpp).
static_assert(hipErrorOutOfMemory == 2 && hipErrorIllegalAddress == 700 &&
              hipErrorLaunchFailure == 719 && hipErrorLaunchTimeOut == 702 &&
              hipErrorECCNotCorrectable == 214);

#define ROCDOC_SAME_FIELD(field)                                                                 \
  static_assert(offsetof(abi::HipDevicePropPrefix, field) == offsetof(hipDeviceProp_t, field) && \
                sizeof(abi::HipDevicePropPrefix::field) == sizeof(hipDeviceProp_t::field))
ROCDOC_SAME_FIELD(name);
ROCDOC_SAME_FIELD(totalGlobalMem);
ROCDOC_SAME_FIELD(arch);
ROCDOC_SAME_FIELD(pciDomainID);
ROCDOC_SAME_FIELD(pciBusID);
ROCDOC_SAME_FIELD(pciDeviceID);
ROCDOC_SAME_FIELD(gcnArch);
ROCDOC_SAME_FIELD(gcnArchName);
#undef ROCDOC_SAME_FIELD
static_assert(sizeof(hipDeviceProp_t) <= abi::k_hip_device_prop_buffer);

// rocm_smi_lib
static_assert(same_v<abi::RsmiDevTempMetricGetFn, decltype(&rsmi_dev_temp_metric_get)>);
static_assert(same_v<abi::RsmiDevEccCountGetFn, decltype(&rsmi_dev_ecc_count_get)>);
static_assert(same_v<abi::RsmiDevFirmwareVersionGetFn, decltype(&rsmi_dev_firmware_version_get)>);
static_assert(abi::k_rsmi_temp_type_edge == RSMI_TEMP_TYPE_EDGE &&
              abi::k_rsmi_temp_current == RSMI_TEMP_CURRENT &&
              abi::k_rsmi_gpu_block_umc == RSMI_GPU_BLOCK_UMC &&
              abi::k_rsmi_fw_block_mec == RSMI_FW_BLOCK_MEC &&
              abi::k_rsmi_fw_block_smc == RSMI_FW_BLOCK_SMC);
static_assert(sizeof(abi::RsmiErrorCount) == sizeof(rsmi_error_count_t) &&
              offsetof(abi::RsmiErrorCount, uncorrectable_err) ==
                  offsetof(rsmi_error_count_t, uncorrectable_err));
static_assert(same_v<abi::RsmiInitFn, decltype(&rsmi_init)>);
static_assert(same_v<abi::RsmiShutDownFn, decltype(&rsmi_shut_down)>);
static_assert(same_v<abi::RsmiNumMonitorDevicesFn, decltype(&rsmi_num_monitor_devices)>);
static_assert(same_v<abi::RsmiDevMemoryTotalGetFn, decltype(&rsmi_dev_memory_total_get)>);
static_assert(same_v<abi::RsmiDevMemoryUsageGetFn, decltype(&rsmi_dev_memory_usage_get)>);
static_assert(same_v<abi::RsmiDevPciIdGetFn, decltype(&rsmi_dev_pci_id_get)>);
static_assert(same_v<abi::RsmiVersionStrGetFn, decltype(&rsmi_version_str_get)>);
static_assert(same_v<abi::RsmiTopoGetLinkTypeFn, decltype(&rsmi_topo_get_link_type)>);
static_assert(same_v<abi::RsmiStatusStringFn, decltype(&rsmi_status_string)>);
static_assert(std::is_same_v<abi::RsmiStatus, std::underlying_type_t<rsmi_status_t>>);
static_assert(abi::k_rsmi_success == RSMI_STATUS_SUCCESS);
static_assert(abi::k_rsmi_mem_type_vram == RSMI_MEM_TYPE_VRAM);
static_assert(abi::k_rsmi_sw_comp_driver == RSMI_SW_COMP_DRIVER);
static_assert(abi::k_rsmi_iolink_pcie == RSMI_IOLINK_TYPE_PCIEXPRESS);
static_assert(abi::k_rsmi_iolink_xgmi == RSMI_IOLINK_TYPE_XGMI);
static_assert(RSMI_STATUS_INIT_ERROR == 8 && RSMI_STATUS_PERMISSION == 4);

// HSA runtime
static_assert(same_v<abi::HsaInitFn, decltype(&hsa_init)>);
static_assert(same_v<abi::HsaShutDownFn, decltype(&hsa_shut_down)>);
static_assert(same_v<abi::HsaIterateAgentsFn, decltype(&hsa_iterate_agents)>);
static_assert(same_v<abi::HsaAgentGetInfoFn, decltype(&hsa_agent_get_info)>);
static_assert(same_v<abi::HsaStatusStringFn, decltype(&hsa_status_string)>);
static_assert(std::is_same_v<abi::HsaStatus, std::underlying_type_t<hsa_status_t>>);
static_assert(sizeof(abi::HsaAgentHandle) == sizeof(hsa_agent_t) &&
              offsetof(abi::HsaAgentHandle, handle) == offsetof(hsa_agent_t, handle));
static_assert(abi::k_hsa_success == HSA_STATUS_SUCCESS);
static_assert(abi::k_hsa_status_info_break == HSA_STATUS_INFO_BREAK);
static_assert(abi::k_hsa_agent_info_name == HSA_AGENT_INFO_NAME);
static_assert(abi::k_hsa_agent_info_device == HSA_AGENT_INFO_DEVICE);
static_assert(abi::k_hsa_device_cpu == HSA_DEVICE_TYPE_CPU);
static_assert(abi::k_hsa_device_gpu == HSA_DEVICE_TYPE_GPU);
static_assert(abi::k_hsa_device_dsp == HSA_DEVICE_TYPE_DSP);
static_assert(HSA_STATUS_ERROR_OUT_OF_RESOURCES == 0x1008);

}  // namespace
