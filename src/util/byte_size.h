// Sizes in bytes as people read them: "256 MiB", "24 GiB", "15.5 GiB".
#pragma once

#include <cstdint>
#include <string>

namespace rocdoc::util {

/// Binary units, one decimal where it is not whole: from 1 GiB on in GiB ("24 GiB",
/// "15.5 GiB"), from 1 MiB in MiB ("256 MiB"), from 1 KiB in KiB, below that in bytes.
std::string byte_size_text(std::uint64_t bytes);

}  // namespace rocdoc::util
