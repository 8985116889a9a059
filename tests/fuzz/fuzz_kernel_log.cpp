// The kernel log as rocdoc reads it: klogctl(SYSLOG_ACTION_READ_ALL)'s text turned into
// /dev/kmsg's records, the GPU lines and their kinds (the fast path that judges a record on its
// printed text must agree with the record rebuilt in /dev/kmsg's form), and amdgpu's
// ras/<block>_err_count.
#include "probes/kernel_log.h"
#include "probes/pci.h"
#include "src/hosts/kernel_log.h"
#include "tests/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);

  // Every record the text gives, as /dev/kmsg would: its GPU lines are the GPU lines of
  // gpu_kernel_lines_of_syslog, whenever that accepts the text.
  std::vector<std::string> records;
  std::vector<std::string> expected;
  for_each_syslog_record(input, [&](std::string_view record, std::size_t lines) {
    records.emplace_back(record);
    if (auto line = gpu_kernel_line(record); line && lines == 1) {
      expected.push_back(std::move(*line));
    }
  });
  if (!records.empty()) {
    if (const auto lines = gpu_kernel_lines_of_syslog(input, records.front())) {
      ROCDOC_FUZZ_CHECK(lines->size() <= k_max_kernel_lines, "at most k_max_kernel_lines");
      if (expected.size() <= k_max_kernel_lines) {
        ROCDOC_FUZZ_CHECK(*lines == expected,
                          "the GPU lines judged on printed text equal those of the records");
      }
    }
  }
  (void)is_gpu_kernel_message(input);
  (void)gpu_kernel_line(input);
  (void)classify_kernel_line(input);
  if (const auto ras = parse_ras_count(input)) {
    (void)ras->uncorrectable;
  }
  return 0;
}
