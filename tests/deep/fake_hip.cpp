// A fake libamdhip64 for e2e.deep: it exports the functions rocdoc's HIP child calls (the
// prototypes of src/runtime/abi.h) and misbehaves as its build says: FAKE_HANG (never
// answers, and leaves a grandchild), FAKE_SEGV (crashes), FAKE_GARBAGE (megabytes on stdout
// and stderr, and garbage on every other descriptor), FAKE_TWO_GPUS (gfx90a and gfx1100),
// FAKE_ERRORS (hipGetDeviceCount returns the status in ROCDOC_FAKE_HIP_STATUS), FAKE_ESCAPE (its
// constructor starts a process in a session of its own and one in a group of its own, as
// 09-deep-setsid-orphan.sh; hipGetDeviceCount then answers, or with ROCDOC_FAKE_HIP_HANG set
// never does).
//
// The compute test's calls (runtime.compute) work on host memory, and ROCDOC_FAKE_HIP_COMPUTE
// makes the second GPU (device 1) fail one way: "alloc" (hipMalloc: hipErrorOutOfMemory),
// "kernel" (hipDeviceSynchronize: hipErrorLaunchFailure), "wrong" (one word of the fill is not
// the pattern), "hang" (hipMemsetD32 never returns), "crash" (hipMemsetD32 dies of SIGSEGV);
// "slow" makes every copy crawl (about 0.5 GB/s) and "unpinned" refuses hipHostMalloc.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "src/runtime/abi.h"

namespace abi = rocdoc::runtime_abi;

namespace {

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

#if defined(FAKE_ESCAPE)
/// argv[0] of each escaped process is what e2e.deep looks for in /proc.
__attribute__((constructor)) void escape() {
  if (::fork() == 0) {
    ::setsid();
    if (::fork() == 0) {  // an orphan once its parent exits, in a session of its own
      ::execl("/bin/sleep", "rocdoc-fake-escaped-setsid", "600", static_cast<char*>(nullptr));
      ::_exit(1);
    }
    ::_exit(0);
  }
  if (::fork() == 0) {
    ::setpgid(0, 0);
    ::execl("/bin/sleep", "rocdoc-fake-escaped-setpgid", "600", static_cast<char*>(nullptr));
    ::_exit(1);
  }
}
#endif

int current_device = 0;

bool compute_mode(const char* mode) {
  const char* wanted = std::getenv("ROCDOC_FAKE_HIP_COMPUTE");
  return wanted != nullptr && std::strcmp(wanted, mode) == 0;
}

/// The mode's failure applies to device 1 only: device 0 always works.
bool failing(const char* mode) { return current_device == 1 && compute_mode(mode); }

/// A copy at about 0.5 GB/s: 2 ms per MiB.
void crawl(std::size_t size) {
  if (compute_mode("slow")) {
    std::this_thread::sleep_for(std::chrono::microseconds(2000 * (size >> 20)));
  }
}

}  // namespace

