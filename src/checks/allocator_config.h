// PyTorch's allocator setting (PYTORCH_ALLOC_CONF and its older names) read as torch's
// tokenizer reads it: key:value pairs separated by commas.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rocdoc::checks {

/// The keys of a setting, in order: "expandable_segments:True,max_split_size_mb:128" →
/// {expandable_segments, max_split_size_mb}. A bracketed value is one value, commas and colons
/// included ("roundup_power2_divisions:[256:1,512:2]"); spaces around keys are dropped; an
/// empty item ("a:1,,b:2") is skipped.
std::vector<std::string> allocator_config_keys(std::string_view value);

}  // namespace rocdoc::checks
