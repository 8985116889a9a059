#include "src/runtime/children.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
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
  abi::HipSetDeviceFn set_device = nullptr;
  abi::HipMemsetD32Fn fill = nullptr;
  abi::HipDeviceSynchronizeFn synchronize = nullptr;
  abi::HipHostMallocFn host_allocate = nullptr;  ///< optional: copies then use ordinary memory
  abi::HipHostFreeFn host_release = nullptr;
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

/// Reads device `index`'s properties; its total memory when they were read.
std::optional<std::uint64_t> hip_device(const Hip& hip, int index) {
  // The legacy struct is smaller than this buffer; whatever a newer runtime writes past the
  // fields rocdoc reads stays inside it.
  alignas(std::max_align_t) static std::array<unsigned char, abi::k_hip_device_prop_buffer> buffer;
  buffer.fill(0);
  auto* props = reinterpret_cast<abi::HipDevicePropPrefix*>(buffer.data());
  if (!hip.call("hipGetDeviceProperties", [&] { return hip.properties(props, index); })) {
    return std::nullopt;
  }
  const std::string i = std::to_string(index);
  const ResultWriter& out = *hip.out;
  out.line({"device", i, "name", text(props->name, sizeof props->name)});
  out.line({"device", i, "gcn_arch_name", text(props->gcnArchName, sizeof props->gcnArchName)});
  out.line({"device", i, "total_memory", std::to_string(props->totalGlobalMem)});
  out.line({"device", i, "pci_domain", std::to_string(props->pciDomainID)});
  out.line({"device", i, "pci_bus", std::to_string(props->pciBusID)});
  out.line({"device", i, "pci_device", std::to_string(props->pciDeviceID)});
  return props->totalGlobalMem;
}

// ---- HIP: real work on each GPU (runtime.compute) -------------------------------------------

/// The device memory filled on each GPU, at most: and at most an eighth of what it has.
constexpr std::size_t k_compute_bytes = std::size_t{256} << 20;
/// The page-locked host buffer each copy goes through (one, reused: host memory is bounded).
constexpr std::size_t k_chunk_bytes = std::size_t{16} << 20;
/// How long the copies of all GPUs may take together, shared out (at least two chunks each way
/// are always copied): a slow link still ends within a second per GPU, 8 GPUs within 2 s.
constexpr auto k_copy_budget_all = std::chrono::milliseconds(1200);
constexpr auto k_copy_budget_most = std::chrono::milliseconds(300);  ///< for one GPU
constexpr auto k_copy_budget_least = std::chrono::milliseconds(60);

/// One GPU's share of the copy time: two thirds to read back (and compare), one to write.
struct CopyBudget {
  std::chrono::milliseconds read_back;
  std::chrono::milliseconds write;
};

CopyBudget copy_budget(int devices) {
  const auto share =
      std::clamp(k_copy_budget_all / std::max(devices, 1), k_copy_budget_least, k_copy_budget_most);
  return {share * 2 / 3, share / 3};
}

/// What hipMemsetD32 writes on device `index`: never 0 or all ones, different per GPU.
std::uint32_t fill_pattern(int index) { return 0x5eed0000u | static_cast<std::uint32_t>(index); }

std::size_t compute_bytes(std::optional<std::uint64_t> total_memory) {
  std::uint64_t bytes = k_compute_bytes;
  if (total_memory) {
    bytes = std::min<std::uint64_t>(bytes, *total_memory / 8 / k_chunk_bytes * k_chunk_bytes);
  }
  return static_cast<std::size_t>(std::max<std::uint64_t>(bytes, k_chunk_bytes));
}

/// The host side of the copies: page-locked by hipHostMalloc where it can, else ordinary memory
/// (whose copies are slower, so their rate is shown, never judged).
struct HostBuffer {
  std::uint32_t* words = nullptr;
  bool pinned = false;
};

/// The chunk order of the read-back: the first, the last, then the rest from the start, so
/// that even a slow link checks both ends of the allocation.
std::size_t chunk_at(std::size_t step, std::size_t chunks) {
  if (step == 0 || chunks < 2) {
    return step;
  }
  return step == 1 ? chunks - 1 : step - 1;
}

struct CopyTotals {
  std::uint64_t bytes = 0;
  std::chrono::nanoseconds time{0};
  std::size_t chunks = 0;
};