extern "C" {

abi::HipError hipRuntimeGetVersion(int* version) {
  *version = 60241134;  // 6.2.41134
  return 0;
}

abi::HipError hipDriverGetVersion(int* version) {
  *version = 60241134;
  return 0;
}

abi::HipError hipGetDeviceCount(int* count) {
#if defined(FAKE_HANG)
  if (::fork() == 0) {  // a grandchild in the same process group: it must go too
    ::execl("/bin/sleep", "sleep", "4242.5", static_cast<char*>(nullptr));
    ::_exit(1);
  }
  while (true) {
    ::pause();
  }
#elif defined(FAKE_SEGV)
  // As a segfault kills the process; raise() rather than a null store, which the sanitizer
  // builds' UBSan would report and exit(1) on instead.
  std::raise(SIGSEGV);
  *count = 0;
  return 0;
#elif defined(FAKE_GARBAGE)
  std::string noise = "\x1b[31mFailed to open drm root directory\x1b[0m ";
  while (noise.size() < (std::size_t{2} << 20)) {
    noise += noise;
  }
  write_all(1, noise);
  write_all(2, noise);
  for (int fd = 3; fd < 16; ++fd) {
    write_all(fd, "this is not\ta result\x01\n");
  }
  *count = 0;
  return 0;
#elif defined(FAKE_ESCAPE)
  while (std::getenv("ROCDOC_FAKE_HIP_HANG") != nullptr) {
    ::pause();
  }
  *count = 0;
  return 0;
#elif defined(FAKE_TWO_GPUS)
  *count = 2;
  return 0;
#elif defined(FAKE_ERRORS)
  const char* status = std::getenv("ROCDOC_FAKE_HIP_STATUS");
  *count = 0;
  return status != nullptr ? static_cast<abi::HipError>(std::atoi(status)) : 100;
#else
#error "build with one FAKE_ mode"
#endif
}

abi::HipError hipGetDeviceProperties(abi::HipDevicePropPrefix* props, int device) {
  const char* name = device == 0 ? "Fake Instinct MI210" : "Fake Radeon RX 7900 XTX";
  const char* arch = device == 0 ? "gfx90a:sramecc+:xnack-" : "gfx1100";
  std::strncpy(props->name, name, sizeof props->name - 1);
  std::strncpy(props->gcnArchName, arch, sizeof props->gcnArchName - 1);
  props->totalGlobalMem = device == 0 ? (std::size_t{64} << 30) : (std::size_t{24} << 30);
  props->pciDomainID = 0;
  props->pciBusID = device == 0 ? 0x03 : 0x43;
  props->pciDeviceID = 0;
  return device < 2 ? 0 : 101;
}

abi::HipError hipMalloc(void** pointer, std::size_t size) {
  if (failing("alloc")) {
    return 2;  // hipErrorOutOfMemory
  }
  *pointer = std::malloc(size);
  return *pointer != nullptr ? 0 : 2;
}

abi::HipError hipMemcpy(void* to, const void* from, std::size_t size, abi::HipMemcpyKind) {
  std::memcpy(to, from, size);
  crawl(size);
  return 0;
}

abi::HipError hipSetDevice(int device) {
  current_device = device;
  return device >= 0 && device < 2 ? 0 : 101;
}

abi::HipError hipMemsetD32(void* pointer, int value, std::size_t count) {
  if (failing("hang")) {
    while (true) {
      ::pause();
    }
  }
  if (failing("crash")) {
    std::raise(SIGSEGV);
  }
  auto* words = static_cast<std::uint32_t*>(pointer);
  std::fill_n(words, count, static_cast<std::uint32_t>(value));
  if (failing("wrong") && count > 5000) {
    words[4321] ^= 0x00010000u;  // one flipped bit, at byte 17284
  }
  return 0;
}

abi::HipError hipDeviceSynchronize() { return failing("kernel") ? 719 : 0; }

abi::HipError hipHostMalloc(void** pointer, std::size_t size, unsigned int) {
  if (compute_mode("unpinned")) {
    return 2;
  }
  *pointer = std::aligned_alloc(4096, size);
  return *pointer != nullptr ? 0 : 2;
}

abi::HipError hipHostFree(void* pointer) {
  std::free(pointer);
  return 0;
}

abi::HipError hipFree(void* pointer) {
  std::free(pointer);
  return 0;
}

const char* hipGetErrorName(abi::HipError error) {
  switch (error) {
    case 0:
      return "hipSuccess";
    case 2:
      return "hipErrorOutOfMemory";
    case 719:
      return "hipErrorLaunchFailure";
    case 35:
      return "hipErrorInsufficientDriver";
    case 98:
      return "hipErrorInvalidDeviceFunction";
    case 100:
      return "hipErrorNoDevice";
    case 209:
      return "hipErrorNoBinaryForGpu";
    default:
      return "hipErrorUnknown";
  }
}

}  // extern "C"
