// The visible-device masks as the runtimes read them: tables of values users really set.
#include <catch2/catch.hpp>

#include "src/checks/visible_devices.h"

using namespace rocdoc;
using namespace rocdoc::checks;

namespace {

// unique_id values of real MI300X KFD nodes are 64-bit; these are of that shape.
const std::vector<std::optional<std::uint64_t>> k_three = {
    0x5b2c1a7b72a5b4c7ull, 0x5b2c1a7b72a5b4d1ull, 0x9e0f3a1d00c2e4a8ull};
const std::vector<std::optional<std::uint64_t>> k_one = {0x1c7e33f1a7d2c5b9ull};

std::vector<int> rocr(std::string_view value,
                      const std::vector<std::optional<std::uint64_t>>& uuids = k_three) {
  return apply_rocr_visible_devices(value, uuids).selected;
}

std::vector<int> hip(std::string_view value,
                     const std::vector<std::optional<std::uint64_t>>& uuids = k_three) {
  return apply_hip_visible_devices(value, uuids).selected;
}

using List = std::vector<int>;

}  // namespace

TEST_CASE("ROCR_VISIBLE_DEVICES selects KFD GPUs as ROCr's RvdFilter does", "[visible]") {
  CHECK(rocr("0,2") == List{0, 2});
  CHECK(rocr("2,0") == List{2, 0});         // token order, not topology order
  CHECK(rocr(" 1 ") == List{1});            // trimmed
  CHECK(rocr("").empty());                  // set but empty: no GPU
  CHECK(rocr("-1").empty());                // the usual "hide everything"
  CHECK(rocr("0,5,1") == List{0});          // stops at the first bad token
  CHECK(rocr("0,0,1") == List{0});          // a repeat stops it too
  CHECK(rocr("0x1") == List{1});            // strtol base 0
  CHECK(rocr("010").empty());               // octal 8: out of range
  CHECK(rocr("1a").empty());                // trailing characters
  CHECK(rocr("0,1,2,0") == List{0, 1, 2});  // only min(GPUs, tokens) tokens are read
  CHECK(rocr("0,") == List{0});             // getline: no empty last token
  CHECK(rocr("GPU-5B2C1A7B72A5B4C7") == List{0});
  CHECK(rocr("gpu-5b2c1a7b72a5b4d1") == List{1});                   // upper-cased first
  CHECK(rocr("GPU-9E") == List{2});                                 // a unique prefix
  CHECK(rocr("GPU-5B2C").empty());                                  // ambiguous prefix
  CHECK(rocr("GPU-").empty());                                      // shorter than 5 characters
  CHECK(rocr("GPU-4b2c1a9f-8d3e-6f7a-b5c9-2e4d8a1f6c3b").empty());  // too long for ROCr
  const MaskResult empty_entry = apply_rocr_visible_devices("0,,1", k_three);
  CHECK(empty_entry.init_fails);
  CHECK(empty_entry.selected.empty());
  CHECK(apply_rocr_visible_devices("0,5,1", k_three).tokens[1].verdict ==
        TokenVerdict::out_of_range);
  CHECK(apply_rocr_visible_devices("0,5,1", k_three).tokens[2].verdict == TokenVerdict::not_read);
  CHECK(apply_rocr_visible_devices("GPU-XX", {0}).tokens[0].verdict ==
        TokenVerdict::unknown_uuid);  // a GPU whose unique_id is 0 has no UUID to match
}

TEST_CASE("HIP_VISIBLE_DEVICES selects HSA agents as HIP's CLR does", "[visible]") {
  CHECK(hip("1,0") == List{1, 0});
  CHECK(hip("").empty());  // stored as " ": invalid first token
  CHECK(hip("-1").empty());
  CHECK(hip("0, 1") == List{0});      // no trimming: " 1" stops it
  CHECK(hip("01").empty());           // not the canonical decimal
  CHECK(hip("0,0,1") == List{0, 1});  // repeats are skipped, parsing goes on
  CHECK(hip("0,3,1") == List{0});
  CHECK(hip("0,") == List{0});
  CHECK(hip(",0").empty());
  CHECK(hip("\"0,2\"") == List{0, 2});  // CLR removes surrounding double quotes
  CHECK(hip("GPU-9e0f3a1d00c2e4a8") == List{2});
  CHECK(hip("GPU-9E0F3A1D00C2E4A8").empty());  // CLR compares with lower-case UUIDs
  CHECK(hip("GPU-5b2c") == List{0});           // the first agent whose UUID contains it
  CHECK(apply_hip_visible_devices("0,3,1", k_three).tokens[1].verdict ==
        TokenVerdict::out_of_range);
  CHECK(apply_hip_visible_devices("0,0", k_three).tokens[1].verdict == TokenVerdict::duplicate);
  CHECK(hip("0", k_one) == List{0});
  CHECK(hip("1", k_one).empty());
}

TEST_CASE("UUIDs are the 16 hex digits of KFD's unique_id", "[visible]") {
  CHECK(rocr_uuid(0x5b2c1a7b72a5b4c7ull) == "GPU-5B2C1A7B72A5B4C7");
  CHECK(hip_uuid(0x5b2c1a7b72a5b4c7ull) == "GPU-5b2c1a7b72a5b4c7");
  CHECK(hip_uuid(2) == "GPU-0000000000000002");
}