/// The timed part of a copy loop, the first chunk (first touch of the pages) left out where
/// there is more than one.
void add_copy(CopyTotals& totals, std::chrono::nanoseconds took) {
  if (++totals.chunks == 2) {
    totals.bytes = 0;
    totals.time = std::chrono::nanoseconds(0);
  }
  totals.bytes += k_chunk_bytes;
  totals.time += took;
}

void write_copy(const ResultWriter& out, const std::string& i, const char* direction,
                const CopyTotals& totals) {
  if (totals.chunks > 0) {
    out.line({"compute", i, "copy", direction, std::to_string(totals.bytes),
              std::to_string(totals.time.count())});
  }
}

/// Copies the filled memory back chunk by chunk and compares every word; false when a copy
/// failed. Writes how much was checked, and the first wrong word.
bool read_back(const Hip& hip, const std::string& i, unsigned char* device, std::size_t bytes,
               std::uint32_t pattern, const HostBuffer& host, std::chrono::milliseconds budget) {
  using Clock = std::chrono::steady_clock;
  const std::size_t chunks = bytes / k_chunk_bytes;
  const std::size_t words = k_chunk_bytes / sizeof(std::uint32_t);
  CopyTotals totals;
  std::uint64_t checked = 0;
  std::uint64_t wrong = 0;
  std::optional<std::array<std::uint64_t, 3>> first_wrong;  // offset, expected, found
  abi::HipError status = abi::k_hip_success;
  hip.out->line({"call", "hipMemcpy"});
  const auto start = Clock::now();
  for (std::size_t step = 0; step < chunks; ++step) {
    if (step >= 2 && Clock::now() - start > budget) {
      break;
    }
    const std::size_t chunk = chunk_at(step, chunks);
    const auto before = Clock::now();
    status = hip.copy(host.words, device + chunk * k_chunk_bytes, k_chunk_bytes,
                      abi::k_hip_memcpy_device_to_host);
    add_copy(totals, Clock::now() - before);
    if (status != abi::k_hip_success) {
      break;
    }
    for (std::size_t w = 0; w < words; ++w) {
      if (host.words[w] != pattern) {
        if (!first_wrong) {
          first_wrong = {chunk * k_chunk_bytes + w * sizeof(std::uint32_t), pattern, host.words[w]};
        }
        ++wrong;
      }
    }
    checked += k_chunk_bytes;
  }
  hip.out->line({"status", "hipMemcpy", std::to_string(status), text(hip.error_name(status))});
  write_copy(*hip.out, i, "d2h", totals);
  hip.out->line({"compute", i, "checked", std::to_string(checked), std::to_string(wrong)});
  if (first_wrong) {
    hip.out->line({"compute", i, "wrong", std::to_string((*first_wrong)[0]),
                   std::to_string((*first_wrong)[1]), std::to_string((*first_wrong)[2])});
  }
  return status == abi::k_hip_success;
}

/// Times host-to-device copies of the buffer over the allocation.
void write_to_device(const Hip& hip, const std::string& i, unsigned char* device, std::size_t bytes,
                     const HostBuffer& host, std::chrono::milliseconds budget) {
  using Clock = std::chrono::steady_clock;
  std::fill_n(host.words, k_chunk_bytes / sizeof(std::uint32_t), 0xa5a5a5a5u);
  CopyTotals totals;
  abi::HipError status = abi::k_hip_success;
  hip.out->line({"call", "hipMemcpy"});
  const auto start = Clock::now();
  for (std::size_t chunk = 0; chunk < bytes / k_chunk_bytes; ++chunk) {
    if (chunk >= 2 && Clock::now() - start > budget) {
      break;
    }
    const auto before = Clock::now();
    status = hip.copy(device + chunk * k_chunk_bytes, host.words, k_chunk_bytes,
                      abi::k_hip_memcpy_host_to_device);
    add_copy(totals, Clock::now() - before);
    if (status != abi::k_hip_success) {
      break;
    }
  }
  hip.out->line({"status", "hipMemcpy", std::to_string(status), text(hip.error_name(status))});
  write_copy(*hip.out, i, "h2d", totals);
}

