// /proc/mounts and /etc/fstab: parse_mounts, mount_holding, tmpfs_size_from_mounts and
// fstab_lines_for, then a whole report with the fuzzed file as both (a machine whose /dev is
// mounted noexec).
#include "probes/system.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/overlay_host.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);

  const auto mounts = parse_mounts(input);
  for (const std::string_view path : {"/dev/shm", "/dev/kfd", "/", "/opt/rocm/lib"}) {
    if (const auto holder = mount_holding(mounts, path)) {
      ROCDOC_FUZZ_CHECK(holder->point == "/" || path.rfind(holder->point, 0) == 0,
                        "the holding mount's point is a prefix: " + holder->point);
    }
  }
  (void)tmpfs_size_from_mounts(input, "/dev/shm");
  (void)fstab_lines_for(input, "/dev");

  fuzz::OverlayHost host(fuzz::fixture("raven-apu-dev-noexec"));
  host.set_file("/proc/mounts", input);
  host.set_file("/etc/fstab", input);
  fuzz::report_on(host);
  return 0;
}
