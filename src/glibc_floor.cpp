// Keeps the binary's glibc floor at 2.35 (Ubuntu 22.04) instead of Debian 12's 2.36.
//
// The static libstdc++ of GCC 12 refers to arc4random (glibc 2.36) from its random_device
// code, which rocdoc never uses. A definition here, in the executable itself, satisfies that
// reference, so the dynamic linker never asks glibc for the 2.36 symbol.
#include <sys/random.h>
#include <time.h>

#include <cstdint>

extern "C" std::uint32_t arc4random(void) {
  std::uint32_t value = 0;
  if (getrandom(&value, sizeof value, 0) != static_cast<ssize_t>(sizeof value)) {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    value = static_cast<std::uint32_t>(now.tv_nsec) * 2654435761u;
  }
  return value;
}