/// The host buffer, page-locked where hipHostMalloc gives it (called on the first GPU).
HostBuffer host_buffer(const Hip& hip) {
  HostBuffer host;
  void* pinned = nullptr;
  if (hip.host_allocate != nullptr && hip.host_release != nullptr &&
      hip.call("hipHostMalloc",
               [&] {
                 return hip.host_allocate(&pinned, k_chunk_bytes, abi::k_hip_host_malloc_default);
               }) &&
      pinned != nullptr) {
    host.words = static_cast<std::uint32_t*>(pinned);
    host.pinned = true;
    return host;
  }
  host.words = static_cast<std::uint32_t*>(std::aligned_alloc(4096, k_chunk_bytes));
  return host;
}

/// On one GPU: allocate, fill on the GPU (hipMemsetD32 runs the runtime's own fill kernel),
/// wait for it, read everything back and compare it, then time copies to the GPU.
void hip_compute(const Hip& hip, int index, std::optional<std::uint64_t> total_memory,
                 std::optional<HostBuffer>& host, CopyBudget budget) {
  const std::string i = std::to_string(index);
  const ResultWriter& out = *hip.out;
  const std::size_t bytes = compute_bytes(total_memory);
  out.line({"compute", i, "begin", std::to_string(bytes)});
  const auto end = [&] { out.line({"compute", i, "end"}); };
  if (!hip.call("hipSetDevice", [&] { return hip.set_device(index); })) {
    return end();
  }
  if (!host) {
    host = host_buffer(hip);
  }
  if (host->words == nullptr) {
    return end();
  }
  out.line({"compute", i, "pinned", host->pinned ? "1" : "0"});
  void* device = nullptr;
  if (!hip.call("hipMalloc", [&] { return hip.allocate(&device, bytes); })) {
    return end();
  }
  const std::uint32_t pattern = fill_pattern(index);
  auto* base = static_cast<unsigned char*>(device);
  if (hip.call(
          "hipMemsetD32",
          [&] { return hip.fill(device, static_cast<int>(pattern), bytes / sizeof pattern); }) &&
      hip.call("hipDeviceSynchronize", [&] { return hip.synchronize(); }) &&
      read_back(hip, i, base, bytes, pattern, *host, budget.read_back)) {
    write_to_device(hip, i, base, bytes, *host, budget.write);
  }
  hip.call("hipFree", [&] { return hip.release(device); });
  end();
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
  // Readings a release may lack (optional symbols).
  abi::RsmiDevTempMetricGetFn temperature = nullptr;
  abi::RsmiDevEccCountGetFn ecc_count = nullptr;
  abi::RsmiDevFirmwareVersionGetFn firmware = nullptr;
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
  std::int64_t temperature = 0;
  if (smi.temperature != nullptr && smi.call("rsmi_dev_temp_metric_get", [&] {
        return smi.temperature(index, abi::k_rsmi_temp_type_edge, abi::k_rsmi_temp_current,
                               &temperature);
      })) {
    smi.out->line({"device", i, "temperature_edge", std::to_string(temperature)});
  }
  abi::RsmiErrorCount errors{};
  if (smi.ecc_count != nullptr && smi.call("rsmi_dev_ecc_count_get", [&] {
        return smi.ecc_count(index, abi::k_rsmi_gpu_block_umc, &errors);
      })) {
    smi.out->line({"device", i, "ecc_correctable", std::to_string(errors.correctable_err)});
    smi.out->line({"device", i, "ecc_uncorrectable", std::to_string(errors.uncorrectable_err)});
  }
  for (const auto& [block, name] : {std::pair{abi::k_rsmi_fw_block_mec, "firmware_mec"},
                                    std::pair{abi::k_rsmi_fw_block_smc, "firmware_smc"}}) {
    if (smi.firmware != nullptr && smi.call("rsmi_dev_firmware_version_get", [&, b = block] {
          return smi.firmware(index, b, &value);
        })) {
      smi.out->line({"device", i, name, std::to_string(value)});
    }
  }
}

// ---- amd-smi -------------------------------------------------------------------------------

struct AmdSmi {
  abi::AmdsmiInitFn init = nullptr;
  abi::AmdsmiShutDownFn shut_down = nullptr;
  abi::AmdsmiGetSocketHandlesFn sockets = nullptr;
  abi::AmdsmiGetProcessorHandlesFn processors = nullptr;
  abi::AmdsmiGetGpuDeviceBdfFn bdf = nullptr;
  abi::AmdsmiGetGpuAsicInfoFn asic_info = nullptr;
  abi::AmdsmiGetGpuTotalEccCountFn ecc_count = nullptr;
  abi::AmdsmiGetTempMetricFn temperature = nullptr;
  abi::AmdsmiGetGpuDriverInfoFn driver_info = nullptr;
  abi::AmdsmiGetFwInfoFn firmware = nullptr;
  /// The loaded library's firmware block numbers; null where its soname is not known.
  const abi::AmdsmiFirmwareIds* firmware_ids = nullptr;
  abi::AmdsmiStatusCodeToStringFn status_string = nullptr;
  const ResultWriter* out = nullptr;

