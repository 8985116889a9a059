// --deep: the HIP runtime, rocm_smi_lib and the HSA runtime, each loaded in a child process of
// its own (src/runtime/). What the Host answers (RuntimeReport: how each child ended and what it
// wrote, raw) and what the runtime probe makes of it (RuntimeFacts).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocdoc {

/// The libraries --deep loads, each in its own child.
enum class RuntimeLibrary { hip, smi, hsa, amdsmi };

/// Whether the Host may start the children, or only replay what a snapshot recorded.
enum class RuntimeMode { recorded_only, load };

/// What the runtime probe asks the Host: the candidates of each library, in the order they
/// are tried (a path, or a soname for the system library path).
struct RuntimeRequest {
  RuntimeMode mode = RuntimeMode::recorded_only;
  std::chrono::milliseconds timeout{10'000};
  std::vector<std::string> hip;
  std::vector<std::string> smi;
  std::vector<std::string> hsa;
  std::vector<std::string> amdsmi;  ///< libamd_smi (amd-smi's library)
};

/// A child's standard output or error: never shown raw, summarised as evidence.
struct OutputSummary {
  std::uint64_t bytes = 0;               ///< everything it wrote (only the first 64 KiB are read)
  std::uint64_t lines = 0;               ///< lines in what was read
  std::vector<std::string> first_lines;  ///< the first few, cut short; printable
};

/// How a child ended.
enum class ChildEnding {
  exited,       ///< it exited (exit_status)
  signaled,     ///< a signal killed it (signal)
  timed_out,    ///< it was still running at the deadline: its process group was killed
  not_started,  ///< fork failed (error)
};

/// One child, raw: what it wrote on its result channel, and how it ended.
struct RuntimeRun {
  ChildEnding ending = ChildEnding::not_started;
  std::optional<int> exit_status;
  std::optional<std::string> signal;  ///< "SIGSEGV"
  double seconds = 0;
  std::string result;             ///< the result lines (src/runtime/protocol.h)
  bool result_truncated = false;  ///< it wrote more than rocdoc reads
  OutputSummary out;
  OutputSummary err;
  std::string error;  ///< not_started: why
};

/// The three children of one --deep run (or what a snapshot recorded of them).
struct RuntimeReport {
  std::chrono::milliseconds timeout{10'000};
  std::optional<RuntimeRun> hip;
  std::optional<RuntimeRun> smi;
  std::optional<RuntimeRun> hsa;
  std::optional<RuntimeRun> amdsmi;
};

// ---- what the runtime probe makes of a RuntimeReport --------------------------------------

/// A call into the library and what it returned.
struct RuntimeCall {
  std::string function;  ///< "hipGetDeviceCount"
  std::int64_t status = 0;
  std::string name;         ///< "hipErrorNoDevice", "RSMI_STATUS_INIT_ERROR"
  std::string description;  ///< the library's own text for it, when it has one
};

/// A candidate that did not load, with dlerror()'s text.
struct FailedCandidate {
  std::string candidate;
  std::string error;
};

/// What every child reports: how it ended, which library it loaded, the calls it made.
struct RuntimeLoad {
  ChildEnding ending = ChildEnding::not_started;
  std::optional<int> exit_status;
  std::optional<std::string> signal;
  double seconds = 0;
  std::vector<FailedCandidate> failed;    ///< in the order they were tried
  std::optional<std::string> candidate;   ///< the candidate that loaded
  std::optional<std::string> loaded;      ///< its real path
  std::vector<std::string> missing;       ///< symbols the loaded library lacks
  std::vector<RuntimeCall> calls;         ///< in order
  std::optional<std::string> running;     ///< the call it was in when it ended without "end"
  bool complete = false;                  ///< it wrote its last line
  std::optional<std::string> unreadable;  ///< what of the result could not be read (excerpt)
  OutputSummary out;
  OutputSummary err;
  std::string error;  ///< not_started: why

  /// The last call of `function`, or null.
  const RuntimeCall* call(std::string_view function) const {
    for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
      if (it->function == function) {
        return &*it;
      }
    }
    return nullptr;
  }
};

/// Copies timed in one direction (the first chunk, which touches the pages, left out).
struct HipCopyRate {
  std::uint64_t bytes = 0;
  std::uint64_t nanoseconds = 0;

