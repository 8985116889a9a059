// Visible-device masks (ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES,
// GPU_DEVICE_ORDINAL) as the runtimes parse them. Input: "NAME=value" lines. Each value goes
// through apply_rocr_visible_devices and apply_hip_visible_devices over eight GPUs (one without
// a UUID), and through allocator_config_keys (torch's allocator setting); then a whole report on
// an 8-GPU MI300X with the variables set (any allow-listed name: env.tuning and
// env.debug-left-on judge MIOPEN_*, PYTORCH_*_ALLOC_CONF and the rest from the same lines).
#include "src/checks/allocator_config.h"
#include "src/checks/visible_devices.h"
#include "src/util/strings.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/overlay_host.h"

namespace {

void check_mask(const rocdoc::checks::MaskResult& result, std::size_t devices) {
  for (const int position : result.selected) {
    ROCDOC_FUZZ_CHECK(position >= 0 && static_cast<std::size_t>(position) < devices,
                      "a selected device exists: " + std::to_string(position));
  }
  for (const auto& token : result.tokens) {
    if (token.device) {
      ROCDOC_FUZZ_CHECK(*token.device >= 0 && static_cast<std::size_t>(*token.device) < devices,
                        "a token's device exists: " + std::to_string(*token.device));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);
  const std::vector<std::optional<std::uint64_t>> uuids = {
      0x1d2c3b4a59687701ull, 0x1d2c3b4a59687702ull,
      std::nullopt,          0x9f00000000000004ull,
      0x9f00000000000005ull, 0x0ull,
      0xffffffffffffffffull, 0x1ull};
  fuzz::OverlayHost host(fuzz::fixture("mi300x-rocr-then-hip-mask"));
  for (const auto line : util::lines(input)) {
    const auto equals = line.find('=');
    const std::string_view value =
        equals == std::string_view::npos ? line : line.substr(equals + 1);
    check_mask(checks::apply_rocr_visible_devices(value, uuids), uuids.size());
    check_mask(checks::apply_hip_visible_devices(value, uuids), uuids.size());
    for (const auto& key : checks::allocator_config_keys(value)) {
      ROCDOC_FUZZ_CHECK(!key.empty() && util::trim(key) == key, "a key is trimmed: [" + key + "]");
    }
    if (equals != std::string_view::npos) {
      host.set_env(std::string(line.substr(0, equals)), value);
    }
  }
  fuzz::report_on(host);
  return 0;
}