  template <typename Call>
  bool call(const char* function, Call make_call) const {
    out->line({"call", function});
    const abi::AmdsmiStatus status = make_call();
    const char* description = nullptr;
    if (status_string(status, &description) != abi::k_amdsmi_success) {
      description = nullptr;
    }
    out->line({"status", function, std::to_string(status), status_name(status), text(description)});
    return status == abi::k_amdsmi_success;
  }

  /// amdsmi_status_t's names (amd_smi/amdsmi.h): 0 to 19, then groups from 30.
  static std::string status_name(abi::AmdsmiStatus status) {
    static constexpr std::array<std::string_view, 20> k_first = {
        "AMDSMI_STATUS_SUCCESS",
        "AMDSMI_STATUS_INVAL",
        "AMDSMI_STATUS_NOT_SUPPORTED",
        "AMDSMI_STATUS_NOT_YET_IMPLEMENTED",
        "AMDSMI_STATUS_FAIL_LOAD_MODULE",
        "AMDSMI_STATUS_FAIL_LOAD_SYMBOL",
        "AMDSMI_STATUS_DRM_ERROR",
        "AMDSMI_STATUS_API_FAILED",
        "AMDSMI_STATUS_TIMEOUT",
        "AMDSMI_STATUS_RETRY",
        "AMDSMI_STATUS_NO_PERM",
        "AMDSMI_STATUS_INTERRUPT",
        "AMDSMI_STATUS_IO",
        "AMDSMI_STATUS_ADDRESS_FAULT",
        "AMDSMI_STATUS_FILE_ERROR",
        "AMDSMI_STATUS_OUT_OF_RESOURCES",
        "AMDSMI_STATUS_INTERNAL_EXCEPTION",
        "AMDSMI_STATUS_INPUT_OUT_OF_BOUNDS",
        "AMDSMI_STATUS_INIT_ERROR",
        "AMDSMI_STATUS_REFCOUNT_OVERFLOW"};
    static constexpr std::array<std::string_view, 4> k_device = {
        "AMDSMI_STATUS_BUSY", "AMDSMI_STATUS_NOT_FOUND", "AMDSMI_STATUS_NOT_INIT",
        "AMDSMI_STATUS_NO_SLOT"};
    if (status < k_first.size()) {
      return std::string(k_first[status]);
    }
    if (status >= 30 && status < 30 + k_device.size()) {
      return std::string(k_device[status - 30]);
    }
    return "amdsmi_status " + std::to_string(status);
  }
};

/// The GPUs of every socket, at most k_amdsmi_max_handles.
std::vector<void*> amdsmi_gpus(const AmdSmi& smi) {
  std::vector<void*> gpus;
  std::uint32_t count = 0;
  if (!smi.call("amdsmi_get_socket_handles", [&] { return smi.sockets(&count, nullptr); })) {
    return gpus;
  }
  std::vector<void*> sockets(std::min<std::uint32_t>(count, abi::k_amdsmi_max_handles));
  count = static_cast<std::uint32_t>(sockets.size());
  if (!smi.call("amdsmi_get_socket_handles", [&] { return smi.sockets(&count, sockets.data()); })) {
    return gpus;
  }
  sockets.resize(std::min<std::size_t>(count, sockets.size()));
  for (void* socket : sockets) {
    std::uint32_t processors = 0;
    if (!smi.call("amdsmi_get_processor_handles",
                  [&] { return smi.processors(socket, &processors, nullptr); })) {
      continue;
    }
    const std::size_t room = abi::k_amdsmi_max_handles - gpus.size();
    std::vector<void*> handles(std::min<std::size_t>(processors, room));
    processors = static_cast<std::uint32_t>(handles.size());
    if (smi.call("amdsmi_get_processor_handles",
                 [&] { return smi.processors(socket, &processors, handles.data()); })) {
      handles.resize(std::min<std::size_t>(processors, handles.size()));
      gpus.insert(gpus.end(), handles.begin(), handles.end());
    }
  }
  return gpus;
}

