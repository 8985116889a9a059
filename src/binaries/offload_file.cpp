#include "src/binaries/offload_file.h"

#include <sys/stat.h>

#include "src/util/byte_source.h"

namespace rocdoc {

OffloadScan scan_offload_file(util::UniqueFd fd) {
  struct ::stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0) {
    OffloadScan scan;
    scan.problems.push_back("cannot be read");
    return scan;
  }
  if (!S_ISREG(st.st_mode)) {
    OffloadScan scan;
    scan.problems.push_back("not a regular file");
    return scan;
  }
  const util::FileBytes bytes(std::move(fd), static_cast<std::uint64_t>(st.st_size));
  return scan_offload_bundles(bytes);
}

std::optional<std::vector<std::string>> offload_targets_answer(const OffloadScan& scan) {
  if (!scan.problems.empty()) {
    return std::nullopt;
  }
  return scan.targets();
}

}  // namespace rocdoc
