// The words a switch variable takes for "off", as MIOpen's env.hpp reads them (and most tools).
#pragma once

#include <string_view>

namespace rocdoc::checks {

/// 0, false, no, off, disable, disabled: `lower` already lower-cased and trimmed.
inline bool is_off_word(std::string_view lower) {
  return lower == "0" || lower == "false" || lower == "no" || lower == "off" ||
         lower == "disable" || lower == "disabled";
}

}  // namespace rocdoc::checks