/// The MEC and SMC (AMDSMI_FW_ID_PM) firmware versions of amdsmi_fw_info_t's list, where the
/// library's numbering of firmware blocks is known.
void amdsmi_firmware(const AmdSmi& smi, void* gpu, const std::string& i) {
  if (smi.firmware == nullptr || smi.firmware_ids == nullptr) {
    return;
  }
  alignas(std::uint64_t) static std::array<unsigned char, abi::k_amdsmi_buffer> info;
  info.fill(0);
  if (!smi.call("amdsmi_get_fw_info", [&] { return smi.firmware(gpu, info.data()); })) {
    return;
  }
  const std::size_t room =
      (info.size() - abi::k_amdsmi_fw_list_offset) / abi::k_amdsmi_fw_entry_size;
  const std::size_t count = std::min<std::size_t>(info[0], room);
  for (std::size_t entry = 0; entry < count; ++entry) {
    const unsigned char* at =
        info.data() + abi::k_amdsmi_fw_list_offset + entry * abi::k_amdsmi_fw_entry_size;
    std::uint32_t block = 0;
    std::uint64_t version = 0;
    std::memcpy(&block, at, sizeof block);
    std::memcpy(&version, at + abi::k_amdsmi_fw_version_offset, sizeof version);
    const char* name = block == smi.firmware_ids->mec  ? "firmware_mec"
                       : block == smi.firmware_ids->pm ? "firmware_smc"
                                                       : nullptr;
    if (name != nullptr) {
      smi.out->line({"device", i, name, std::to_string(version)});
    }
  }
}

/// The amdgpu driver's version, as the first GPU's amdsmi_driver_info_t gives it.
void amdsmi_driver_version(const AmdSmi& smi, void* gpu) {
  if (smi.driver_info == nullptr) {
    return;
  }
  alignas(std::uint64_t) static std::array<char, abi::k_amdsmi_buffer> info;
  info.fill(0);
  if (smi.call("amdsmi_get_gpu_driver_info", [&] { return smi.driver_info(gpu, info.data()); })) {
    smi.out->line(
        {"value", "driver_version", text(info.data(), abi::k_amdsmi_driver_version_size)});
  }
}

