// /proc/mounts and /etc/fstab: parse_mounts, mount_holding, tmpfs_size_from_mounts and
// fstab_lines_for, then a whole report with the fuzzed file as both (a machine whose /dev is
// mounted noexec).
#include "probes/system.h"
#include "src/util/strings.h"
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
  const auto dev_lines = fstab_lines_for(input, "/dev");
  // What a snapshot keeps: the same /dev lines under the same numbers (their text without
  // credentials), and no credential option.
  const std::string kept = mount_table_to_record(input, MountTable::fstab);
  const auto kept_lines = fstab_lines_for(kept, "/dev");
  ROCDOC_FUZZ_CHECK(
      kept_lines.size() == dev_lines.size(),
      std::to_string(dev_lines.size()) + " /dev lines became " + std::to_string(kept_lines.size()));
  for (std::size_t i = 0; i < kept_lines.size(); ++i) {
    ROCDOC_FUZZ_CHECK(kept_lines[i].line == dev_lines[i].line, kept_lines[i].text);
  }
  for (const auto& line : kept_lines) {
    const auto fields = util::split_whitespace(line.text);
    ROCDOC_FUZZ_CHECK(
        fields.size() < 4 || util::to_lower(fields[3]).find("password=") == std::string::npos,
        line.text);
  }
  (void)mount_table_to_record(input, MountTable::proc_mounts);

  fuzz::OverlayHost host(fuzz::fixture("raven-apu-dev-noexec"));
  host.set_file("/proc/mounts", input);
  host.set_file("/etc/fstab", input);
  fuzz::report_on(host);
  return 0;
}
