#include "src/scan/file_kind.h"

#include <algorithm>
#include <array>
#include <utility>

#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::pair<std::string_view, SourceKind> k_suffixes[] = {
    {".cu", SourceKind::cxx},
    {".cuh", SourceKind::cxx},
    {".hip", SourceKind::cxx},
    {".c", SourceKind::cxx},
    {".cc", SourceKind::cxx},
    {".cpp", SourceKind::cxx},
    {".cxx", SourceKind::cxx},
    {".h", SourceKind::cxx},
    {".hh", SourceKind::cxx},
    {".hpp", SourceKind::cxx},
    {".hxx", SourceKind::cxx},
    {".inl", SourceKind::cxx},
    {".py", SourceKind::python},
    {".pyx", SourceKind::python},
    {".cmake", SourceKind::cmake},
    {".mk", SourceKind::make},
    {".sh", SourceKind::shell},
    {".bash", SourceKind::shell},
    {".dockerfile", SourceKind::dockerfile},
    {".Dockerfile", SourceKind::dockerfile}};

/// A line that starts a top-level YAML key ("apiVersion:", "services:"), outside comments.
bool has_top_level_key(std::string_view head, std::string_view key) {
  for (const auto line : util::lines(head)) {
    if (line.substr(0, key.size()) == key && line.size() > key.size() && line[key.size()] == ':') {
      return true;
    }
  }
  return false;
}

/// A key at any indentation ("  kind: Deployment" in a List, "- apiVersion: v1").
bool has_key(std::string_view head, std::string_view key) {
  for (const auto raw : util::lines(head)) {
    std::string_view line = util::trim(raw);
    if (line.substr(0, 2) == "- ") {
      line = util::trim(line.substr(2));
    }
    if (line.substr(0, key.size()) == key && line.size() > key.size() && line[key.size()] == ':') {
      return true;
    }
  }
  return false;
}

bool is_yaml(std::string_view name) { return name.ends_with(".yaml") || name.ends_with(".yml"); }

std::optional<SourceKind> yaml_kind(std::string_view name, std::string_view head) {
  const std::string lower = util::to_lower(name);
  if (lower.rfind("docker-compose", 0) == 0 || lower.rfind("compose.", 0) == 0 ||
      lower.rfind("compose-", 0) == 0 || has_top_level_key(head, "services")) {
    return SourceKind::compose;
  }
  if (has_key(head, "apiVersion") && has_key(head, "kind")) {
    return SourceKind::kubernetes;
  }
  return std::nullopt;
}

}  // namespace

std::optional<SourceKind> source_kind(std::string_view name, std::string_view head) {
  if (name == "CMakeLists.txt") {
    return SourceKind::cmake;
  }
  if (name == "Makefile" || name == "makefile" || name == "GNUmakefile") {
    return SourceKind::make;
  }
  if (name == "Dockerfile" || name == "Containerfile" || name.rfind("Dockerfile.", 0) == 0) {
    return SourceKind::dockerfile;
  }
  if (name == "pyproject.toml") {
    return SourceKind::pyproject;
  }
  if (is_yaml(name)) {
    return yaml_kind(name, head);
  }
  for (const auto& [suffix, kind] : k_suffixes) {
    if (name.ends_with(suffix)) {
      return kind;
    }
  }
  return std::nullopt;
}

bool is_source_name(std::string_view name) {
  return is_yaml(name) || source_kind(name, "").has_value();
}

namespace {

constexpr std::pair<SourceKind, std::string_view> k_rule_names[] = {
    {SourceKind::cxx, "cxx"},
    {SourceKind::python, "python"},
    {SourceKind::cmake, "cmake"},
    {SourceKind::make, "make"},
    {SourceKind::shell, "shell"},
    {SourceKind::dockerfile, "dockerfile"},
    {SourceKind::compose, "compose"},
    {SourceKind::kubernetes, "kubernetes"},
    {SourceKind::pyproject, "pyproject"}};

constexpr std::array<SourceKind, std::size(k_rule_names)> k_kinds = [] {
  std::array<SourceKind, std::size(k_rule_names)> kinds{};
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    kinds[i] = k_rule_names[i].first;
  }
  return kinds;
}();

}  // namespace

std::string_view source_kind_rule_name(SourceKind kind) {
  for (const auto& [known, name] : k_rule_names) {
    if (known == kind) {
      return name;
    }
  }
  return "";
}

std::optional<SourceKind> source_kind_of_rule_name(std::string_view name) {
  for (const auto& [kind, known] : k_rule_names) {
    if (known == name) {
      return kind;
    }
  }
  return std::nullopt;
}

std::span<const SourceKind> source_kinds() { return k_kinds; }

std::string_view source_kind_name(SourceKind kind) {
  switch (kind) {
    case SourceKind::cxx:
      return "C/C++/CUDA/HIP";
    case SourceKind::python:
      return "Python";
    case SourceKind::cmake:
      return "CMake";
    case SourceKind::make:
      return "Make";
    case SourceKind::shell:
      return "shell";
    case SourceKind::dockerfile:
      return "Dockerfile";
    case SourceKind::compose:
      return "Compose";
    case SourceKind::kubernetes:
      return "Kubernetes manifest";
    case SourceKind::pyproject:
      return "pyproject.toml";
  }
  return "";
}

}  // namespace rocdoc
