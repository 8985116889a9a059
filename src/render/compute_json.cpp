#include "src/render/compute_json.h"

namespace rocdoc {

nlohmann::ordered_json compute_to_json(const TargetCompute& compute) {
  using json = nlohmann::ordered_json;
  const auto text_or_null = [](const std::string& text) {
    return text.empty() ? json(nullptr) : json(text);
  };
  json hipblaslt = nullptr;
  if (compute.hipblaslt) {
    hipblaslt = {{"torch_since", text_or_null(compute.hipblaslt->torch_since)},
                 {"rocm_since", text_or_null(compute.hipblaslt->rocm_since)},
                 {"preferred", compute.hipblaslt->preferred}};
  }
  const FlashAttention& flash = compute.flash_attention;
  return {{"wavefronts", compute.wavefronts},
          {"fp16", to_string(compute.fp16)},
          {"bf16", to_string(compute.bf16)},
          {"bf16_how", compute.bf16_how},
          {"fp8", to_string(compute.fp8)},
          {"int8", to_string(compute.int8)},
          {"matrix", to_string(compute.matrix)},
          {"hipblaslt", hipblaslt},
          {"flash_attention",
           {{"sdpa", to_string(flash.sdpa)},
            {"torch_since", text_or_null(flash.torch_since)},
            {"ck", to_string(flash.ck)},
            {"triton", to_string(flash.triton)}}},
          {"source", compute.source}};
}

}  // namespace rocdoc
