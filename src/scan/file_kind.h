// What kind of source a file of the scanned tree is, from its name and, where the name cannot
// tell (a YAML file: compose, a manifest, or neither), its first bytes: each pattern of the scan's
// rules applies to some kinds only (a warp-size assumption in C++, `FROM nvidia/cuda` in a
// Dockerfile, `nvidia.com/gpu` in a Kubernetes manifest).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace rocdoc {

enum class SourceKind {
  cxx,         ///< C, C++, CUDA and HIP sources and headers (.c .cc .cpp .cu .cuh .hip .h …)
  python,      ///< .py, .pyx (setup.py included)
  cmake,       ///< CMakeLists.txt, .cmake
  make,        ///< Makefile, GNUmakefile, makefile, .mk
  shell,       ///< .sh, .bash
  dockerfile,  ///< Dockerfile, Dockerfile.*, *.dockerfile, Containerfile
  compose,     ///< compose.yaml, docker-compose*.yml …
  kubernetes,  ///< a YAML document with apiVersion: and kind: (Helm templates read as text)
  pyproject,   ///< pyproject.toml
};

/// The kind of a file, from its name (the last part of its path) and its first bytes (`head`,
/// the first few KiB); nullopt for a file the scan does not read (Markdown, data, a YAML
/// file that is neither compose nor a manifest).
std::optional<SourceKind> source_kind(std::string_view name, std::string_view head);

/// A file name the scan reads: one source_kind() knows by its name, or a YAML file (whose
/// kind its content tells).
bool is_source_name(std::string_view name);

/// The name rules/code_patterns.yaml gives a kind ("cxx", "python", "dockerfile"…).
std::string_view source_kind_rule_name(SourceKind kind);
/// The kind of a rules name; nullopt for a name the rules do not use.
std::optional<SourceKind> source_kind_of_rule_name(std::string_view name);
/// Every kind, in declaration order.
std::span<const SourceKind> source_kinds();

/// "C/C++/CUDA/HIP", "Python", … for messages and the SARIF rules' descriptions.
std::string_view source_kind_name(SourceKind kind);

}  // namespace rocdoc
