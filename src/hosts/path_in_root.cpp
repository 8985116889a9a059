#include "src/hosts/path_in_root.h"

#include <deque>
#include <vector>

#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr int k_max_link_hops = 40;  // as the kernel's ELOOP limit
// Components walked in one resolution, links' included: real paths have tens. The kernel
// bounds the same work with PATH_MAX per link; a count also bounds "a/../a/../…" targets.
constexpr int k_max_components = 256;

std::string join_inside(const std::vector<std::string>& parts) {
  std::string path;
  for (const auto& part : parts) {
    path += '/';
    path += part;
  }
  return path.empty() ? "/" : path;
}

void push_components(std::deque<std::string>& pending, std::string_view path) {
  std::vector<std::string> parts;
  for (const auto part : util::split(path, '/')) {
    if (!part.empty() && part != ".") {
      parts.emplace_back(part);
    }
  }
  pending.insert(pending.begin(), parts.begin(), parts.end());
}

}  // namespace

std::optional<std::string> resolve_in_root(std::string_view path, const LinkLookup& lookup,
                                           FinalLink final_link) {
  std::deque<std::string> pending;
  push_components(pending, path);
  std::vector<std::string> resolved;
  int hops = 0;
  int components = 0;
  while (!pending.empty()) {
    if (++components > k_max_components) {
      return std::nullopt;
    }
    std::string component = std::move(pending.front());
    pending.pop_front();
    if (component == "..") {
      if (!resolved.empty()) {
        resolved.pop_back();
      }
      continue;
    }
    resolved.push_back(component);
    if (pending.empty() && final_link == FinalLink::keep) {
      break;
    }
    const auto target = lookup(join_inside(resolved));
    if (!target) {
      continue;
    }
    if (++hops > k_max_link_hops) {
      return std::nullopt;
    }
    resolved.pop_back();
    if (!target->empty() && target->front() == '/') {
      resolved.clear();
    }
    push_components(pending, *target);
  }
  return join_inside(resolved);
}

std::string normalize_absolute(std::string_view path) {
  std::vector<std::string> resolved;
  for (const auto part : util::split(path, '/')) {
    if (part == "..") {
      if (!resolved.empty()) {
        resolved.pop_back();
      }
    } else if (!part.empty() && part != ".") {
      resolved.emplace_back(part);
    }
  }
  return join_inside(resolved);
}

}  // namespace rocdoc