  /// Bytes per second; nullopt when nothing was timed.
  std::optional<double> bytes_per_second() const {
    if (bytes == 0 || nanoseconds == 0) {
      return std::nullopt;
    }
    return static_cast<double>(bytes) * 1e9 / static_cast<double>(nanoseconds);
  }
};

/// The first word read back that was not the pattern the GPU wrote.
struct HipWrongWord {
  std::uint64_t offset = 0;
  std::uint32_t expected = 0;
  std::uint32_t found = 0;
};

/// runtime.compute on one GPU: device memory allocated, filled on the GPU (hipMemsetD32),
/// read back and compared, and copies to and from it timed.
struct HipCompute {
  std::uint64_t bytes = 0;                     ///< device memory allocated and filled
  std::vector<RuntimeCall> calls;              ///< the calls made for this GPU, in order
  std::optional<std::string> running;          ///< the call it was in when the child ended
  bool complete = false;                       ///< the child finished this GPU
  std::optional<bool> pinned;                  ///< the host buffer was page-locked (hipHostMalloc)
  std::optional<std::uint64_t> checked_bytes;  ///< read back and compared
  std::optional<std::uint64_t> wrong_words;    ///< of those, words that were not the pattern
  std::optional<HipWrongWord> first_wrong;
  std::optional<HipCopyRate> host_to_device;
  std::optional<HipCopyRate> device_to_host;

  /// The first call that failed, hipHostMalloc aside (the copies then use ordinary memory).
  const RuntimeCall* failed_call() const {
    for (const auto& call : calls) {
      if (call.status != 0 && call.function != "hipHostMalloc") {
        return &call;
      }
    }
    return nullptr;
  }
};

struct HipDevice {
  int index = 0;
  std::string name;
  std::string gcn_arch_name;  ///< "gfx90a:sramecc+:xnack-"
  std::optional<std::uint64_t> total_memory;
  std::optional<std::uint32_t> pci_domain;
  std::optional<std::uint32_t> pci_bus;
  std::optional<std::uint32_t> pci_device;
  std::optional<RuntimeCall> error;   ///< hipGetDeviceProperties failed for it
  std::optional<HipCompute> compute;  ///< nullopt: not tried (an older rocdoc's snapshot)
};

struct HipRuntimeFacts {
  RuntimeLoad load;
  std::optional<std::int64_t> runtime_version;  ///< HIP_VERSION: major*10^7 + minor*10^5 + patch
  std::optional<std::int64_t> driver_version;
  std::optional<int> device_count;
  std::vector<HipDevice> devices;
  std::optional<bool> round_trip;  ///< a 4 KiB copy to device 0 and back matched (older snapshots)
  /// The device whose compute test was under way when the child ended (hang or crash there).
  std::optional<int> computing;
};

struct SmiDevice {
  int index = 0;
  std::optional<std::string> market_name;  ///< amd-smi's product name
  /// ECC counts: amd-smi's totals of all blocks, rocm_smi's of the UMC (memory) block.
  std::optional<std::uint64_t> ecc_correctable;
  std::optional<std::uint64_t> ecc_uncorrectable;
  std::optional<std::int64_t> temperature_edge;  ///< as the library gave it (°C or m°C)
  std::optional<std::uint64_t> firmware_mec;     ///< rocm_smi: MEC and SMC firmware versions
  std::optional<std::uint64_t> firmware_smc;
  std::optional<std::uint64_t> vram_total;
  std::optional<std::uint64_t> vram_used;
  std::optional<std::uint64_t> pci_id;  ///< BDFID: domain << 32 | bus << 8 | device << 3 | function
};

struct SmiLink {
  int from = 0;
  int to = 0;
  std::uint32_t type = 0;  ///< RSMI_IO_LINK_TYPE: 1 PCIe, 2 XGMI
  std::optional<std::uint64_t> hops;
};

struct SmiRuntimeFacts {
  RuntimeLoad load;
  std::optional<int> device_count;
  std::optional<std::string> driver_version;
  std::vector<SmiDevice> devices;
  std::vector<SmiLink> links;
};

struct HsaAgent {
  std::string name;  ///< "gfx90a", or the CPU's name
  std::string type;  ///< "cpu", "gpu", "dsp" or the number
};

struct HsaRuntimeFacts {
  RuntimeLoad load;
  std::vector<HsaAgent> agents;
};

/// --deep's facts (or a snapshot's `runtime`); nullopt in Facts when neither.
struct RuntimeFacts {
  double timeout_seconds = 10;
  std::optional<HipRuntimeFacts> hip;
  std::optional<SmiRuntimeFacts> smi;
  std::optional<HsaRuntimeFacts> hsa;
  /// amd-smi's library (libamd_smi), in the same shape as rocm_smi's answer.
  std::optional<SmiRuntimeFacts> amdsmi;
};

}  // namespace rocdoc
