// rocdoc_rulesc: the build step that validates rules/*.yaml with rocdoc's own loader and
// writes the knowledge base as C++ data, so the binary starts without parsing anything.
//   rocdoc_rulesc OUT.cpp rules/a.yaml rules/b.yaml ...
// A rule error fails the build with file:line:column.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_loader.h"

namespace {

using rocdoc::GfxOverride;
using rocdoc::GpuKind;
using rocdoc::OverrideVerdict;

/// `text` as a C++ string literal: "...".
std::string quoted_literal(const std::string& text) {
  std::string out = "\"";
  for (const unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\%03o", c);
          out += buffer;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

/// `text` as a std::string literal, "..."s: its length is known where it is compiled, not
/// counted (strlen) each time the rules are built.
std::string literal(const std::string& text) { return quoted_literal(text) + "s"; }

/// A list of strings, as a call of the generated file's strings(): an initializer list of
/// std::string would make each string twice (its elements can only be copied).
std::string literals(const std::vector<std::string>& texts) {
  if (texts.empty()) {
    return "{}";
  }
  std::string out = "strings({";
  for (const auto& text : texts) {
    out += quoted_literal(text) + "sv,";
  }
  return out + "})";
}

const char* verdict(OverrideVerdict v) {
  switch (v) {
    case OverrideVerdict::works:
      return "OverrideVerdict::works";
    case OverrideVerdict::unneeded:
      return "OverrideVerdict::unneeded";
    case OverrideVerdict::dangerous:
      return "OverrideVerdict::dangerous";
    case OverrideVerdict::none:
      return "OverrideVerdict::none";
  }
  return "OverrideVerdict::none";
}

const char* kind(GpuKind k) {
  switch (k) {
    case GpuKind::radeon:
      return "GpuKind::radeon";
    case GpuKind::instinct:
      return "GpuKind::instinct";
    case GpuKind::apu:
      return "GpuKind::apu";
  }
  return "GpuKind::radeon";
}

std::string override_value(const std::optional<GfxOverride>& o) {
  if (!o) {
    return "std::nullopt";
  }
  return "GfxOverride{.value = " + literal(o->value) + ", .verdict = " + verdict(o->verdict) +
         ", .unneeded_since_torch = " + literal(o->unneeded_since_torch) + ", .older_torch = " +
         (o->older_torch ? std::string(verdict(*o->older_torch)) : std::string("std::nullopt")) +
         ", .says = " + literal(o->says) + ", .note = " + literal(o->note) +
         ", .source = " + literal(o->source) + "}";
}

/// An enum as its underlying number: the generated code needs no name table.
template <typename Enum>
std::string enum_value(const char* type, Enum value) {
  return std::string("static_cast<") + type + ">(" + std::to_string(static_cast<int>(value)) + ")";
}

std::string compute_value(const std::optional<rocdoc::TargetCompute>& c) {
  if (!c) {
    return "std::nullopt";
  }
  std::string sizes = "{";
  for (const int size : c->wavefronts) {
    sizes += std::to_string(size) + ",";
  }
  sizes += "}";
  std::string hipblaslt = "std::nullopt";
  if (c->hipblaslt) {
    hipblaslt = "HipBlasLtSupport{.torch_since = " + literal(c->hipblaslt->torch_since) +
                ", .rocm_since = " + literal(c->hipblaslt->rocm_since) +
                ", .preferred = " + (c->hipblaslt->preferred ? "true" : "false") + "}";
  }
  const rocdoc::FlashAttention& f = c->flash_attention;
  return "TargetCompute{.wavefronts = " + sizes +
         ", .fp16 = " + enum_value("Fp16Support", c->fp16) +
         ", .bf16 = " + enum_value("Bf16Support", c->bf16) +
         ", .bf16_how = " + literal(c->bf16_how) + ", .fp8 = " + enum_value("Fp8Format", c->fp8) +
         ", .int8 = " + enum_value("Int8Support", c->int8) +
         ", .matrix = " + enum_value("MatrixCores", c->matrix) + ", .hipblaslt = " + hipblaslt +
         ", .flash_attention = FlashAttention{.sdpa = " + enum_value("SdpaSupport", f.sdpa) +
         ", .torch_since = " + literal(f.torch_since) +
         ", .ck = " + enum_value("Availability", f.ck) +
         ", .triton = " + enum_value("Availability", f.triton) + "}, .note = " + literal(c->note) +
         ", .source = " + literal(c->source) + "}";
}

/// rules/triage.yaml: only triage, rules show and explain build it.
void write_triage(std::ostream& out, const rocdoc::Knowledge& k) {
  out << "  k.triage_signatures.reserve(" << k.triage_signatures.size() << ");\n";
  for (const auto& s : k.triage_signatures) {
    out << "  k.triage_signatures.push_back(TriageSignature{.id = " << literal(s.id)
        << ", .match = " << literals(s.match) << ", .with = " << literals(s.with)
        << ", .check = " << literal(s.check) << ", .severity = " << literal(s.severity)
        << ", .message = " << literal(s.message) << ", .fixes = {";
    for (const auto& f : s.fixes) {
      out << "TriageFix{.description = " << literal(f.description)
          << ", .command = " << literal(f.command)
          << ", .needs_root = " << (f.needs_root ? "true" : "false")
          << ", .kind = " << literal(f.kind) << "},";
    }
    out << "}, .fix_order = " << literal(s.fix_order) << ", .source = " << literal(s.source)
        << "});\n";
  }
}

/// rules/code_patterns.yaml: only scan, check --scan, rules show and explain build it.
void write_code(std::ostream& out, const rocdoc::Knowledge& k) {
  out << "  k.code_patterns.reserve(" << k.code_patterns.size() << ");\n";
  for (const auto& p : k.code_patterns) {
    out << "  k.code_patterns.push_back(CodePattern{.id = " << literal(p.id)
        << ", .name = " << literal(p.name) << ", .kinds = " << literals(p.kinds)
        << ", .severity = " << enum_value("Severity", p.severity)
        << ", .match = " << literal(p.match) << ", .unless_line = " << literal(p.unless_line)
        << ", .context_lines = " << p.context_lines
        << "u, .unless_file = " << literal(p.unless_file)
        << ", .unless_mapped = " << (p.unless_mapped ? "true" : "false")
        << ", .branch = " << enum_value("CodeBranch", p.branch)
        << ", .unless_branch = " << literal(p.unless_branch) << ", .what = " << literal(p.what)
        << ", .replacement = " << literal(p.replacement) << ", .sources = " << literals(p.sources)
        << "});\n";
  }
  out << "  k.code_platform_macros = CodePlatformMacros{.rocm = "
      << literals(k.code_platform_macros.rocm)
      << ", .cuda = " << literals(k.code_platform_macros.cuda)
      << ", .sources = " << literals(k.code_platform_macros.sources) << "};\n";
  out << "  k.code_cuda_only_paths = CodeCudaOnlyPaths{.match = "
      << literals(k.code_cuda_only_paths.match)
      << ", .sources = " << literals(k.code_cuda_only_paths.sources) << "};\n";
}

/// Every rule but the triage signatures and the code patterns.
void write_machine(std::ostream& out, const rocdoc::Knowledge& k) {
  // Each list at its final size at once: no reallocation moves (or copies) entries at start-up.
  out << "  k.targets.reserve(" << k.targets.size() << ");\n"
      << "  k.pci_ids.reserve(" << k.pci_ids.size() << ");\n"
      << "  k.rocm_releases.reserve(" << k.rocm_releases.size() << ");\n"
      << "  k.installers.reserve(" << k.installers.size() << ");\n"
      << "  k.driver_versions.reserve(" << k.driver_versions.size() << ");\n"
      << "  k.torch_releases.reserve(" << k.torch_releases.size() << ");\n"
      << "  k.env_variables.reserve(" << k.env_variables.size() << ");\n"
      << "  k.wsl_releases.reserve(" << k.wsl_releases.size() << ");\n"
      << "  k.amd_wheels.reserve(" << k.amd_wheels.size() << ");\n"
      << "  k.radeon_wheels.reserve(" << k.radeon_wheels.size() << ");\n"
      << "  k.cuda_packages.reserve(" << k.cuda_packages.size() << ");\n";
  for (const auto& t : k.targets) {
    out << "  k.targets.push_back(GfxTarget{.name = " << literal(t.name) << ", .kfd = " << t.kfd
        << "u, .family = " << literal(t.family) << ", .kind = " << kind(t.kind)
        << ", .products = " << literals(t.products) << ", .processors = " << literals(t.processors)
        << ", .source = " << literal(t.source) << ", .rocm = {";
    for (const auto& [release, status] : t.rocm) {
      out << "{" << literal(release) << ", " << literal(status) << "},";
    }
    out << "}, .rocm_since = " << literal(t.rocm_since) << ", .generic = " << literal(t.generic)
        << ", .override_value = " << override_value(t.override_value) << ", .broken_firmware = {";
    for (const auto& b : t.broken_firmware) {
      out << "BrokenFirmware{.firmware = " << literal(b.firmware) << ", .versions = {";
      for (const auto v : b.versions) {
        out << v << "u,";
      }
      out << "}, .problem = " << literal(b.problem) << ", .fixes = {";
      for (const auto& f : b.fixes) {
        out << "FirmwareFix{.os = " << literals(f.os)
            << ", .description = " << literal(f.description)
            << ", .command = " << literal(f.command)
            << ", .needs_root = " << (f.needs_root ? "true" : "false") << "},";
      }
      out << "}, .source = " << literal(b.source) << "},";
    }
    out << "}, .memory_kernel = ";
    if (t.memory_kernel) {
      out << "MemoryKernel{.version = " << literal(t.memory_kernel->version)
          << ", .says = " << literal(t.memory_kernel->says)
          << ", .source = " << literal(t.memory_kernel->source) << "}";
    } else {
      out << "std::nullopt";
    }
    out << ", .compute = " << compute_value(t.compute) << "});\n";
  }
  for (const auto& p : k.pci_ids) {
    out << "  k.pci_ids.push_back(PciIdEntry{.device = " << p.device
        << ", .name = " << literal(p.name) << ", .gfx = " << literal(p.gfx)
        << ", .source = " << literal(p.source) << ", .products = {";
    for (const auto& [revision, product] : p.products) {
      out << "{" << static_cast<unsigned>(revision) << ", " << literal(product) << "},";
    }
    out << "}});\n";
  }
  for (const auto& r : k.rocm_releases) {
    out << "  k.rocm_releases.push_back(RocmRelease{.rocm = " << literal(r.rocm) << ", .os = {";
    for (const auto& os : r.os) {
      out << "OsSupport{.id = " << literal(os.id) << ", .versions = " << literals(os.versions)
          << ", .since = " << literal(os.since) << "},";
    }
    out << "}, .source = " << literal(r.source)
        << ", .library_targets = " << literals(r.library_targets) << ", .hip = " << literal(r.hip)
        << ", .without = " << literals(r.without) << "});\n";
  }
  for (const auto& i : k.installers) {
    out << "  k.installers.push_back(RocmInstaller{.os = " << literal(i.os)
        << ", .versions = " << literals(i.versions) << ", .method = "
        << (i.method == rocdoc::InstallMethod::amdgpu_install ? "InstallMethod::amdgpu_install"
                                                              : "InstallMethod::distribution")
        << ", .rocm = " << literal(i.rocm) << ", .steps = " << literals(i.steps)
        << ", .source = " << literal(i.source) << "});\n";
  }
  for (const auto& d : k.driver_versions) {
    out << "  k.driver_versions.push_back(DriverVersion{.module = " << literal(d.module)
        << ", .rocm = " << literal(d.rocm) << ", .source = " << literal(d.source)
        << ", .package = " << literal(d.package) << "});\n";
  }
  for (const auto& t : k.torch_releases) {
    out << "  k.torch_releases.push_back(TorchRelease{.torch = " << literal(t.torch)
        << ", .torchvision = " << literal(t.torchvision)
        << ", .torchaudio = " << literal(t.torchaudio)
        << ", .torchaudio_pair = " << literal(t.torchaudio_pair)
        << ", .triton_rocm = " << literal(t.triton_rocm)
        << ", .rocm_indexes = " << literals(t.rocm_indexes) << ", .gfx = " << literals(t.gfx)
        << ", .gfx_exceptions = {";
    for (const auto& [index, targets] : t.gfx_exceptions) {
      out << "{" << literal(index) << ", " << literals(targets) << "},";
    }
    out << "}, .source = " << literal(t.source) << ", .python = " << literals(t.python)
        << ", .python_exceptions = {";
    for (const auto& [index, versions] : t.python_exceptions) {
      out << "{" << literal(index) << ", " << literals(versions) << "},";
    }
    out << "}});\n";
  }
  for (const auto& v : k.env_variables) {
    out << "  k.env_variables.push_back(EnvVariable{.name = " << literal(v.name) << ", .kind = "
        << (v.kind == rocdoc::EnvVarKind::real ? "EnvVarKind::real" : "EnvVarKind::misspelling")
        << ", .real = " << literal(v.real)
        << ", .per_node_since_rocm = " << literal(v.per_node_since_rocm)
        << ", .description = " << literal(v.description) << ", .source = " << literal(v.source)
        << ", .left_on = ";
    if (v.left_on) {
      out << "LeftOn{.when = " << enum_value("LeftOnWhen", v.left_on->when)
          << ", .at_least = " << v.left_on->at_least << ", .effect = " << literal(v.left_on->effect)
          << ", .only_with_direct_peers = "
          << (v.left_on->only_with_direct_peers ? "true" : "false") << "}";
    } else {
      out << "std::nullopt";
    }
    out << ", .accepts = ";
    if (v.accepts) {
      out << "AcceptedValues{.values = " << literals(v.accepts->values)
          << ", .ignore_case = " << (v.accepts->ignore_case ? "true" : "false")
          << ", .any_number = " << (v.accepts->any_number ? "true" : "false")
          << ", .says = " << literal(v.accepts->says) << "}";
    } else {
      out << "std::nullopt";
    }
    out << ", .place = ";
    if (v.place) {
      out << "PlaceRule{.default_place = " << literal(v.place->default_place)
          << ", .per_user = " << literal(v.place->per_user)
          << ", .on_network_home = " << literal(v.place->on_network_home)
          << ", .source = " << literal(v.place->source) << "}";
    } else {
      out << "std::nullopt";
    }
    out << "});\n";
  }
  out << "  k.allocator = AllocatorConfig{.variables = " << literals(k.allocator.variables)
      << ", .unknown_key_says = " << literal(k.allocator.unknown_key_says) << ", .keys = {";
  for (const auto& key : k.allocator.keys) {
    out << "AllocatorKey{.names = " << literals(key.names)
        << ", .since_torch = " << literal(key.since_torch)
        << ", .rocm_works_since_torch = " << literal(key.rocm_works_since_torch)
        << ", .rocm_says = " << literal(key.rocm_says) << ", .source = " << literal(key.source)
        << "},";
  }
  out << "}, .source = " << literal(k.allocator.source) << "};\n";
  out << "  k.shm = ShmFloor{.container_bytes = " << k.shm.container_bytes
      << "u, .multi_gpu_bytes = " << k.shm.multi_gpu_bytes
      << "u, .suggested_bytes = " << k.shm.suggested_bytes
      << "u, .source = " << literal(k.shm.source) << "};\n";
  for (const auto& w : k.wsl_releases) {
    out << "  k.wsl_releases.push_back(WslRelease{.rocm = " << literal(w.rocm)
        << ", .windows_driver = " << literal(w.windows_driver)
        << ", .runtime_library = " << literal(w.runtime_library)
        << ", .supported = " << (w.supported ? "true" : "false")
        << ", .source = " << literal(w.source) << ", .requires_env = " << literals(w.requires_env)
        << "});\n";
  }
  for (const auto& a : k.amd_wheels) {
    out << "  k.amd_wheels.push_back(AmdWheelSet{.rocm = " << literal(a.rocm)
        << ", .index_url = " << literal(a.index_url) << ", .torch = " << literal(a.torch)
        << ", .torchvision = " << literal(a.torchvision)
        << ", .torchaudio = " << literal(a.torchaudio) << ", .devices = " << literals(a.devices)
        << ", .source = " << literal(a.source) << ", .python = " << literals(a.python) << "});\n";
  }
  for (const auto& r : k.radeon_wheels) {
    out << "  k.radeon_wheels.push_back(RadeonWheelSet{.rocm = " << literal(r.rocm)
        << ", .url = " << literal(r.url) << ", .torch = " << literal(r.torch)
        << ", .torchvision = " << literal(r.torchvision)
        << ", .torchaudio = " << literal(r.torchaudio) << ", .triton = " << literal(r.triton)
        << ", .python = " << literals(r.python) << ", .source = " << literal(r.source) << "});\n";
  }
  for (const auto& p : k.cuda_packages) {
    out << "  k.cuda_packages.push_back(CudaPackage{.name = " << literal(p.name)
        << ", .also = " << literals(p.also) << ", .what = " << literal(p.what)
        << ", .name_is_cuda = " << (p.name_is_cuda ? "true" : "false")
        << ", .untagged_is_cuda = " << (p.untagged_is_cuda ? "true" : "false")
        << ", .comes_with_cuda_torch = " << (p.comes_with_cuda_torch ? "true" : "false")
        << ", .evidence = {";
    for (const auto& e : p.evidence) {
      out << "PackageEvidenceFile{.pattern = " << literal(e.pattern)
          << ", .says = " << enum_value("PackageEvidence", e.says) << "},";
    }
    out << "}, .breaks = " << enum_value("CudaPackageBreaks", p.breaks)
        << ", .breaks_how = " << literal(p.breaks_how)
        << ", .rocm_build = " << literal(p.rocm_build) << ", .install = " << literal(p.install)
        << ", .pythons = " << literals(p.pythons)
        << ", .torch_indexes = " << literals(p.torch_indexes) << ", .source = " << literal(p.source)
        << ", .note = " << literal(p.note) << "});\n";
  }
  out << "  k.build_libraries = BuildLibraries{.cuda = " << literals(k.build_libraries.cuda)
      << ", .rocm = " << literals(k.build_libraries.rocm)
      << ", .source = " << literal(k.build_libraries.source) << "};\n";
  out << "  k.nightly_indexes = " << literals(k.nightly_indexes) << ";\n";
  for (const auto& [family, targets] : k.sdk_families) {
    out << "  k.sdk_families[" << literal(family) << "] = " << literals(targets) << ";\n";
  }
  out << "  k.revision = " << literal(k.revision) << ";\n";
}

/// `void NAME(Knowledge& k)` running `body`, whose entries (one statement a line) each become a
/// function of their own, never inlined: a compiler takes minutes over one function of a thousand
/// statements (this file: 137 s with clang and ASan, 42 s with gcc -O3), seconds over many small
/// ones. `entries` numbers them across the file.
void write_function(std::ostream& out, std::string_view name, const std::string& body,
                    int& entries) {
  std::string calls;
  out << "namespace {\n\n";
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(".push_back(") == std::string::npos) {
      calls += line + "\n";
      continue;
    }
    const std::string entry = "entry_" + std::to_string(++entries);
    out << "[[gnu::noinline]] void " << entry << "(Knowledge& k) {\n" << line << "\n}\n\n";
    calls += "  " + entry + "(k);\n";
  }
  out << "}  // namespace\n\nvoid " << name << "(Knowledge& k) {\n" << calls << "}\n\n";
}

void write(std::ostream& out, const rocdoc::Knowledge& k) {
  out << "// Generated by rocdoc_rulesc from rules/*.yaml. Do not edit.\n"
      << "#include \"rocdoc/knowledge_loader.h\"\n\nnamespace rocdoc {\n\n"
      << "namespace {\n\n"
      << "using namespace std::string_literals;\n"
      << "using namespace std::string_view_literals;\n\n"
      << "/// Each string made once, where an initializer list of std::string copies each.\n"
      << "template <std::size_t N>\n"
      << "std::vector<std::string> strings(const std::string_view (&texts)[N]) {\n"
      << "  std::vector<std::string> list;\n"
      << "  list.reserve(N);\n"
      << "  for (const std::string_view text : texts) {\n"
      << "    list.emplace_back(text);\n"
      << "  }\n"
      << "  return list;\n"
      << "}\n\n"
      << "}  // namespace\n\n";
  int entries = 0;
  const std::pair<std::string_view, void (*)(std::ostream&, const rocdoc::Knowledge&)> parts[] = {
      {"add_embedded_machine_rules", write_machine},
      {"add_embedded_triage_rules", write_triage},
      {"add_embedded_code_rules", write_code}};
  for (const auto& [name, write_part] : parts) {
    std::ostringstream body;
    write_part(body, k);
    write_function(out, name, body.str(), entries);
  }
  out << "std::string_view embedded_knowledge_revision() { return " << quoted_literal(k.revision)
      << "; }\n\n}  // namespace rocdoc\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: rocdoc_rulesc OUT.cpp RULES.yaml...\n";
    return 2;
  }
  std::vector<rocdoc::RuleText> files;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::cerr << argv[i] << ": cannot read\n";
      return 2;
    }
    std::ostringstream content;
    content << in.rdbuf();
    files.push_back({argv[i], content.str()});
  }
  try {
    const rocdoc::Knowledge knowledge = rocdoc::load_knowledge(files, "embedded");
    std::ofstream out(argv[1], std::ios::binary);
    write(out, knowledge);
    return out ? 0 : 1;
  } catch (const rocdoc::RulesError& error) {
    std::cerr << error.what() << "\n";
    return 1;
  }
}
