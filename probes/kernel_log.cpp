#include "probes/kernel_log.h"

#include "src/util/strings.h"

namespace rocdoc {

namespace {

bool has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

// The messages come from the kernel's own sources: kfd_device.c (kgd2kfd_probe: "not supported
// in kfd"; kgd2kfd_device_init: "skipped device %x:%x, PCI rejects atomics %d<0" and "device
// %x:%x NOT added due to errors"), kernel/module/signing.c and security/lockdown ("Lockdown:
// …: unsigned module loading is restricted", "Loading of unsigned module is rejected"),
// drivers/base/firmware_loader ("Direct firmware load for amdgpu/… failed with error -2"),
// amdgpu_job.c ("ring … timeout"), amdgpu_device.c ("GPU reset begin!"), amd iommu
// ("IO_PAGE_FAULT"), kfd_process.c (kfd_process_init_cwsr_apu: "Failure to set tba address.
// error %d.").
std::optional<KernelEventKind> classify_kernel_line(std::string_view line) {
  const std::string lower = util::to_lower(line);
  if (has(lower, "rejects atomics")) {
    return KernelEventKind::atomics_rejected;
  }
  if (has(lower, "not supported in kfd")) {
    return KernelEventKind::not_supported_in_kfd;
  }
  if (has(lower, "not added due to errors")) {
    return KernelEventKind::kfd_not_added;
  }
  if (has(lower, "unsigned module") || (has(lower, "lockdown:") && has(lower, "module")) ||
      has(lower, "key was rejected by service") || has(lower, "required key not available")) {
    return KernelEventKind::module_refused;
  }
  if ((has(lower, "firmware") && (has(lower, "failed") || has(lower, "error"))) ||
      has(lower, "failed to load")) {
    return KernelEventKind::firmware_failed;
  }
  // Faults the GPU itself reports: before the resets they lead to, which a line may name too.
  // "Error Address(PA):0x… Row:… Bank:… Channel:…": the address of a UMC (VRAM) error whose pages
  // amdgpu retires (umc_v12_0.c; an injected error's lines on dri-devel, 2024-12-30).
  if (has(lower, "uncorrectable") || has(lower, "poison") || has(lower, "bad page") ||
      has(lower, "retired page") || has(lower, "error address(pa)")) {
    return KernelEventKind::ras_error;
  }
  if ((has(lower, "hub") && has(lower, "page fault")) || has(lower, "vm_l2_protection_fault")) {
    return KernelEventKind::vm_fault;  // [gfxhub] / [mmhub0] page fault, GCVM_L2_PROTECTION_FAULT
  }
  if (has(lower, "mes failed to respond") || has(lower, "mes ring buffer is full") ||
      (has(lower, "kiq") && (has(lower, "failed") || has(lower, "timeout"))) ||
      has(lower, "failed to halt cp")) {
    return KernelEventKind::scheduler_hang;
  }
  if (has(lower, "gpu reset") || has(lower, "amdgpu_job_timedout") ||
      (has(lower, "ring ") && has(lower, "timeout")) || has(lower, "gpu hang") ||
      has(lower, "gpu recovery")) {
    return KernelEventKind::gpu_reset;
  }
  if (has(lower, "io_page_fault") || has(lower, "iommu fault")) {
    return KernelEventKind::iommu_fault;
  }
  if (has(lower, "failure to set tba address")) {
    return KernelEventKind::trap_handler_refused;  // kfd_process_init_cwsr_apu()'s vm_mmap
  }
  return std::nullopt;
}

KernelLogFacts probe_kernel_log(const ProbeContext& context) {
  KernelLogFacts facts;
  KernelLog log = context.host.kernel_log();
  if (log.lines) {
    facts.state = KernelLogFacts::State::read;
    facts.lines = std::move(*log.lines);
  } else if (!log.error.empty()) {
    facts.state = KernelLogFacts::State::unreadable;
    facts.error = log.error;
  }
  for (const auto& line : facts.lines) {
    if (const auto kind = classify_kernel_line(line)) {
      facts.events.push_back({*kind, line});
    }
  }
  return facts;
}

}  // namespace rocdoc