void amdsmi_device(const AmdSmi& smi, void* gpu, int index) {
  const std::string i = std::to_string(index);
  const ResultWriter& out = *smi.out;
  std::uint64_t bdf = 0;
  if (smi.call("amdsmi_get_gpu_device_bdf", [&] { return smi.bdf(gpu, &bdf); })) {
    // amdsmi_bdf_t to rocm_smi's BDFID (domain << 32 | bus << 8 | device << 3 | function).
    const std::uint64_t id = ((bdf >> 16) << 32) | (((bdf >> 8) & 0xff) << 8) | (bdf & 0xff);
    out.line({"device", i, "pci_id", std::to_string(id)});
  }
  alignas(std::uint64_t) static std::array<unsigned char, abi::k_amdsmi_buffer> buffer;
  buffer.fill(0);
  if (smi.asic_info != nullptr &&
      smi.call("amdsmi_get_gpu_asic_info", [&] { return smi.asic_info(gpu, buffer.data()); })) {
    out.line({"device", i, "market_name", text(reinterpret_cast<const char*>(buffer.data()), 256)});
  }
  buffer.fill(0);
  if (smi.ecc_count != nullptr && smi.call("amdsmi_get_gpu_total_ecc_count",
                                           [&] { return smi.ecc_count(gpu, buffer.data()); })) {
    std::array<std::uint64_t, 2> counts{};
    std::memcpy(counts.data(), buffer.data(), sizeof counts);
    out.line({"device", i, "ecc_correctable", std::to_string(counts[0])});
    out.line({"device", i, "ecc_uncorrectable", std::to_string(counts[1])});
  }
  std::int64_t temperature = 0;
  if (smi.temperature != nullptr && smi.call("amdsmi_get_temp_metric", [&] {
        return smi.temperature(gpu, abi::k_amdsmi_temperature_edge, abi::k_amdsmi_temp_current,
                               &temperature);
      })) {
    out.line({"device", i, "temperature_edge", std::to_string(temperature)});
  }
  amdsmi_firmware(smi, gpu, i);
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
  if (!find_symbols(
          *lib, out, std::pair{&hip.runtime_version, "hipRuntimeGetVersion"},
          std::pair{&hip.driver_version, "hipDriverGetVersion"},
          std::pair{&hip.device_count, "hipGetDeviceCount"}, std::pair{&hip.allocate, "hipMalloc"},
          std::pair{&hip.copy, "hipMemcpy"}, std::pair{&hip.release, "hipFree"},
          std::pair{&hip.error_name, "hipGetErrorName"}, std::pair{&hip.set_device, "hipSetDevice"},
          std::pair{&hip.fill, "hipMemsetD32"},
          std::pair{&hip.synchronize, "hipDeviceSynchronize"})) {
    out.line({"end"});
    return 0;
  }
  // The legacy export: optional, so that a release that drops it still gets its count
  // compared (without gfx names).
  hip.properties = lib->symbol<abi::HipGetDevicePropertiesFn>("hipGetDeviceProperties");
  hip.host_allocate = lib->symbol<abi::HipHostMallocFn>("hipHostMalloc");
  hip.host_release = lib->symbol<abi::HipHostFreeFn>("hipHostFree");
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
    const int devices = std::min(count, k_max_devices);
    std::vector<std::optional<std::uint64_t>> memory(static_cast<std::size_t>(devices));
    for (int i = 0; i < devices && hip.properties != nullptr; ++i) {
      memory[static_cast<std::size_t>(i)] = hip_device(hip, i);
    }
    // Real work on every GPU, one after the other (parallel copies would share the host's
    // links and spoil each other's rates). The host buffer is never freed: the child _exits.
    std::optional<HostBuffer> host;
    for (int i = 0; i < devices; ++i) {
      hip_compute(hip, i, memory[static_cast<std::size_t>(i)], host, copy_budget(devices));
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
  smi.temperature = lib->symbol<abi::RsmiDevTempMetricGetFn>("rsmi_dev_temp_metric_get");
  smi.ecc_count = lib->symbol<abi::RsmiDevEccCountGetFn>("rsmi_dev_ecc_count_get");
  smi.firmware = lib->symbol<abi::RsmiDevFirmwareVersionGetFn>("rsmi_dev_firmware_version_get");
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

int amdsmi_child(const std::vector<std::string>& candidates, int result_fd) {
  const ResultWriter out(result_fd);
  const util::DynLib* lib = load_first(candidates, out);
  if (lib == nullptr) {
    out.line({"end"});
    return 0;
  }
  AmdSmi smi;
  smi.out = &out;
  if (!find_symbols(*lib, out, std::pair{&smi.init, "amdsmi_init"},
                    std::pair{&smi.shut_down, "amdsmi_shut_down"},
                    std::pair{&smi.sockets, "amdsmi_get_socket_handles"},
                    std::pair{&smi.processors, "amdsmi_get_processor_handles"},
                    std::pair{&smi.bdf, "amdsmi_get_gpu_device_bdf"},
                    std::pair{&smi.status_string, "amdsmi_status_code_to_string"})) {
    out.line({"end"});
    return 0;
  }
  // Readings a release may lack: the device is still counted and placed without them.
  smi.asic_info = lib->symbol<abi::AmdsmiGetGpuAsicInfoFn>("amdsmi_get_gpu_asic_info");
  smi.ecc_count = lib->symbol<abi::AmdsmiGetGpuTotalEccCountFn>("amdsmi_get_gpu_total_ecc_count");
  smi.temperature = lib->symbol<abi::AmdsmiGetTempMetricFn>("amdsmi_get_temp_metric");
  smi.driver_info = lib->symbol<abi::AmdsmiGetGpuDriverInfoFn>("amdsmi_get_gpu_driver_info");
  smi.firmware = lib->symbol<abi::AmdsmiGetFwInfoFn>("amdsmi_get_fw_info");
  smi.firmware_ids = abi::amdsmi_firmware_ids(lib->elf_soname().value_or(""));
  if (!smi.call("amdsmi_init", [&] { return smi.init(abi::k_amdsmi_init_amd_gpus); })) {
    out.line({"end"});
    return 0;
  }
  const std::vector<void*> gpus = amdsmi_gpus(smi);
  out.line({"value", "device_count", std::to_string(gpus.size())});
  if (!gpus.empty()) {
    amdsmi_driver_version(smi, gpus.front());
  }
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    amdsmi_device(smi, gpus[i], static_cast<int>(i));
  }
  smi.call("amdsmi_shut_down", [&] { return smi.shut_down(); });
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
