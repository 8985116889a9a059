#include "src/checks/allocator_config.h"

#include "src/util/strings.h"

namespace rocdoc::checks {

std::vector<std::string> allocator_config_keys(std::string_view value) {
  std::vector<std::string> keys;
  std::size_t start = 0;
  int depth = 0;
  const auto take = [&](std::size_t end) {
    const std::string_view item = value.substr(start, end - start);
    const std::string_view key = util::trim(item.substr(0, item.find(':')));
    if (!key.empty()) {
      keys.emplace_back(key);
    }
    start = end + 1;
  };
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (c == '[') {
      ++depth;
    } else if (c == ']' && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      take(i);
    }
  }
  if (start <= value.size()) {
    take(value.size());
  }
  return keys;
}

}  // namespace rocdoc::checks
