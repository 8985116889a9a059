#include "src/util/byte_size.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace rocdoc::util {

std::string byte_size_text(std::uint64_t bytes) {
  struct Unit {
    std::uint64_t size;
    std::string_view name;
  };
  static constexpr std::array<Unit, 3> k_units{
      {{std::uint64_t{1} << 30, "GiB"}, {std::uint64_t{1} << 20, "MiB"}, {1024, "KiB"}}};
  for (const Unit& unit : k_units) {
    if (bytes >= unit.size) {
      const double value = static_cast<double>(bytes) / static_cast<double>(unit.size);
      std::string number = fmt::format("{:.1f}", value);
      if (number.size() > 2 && number.compare(number.size() - 2, 2, ".0") == 0) {
        number.resize(number.size() - 2);
      }
      return number + " " + std::string(unit.name);
    }
  }
  return fmt::format("{} bytes", bytes);
}

}  // namespace rocdoc::util
