#include "src/binaries/tensile_names.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace rocdoc {

namespace {

bool is_hex_digit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// "-3-generic" or "-generic" after "gfx10": the generic family targets.
std::size_t generic_suffix(std::string_view rest) {
  std::size_t at = 0;
  if (rest.substr(0, 1) == "-" && rest.size() > 1 && is_digit(rest[1])) {
    at = 2;
    while (at < rest.size() && is_digit(rest[at])) {
      ++at;
    }
  }
  return rest.substr(at, 8) == "-generic" ? at + 8 : 0;
}

// Features written with '-' or ':' before them ("-xnack+", ":sramecc-"), in the name's order.
std::string features(std::string_view rest) {
  std::vector<std::string> found;
  while (rest.size() > 1 && (rest[0] == '-' || rest[0] == ':')) {
    std::string_view feature;
    for (std::string_view name : {"xnack", "sramecc"}) {
      if (rest.substr(1, name.size()) == name && rest.size() > name.size() + 1 &&
          (rest[name.size() + 1] == '+' || rest[name.size() + 1] == '-')) {
        feature = rest.substr(1, name.size() + 1);
      }
    }
    if (feature.empty()) {
      break;
    }
    found.push_back(":" + std::string(feature));
    rest.remove_prefix(feature.size() + 1);
  }
  std::sort(found.begin(), found.end());  // a target id lists its features alphabetically
  std::string text;
  for (const auto& feature : found) {
    text += feature;
  }
  return text;
}

}  // namespace

std::vector<std::string> targets_in_name(std::string_view name) {
  std::vector<std::string> targets;
  std::size_t at = 0;
  while ((at = name.find("gfx", at)) != std::string_view::npos) {
    const bool starts_word = at == 0 || !is_word(name[at - 1]);
    std::size_t end = at + 3;
    while (end < name.size() && is_hex_digit(name[end])) {
      ++end;
    }
    // A processor is gfx + a decimal major and hex minor and stepping (3 to 5 characters); a
    // generic family is gfx + a major and maybe a minor + "-generic" ("gfx10-3-generic").
    const std::size_t digits = end - at - 3;
    const std::size_t generic = digits >= 1 && digits <= 2 ? generic_suffix(name.substr(end)) : 0;
    const bool processor = digits >= 3 && digits <= 5;
    if (!starts_word || (!processor && generic == 0) || !is_digit(name[at + 3])) {
      at += 3;
      continue;
    }
    end += generic;
    if (end < name.size() && is_word(name[end])) {
      at = end;
      continue;  // "gfx90abc": not a target
    }
    const std::string feature_text = features(name.substr(end));
    targets.push_back(std::string(name.substr(at, end - at)) + feature_text);
    at = end;
  }
  return targets;
}

std::vector<std::string> tensile_targets(const std::vector<std::string>& names) {
  std::set<std::string> found;
  for (const auto& name : names) {
    for (auto& target : targets_in_name(name)) {
      found.insert(std::move(target));
    }
  }
  return {found.begin(), found.end()};
}

}  // namespace rocdoc
