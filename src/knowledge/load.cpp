// rules/*.yaml read into Knowledge: each file parsed once, bounded, validated with file:line:column
// for what is wrong (RulesError). The lookups on the loaded Knowledge are knowledge.cpp.
// Whole on purpose: one loader; each rules file's reader shares the RuleReader and its bounds.
#include "rocdoc/knowledge.h"

#include <re2/re2.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "rocdoc/gfx_target.h"
#include "rocdoc/knowledge_loader.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// A value from a rules file, quoted for an error message: printable and short.
std::string quoted(std::string_view value) { return "\"" + util::excerpt(value) + "\""; }

/// The same without quotes, for names and versions that read well bare (gfx1031, 2.6.0).
std::string bare(std::string_view value) { return util::excerpt(value); }

std::string nesting_problem() {
  return "nesting deeper than " + std::to_string(k_max_rules_nesting) + " levels";
}

/// Finds duplicate keys (yaml-cpp keeps both pairs and its lookups return the first) and
/// nesting deeper than k_max_rules_nesting, in every mapping at every depth. Each node is
/// walked once: aliases share their anchor's node, so a billion-laughs file costs no more
/// than its own size. A node is known by its position and kind (yaml-cpp exposes no
/// identity; a collection can only share its position with a collection of another kind,
/// or with a flow mapping used as a key, whose keys nobody reads).
class StructureCheck {
 public:
  explicit StructureCheck(const std::string& file) : m_file(file) {}

  void walk(const YAML::Node& node, int depth) {
    if (!node.IsMap() && !node.IsSequence()) {
      return;
    }
    if (depth > k_max_rules_nesting) {
      fail(node.Mark(), nesting_problem());
    }
    const YAML::Mark mark = node.Mark();
    if (!m_seen.insert({mark.pos, node.IsMap()}).second) {
      return;
    }
    if (node.IsSequence()) {
      for (const auto& item : node) {
        walk(item, depth + 1);
      }
      return;
    }
    std::map<std::string, int> first_line;
    for (const auto& pair : node) {
      if (pair.first.IsScalar()) {
        const auto [it, inserted] =
            first_line.emplace(pair.first.Scalar(), pair.first.Mark().line + 1);
        if (!inserted) {
          fail(pair.first.Mark(), "duplicate key " + quoted(pair.first.Scalar()) +
                                      " (first at line " + std::to_string(it->second) + ")");
        }
      }
      walk(pair.first, depth + 1);
      walk(pair.second, depth + 1);
    }
  }

 private:
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& what) const {
    throw RulesError(m_file, mark.line + 1, mark.column + 1, what);
  }

  const std::string& m_file;
  std::set<std::pair<int, bool>> m_seen;  // position, is a mapping
};

/// Where a YAML text's second document begins, if it has one: the parser's events, counted,
/// stopping at the second document. yaml-cpp's LoadAll never returns on a stray ',' at block
/// level (each try yields one more empty document: a fuzz finding, kept in
/// tests/fuzz/regressions/rules/), so documents are counted here, never collected.
class SecondDocument : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& /*mark*/) override { ++m_documents; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                const std::string& /*value*/) override {
    node(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/,
                       YAML::anchor_t /*anchor*/, YAML::EmitterStyle::value /*style*/) override {
    node(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                  YAML::EmitterStyle::value /*style*/) override {
    node(mark);
  }
  void OnMapEnd() override {}

  int documents() const { return m_documents; }
  /// The second document's first node (its line, as YAML::Node::Mark() gave it).
  const std::optional<YAML::Mark>& start() const { return m_start; }
  /// Whether the "second document" is the parser stuck where the first began (a stray ',').
  bool stuck() const { return m_first && m_start && m_first->pos == m_start->pos; }

 private:
  void node(const YAML::Mark& mark) {
    if (m_documents == 1 && !m_first) {
      m_first = mark;
    }
    if (m_documents == 2 && !m_start) {
      m_start = mark;
    }
  }

  int m_documents = 0;
  std::optional<YAML::Mark> m_first;
  std::optional<YAML::Mark> m_start;
};

/// Parses one file and checks what every rules file must be: at most k_max_rules_file_bytes,
/// one valid YAML document, no duplicate keys, no deep nesting.
YAML::Node parse(const RuleText& file) {
  if (file.content.size() > k_max_rules_file_bytes) {
    throw RulesError(file.name, 0, 0, oversize_rules_file_problem(file.content.size()));
  }
  YAML::Node root;
  try {
    std::istringstream stream(file.content);
    YAML::Parser parser(stream);
    SecondDocument second;
    while (second.documents() < 2 && parser.HandleNextDocument(second)) {
    }
    if (second.documents() > 1) {
      const YAML::Mark mark = second.start().value_or(YAML::Mark());
      throw RulesError(file.name, mark.line + 1, mark.column + 1,
                       second.stuck() ? "YAML that cannot be read past this point (a ',' or "
                                        "another flow indicator outside [ ] or { })"
                                      : "a second YAML document; a rules file holds one");
    }
    root = YAML::Load(file.content);  // one document, as counted above
  } catch (const YAML::DeepRecursion& error) {
    throw RulesError(file.name, error.mark.line + 1, error.mark.column + 1, nesting_problem());
  } catch (const YAML::ParserException& error) {
    // yaml-cpp quotes the offending byte raw ("unknown escape character: <ESC>").
    throw RulesError(file.name, error.mark.line + 1, error.mark.column + 1,
                     util::excerpt(error.msg, 200));
  }
  StructureCheck(file.name).walk(root, 1);
  return root;
}

/// Reads typed values out of one rules file, turning every problem into a RulesError
/// that points at the offending node.
class RuleReader {
 public:
  /// Reads a parsed file; its top level must be a mapping.
  RuleReader(const std::string& file, YAML::Node root) : m_file(file), m_root(std::move(root)) {
    require_map(m_root, "the file");
  }

  const YAML::Node& root() const { return m_root; }

  /// The entries of the top-level list `key`, each checked to be a mapping.
  std::vector<YAML::Node> entries(const char* key, const std::string& what) const {
    std::vector<YAML::Node> result;
    for (const auto& entry : sequence(m_root, key)) {
      require_map(entry, what);
      result.push_back(entry);
    }
    return result;
  }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& what) const {
    const YAML::Mark mark = node.Mark();
    throw RulesError(m_file, mark.line + 1, mark.column + 1, what);
  }

  YAML::Node sequence(const YAML::Node& parent, const char* key) const {
    const YAML::Node node = parent[key];
    if (!node || !node.IsSequence()) {
      fail(node ? node : parent, std::string("\"") + key + "\" must be a list");
    }
    return node;
  }

  std::string text(const YAML::Node& parent, const char* key) const {
    const YAML::Node node = parent[key];
    if (!node) {
      fail(parent, std::string("missing \"") + key + "\"");
    }
    if (!node.IsScalar() || node.Scalar().empty()) {
      fail(node, std::string("\"") + key + "\" must be a non-empty string");
    }
    return node.Scalar();
  }

  std::uint32_t number(const YAML::Node& parent, const char* key) const {
    const auto value = util::parse_unsigned(text(parent, key));
    if (!value || *value > 0xffffffffu) {
      fail(parent[key], std::string("\"") + key + "\" must be a whole number");
    }
    return static_cast<std::uint32_t>(*value);
  }

  std::vector<std::string> texts(const YAML::Node& parent, const char* key) const {
    std::vector<std::string> result;
    const YAML::Node node = parent[key];
    if (!node) {
      return result;
    }
    if (!node.IsSequence()) {
      fail(node, std::string("\"") + key + "\" must be a list of strings");
    }
    for (const auto& item : node) {
      if (!item.IsScalar()) {
        fail(item, std::string("\"") + key + "\" must hold strings");
      }
      result.push_back(item.Scalar());
    }
    return result;
  }

  void require_map(const YAML::Node& node, const std::string& what) const {
    if (!node.IsMap()) {
      fail(node, what + " must be a mapping");
    }
  }

  /// An optional string; "" when the key is absent.
  std::string optional_text(const YAML::Node& parent, const char* key) const {
    return parent[key] ? text(parent, key) : std::string();
  }

  /// A string that must be one of `allowed`.
  std::string choice(const YAML::Node& parent, const char* key,
                     std::initializer_list<std::string_view> allowed) const {
    const std::string value = text(parent, key);
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
      std::string list;
      for (const auto option : allowed) {
        list += (list.empty() ? "" : ", ") + std::string(option);
      }
      fail(parent[key],
           "\"" + std::string(key) + "\" must be one of " + list + ", not " + quoted(value));
    }
    return value;
  }

  /// An optional true/false (or True/False); `when_absent` when the key is absent.
  bool flag(const YAML::Node& parent, const char* key, bool when_absent = false) const {
    if (!parent[key]) {
      return when_absent;
    }
    return util::to_lower(choice(parent, key, {"true", "false", "True", "False"})) == "true";
  }

  /// A list of gfx targets that must all be defined.
  std::vector<std::string> targets(const YAML::Node& parent, const char* key,
                                   const Knowledge& knowledge) const {
    std::vector<std::string> names = texts(parent, key);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (knowledge.target(names[i]) == nullptr) {
        fail(parent[key][i], "unknown gfx target " + bare(names[i]) + " (not in gfx_targets.yaml)");
      }
    }
    return names;
  }

 private:
  std::string m_file;
  YAML::Node m_root;
};

template <typename Enum>
Enum enum_choice(const RuleReader& reader, const YAML::Node& node, const char* key,
                 std::initializer_list<std::pair<std::string_view, Enum>> options) {
  const std::string value = reader.text(node, key);
  std::string list;
  for (const auto& [name, option] : options) {
    if (value == name) {
      return option;
    }
    list += (list.empty() ? "" : ", ") + std::string(name);
  }
  reader.fail(node[key],
              "\"" + std::string(key) + "\" must be one of " + list + ", not " + quoted(value));
}

/// A torch or ROCm release named in a rule: major.minor, or "unknown" (read as "").
std::string release_or_unknown(const RuleReader& reader, const YAML::Node& node, const char* key) {
  const std::string value = reader.optional_text(node, key);
  if (value.empty() || value == "unknown") {
    return "";
  }
  const auto numbers = util::version_numbers(value);
  if (!numbers || numbers->size() != 2) {
    reader.fail(node[key], "\"" + std::string(key) + "\" must be major.minor or unknown, not " +
                               quoted(value));
  }
  return value;
}

Availability availability(const RuleReader& reader, const YAML::Node& node, const char* key) {
  return enum_choice<Availability>(
      reader, node, key,
      {{"yes", Availability::yes}, {"no", Availability::no}, {"unknown", Availability::unknown}});
}

TargetCompute load_compute(const RuleReader& reader, const YAML::Node& node) {
  reader.require_map(node, "\"compute\"");
  TargetCompute compute;
  for (const auto& size : reader.texts(node, "wavefronts")) {
    if (size != "32" && size != "64") {
      reader.fail(node["wavefronts"], "wavefront sizes are 32 and 64, not " + quoted(size));
    }
    compute.wavefronts.push_back(size == "32" ? 32 : 64);
  }
  if (compute.wavefronts.empty()) {
    reader.fail(node["wavefronts"], "\"wavefronts\" must name at least one size");
  }
  compute.fp16 = enum_choice<Fp16Support>(
      reader, node, "fp16", {{"packed", Fp16Support::packed}, {"basic", Fp16Support::basic}});
  compute.bf16 = enum_choice<Bf16Support>(
      reader, node, "bf16",
      {{"hardware", Bf16Support::hardware}, {"emulated", Bf16Support::emulated}});
  compute.bf16_how = reader.text(node, "bf16_how");
  compute.fp8 = enum_choice<Fp8Format>(
      reader, node, "fp8",
      {{"none", Fp8Format::none}, {"fnuz", Fp8Format::fnuz}, {"ocp", Fp8Format::ocp}});
  compute.int8 = enum_choice<Int8Support>(
      reader, node, "int8",
      {{"matrix", Int8Support::matrix}, {"dot", Int8Support::dot}, {"none", Int8Support::none}});
  compute.matrix = enum_choice<MatrixCores>(
      reader, node, "matrix",
      {{"mfma", MatrixCores::mfma}, {"wmma", MatrixCores::wmma}, {"none", MatrixCores::none}});
  if (const YAML::Node hipblaslt = node["hipblaslt"]; hipblaslt && !hipblaslt.IsScalar()) {
    reader.require_map(hipblaslt, "\"hipblaslt\"");
    HipBlasLtSupport support;
    support.torch_since = release_or_unknown(reader, hipblaslt, "torch_since");
    support.rocm_since = release_or_unknown(reader, hipblaslt, "rocm_since");
    support.preferred =
        hipblaslt["preferred"] && reader.choice(hipblaslt, "preferred", {"yes", "no"}) == "yes";
    compute.hipblaslt = support;
  } else if (reader.text(node, "hipblaslt") != "none") {
    reader.fail(node["hipblaslt"], "\"hipblaslt\" is none or a mapping");
  }
  const YAML::Node flash = node["flash_attention"];
  if (!flash) {
    reader.fail(node, "missing \"flash_attention\"");
  }
  reader.require_map(flash, "\"flash_attention\"");
  compute.flash_attention.sdpa =
      enum_choice<SdpaSupport>(reader, flash, "sdpa",
                               {{"none", SdpaSupport::none},
                                {"experimental", SdpaSupport::experimental},
                                {"tech-preview", SdpaSupport::tech_preview},
                                {"stable", SdpaSupport::stable}});
  compute.flash_attention.torch_since = release_or_unknown(reader, flash, "torch_since");
  compute.flash_attention.ck = availability(reader, flash, "ck");
  compute.flash_attention.triton = availability(reader, flash, "triton");
  compute.note = reader.optional_text(node, "note");
  compute.source = reader.text(node, "source");
  return compute;
}

OverrideVerdict verdict_from(const std::string& name) {
  if (name == "works") {
    return OverrideVerdict::works;
  }
  if (name == "unneeded") {
    return OverrideVerdict::unneeded;
  }
  return name == "dangerous" ? OverrideVerdict::dangerous : OverrideVerdict::none;
}

GfxOverride load_override(const RuleReader& reader, const YAML::Node& node) {
  reader.require_map(node, "\"override\"");
  GfxOverride result;
  result.value = reader.optional_text(node, "value");
  result.verdict =
      verdict_from(reader.choice(node, "verdict", {"works", "unneeded", "dangerous", "none"}));
  result.unneeded_since_torch = reader.optional_text(node, "unneeded_since_torch");
  if (node["older_torch"]) {
    result.older_torch = verdict_from(
        reader.choice(node, "older_torch", {"works", "unneeded", "dangerous", "none"}));
  }
  result.says = reader.optional_text(node, "says");
  result.note = reader.optional_text(node, "note");
  result.source = reader.text(node, "source");
  if (result.verdict != OverrideVerdict::none && result.value.empty()) {
    reader.fail(node, "an override with a verdict other than none needs a \"value\"");
  }
  if (result.verdict == OverrideVerdict::unneeded && result.unneeded_since_torch.empty()) {
    reader.fail(node, "verdict unneeded needs \"unneeded_since_torch\"");
  }
  return result;
}

BrokenFirmware load_broken_firmware(const RuleReader& reader, const YAML::Node& node) {
  reader.require_map(node, "a broken_firmware entry");
  BrokenFirmware result;
  result.firmware = reader.text(node, "firmware");
  if (result.firmware.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") !=
      std::string::npos) {
    reader.fail(node["firmware"],
                "\"firmware\" is the prefix of a fw_version file (mes, smc), not " +
                    quoted(result.firmware));
  }
  const std::vector<std::string> versions = reader.texts(node, "versions");
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const std::string& text = versions[i];
    const auto value = util::parse_unsigned(text, 0);
    if (!value || text.rfind("0x", 0) != 0 || *value > 0xffffffffu) {
      reader.fail(node["versions"][i],
                  "firmware versions are hex as sysfs prints them (0x83), not " + quoted(text));
    }
    result.versions.push_back(static_cast<std::uint32_t>(*value));
  }
  result.problem = reader.text(node, "problem");
  result.source = reader.text(node, "source");
  for (const auto& fix : reader.sequence(node, "fixes")) {
    reader.require_map(fix, "a fix");
    result.fixes.push_back({fix["os"] ? reader.texts(fix, "os") : std::vector<std::string>{},
                            reader.text(fix, "description"), reader.optional_text(fix, "command"),
                            reader.optional_text(fix, "needs_root") == "true"});
  }
  return result;
}

void load_gfx_targets(const RuleReader& reader, Knowledge& knowledge) {
  std::set<std::string> seen;
  for (const auto& entry : reader.entries("targets", "a target")) {
    GfxTarget target;
    target.name = reader.text(entry, "name");
    target.kfd = reader.number(entry, "kfd");
    target.family =
        reader.choice(entry, "family",
                      {"GCN3", "GCN4", "GCN5", "CDNA1", "CDNA2", "CDNA3", "CDNA4", "CDNA5", "RDNA1",
                       "RDNA2", "RDNA3", "RDNA3.5", "RDNA4", "RDNA4m"});
    const std::string kind = reader.choice(entry, "kind", {"radeon", "instinct", "apu"});
    target.kind = kind == "instinct" ? GpuKind::instinct
                  : kind == "apu"    ? GpuKind::apu
                                     : GpuKind::radeon;
    target.products = reader.texts(entry, "products");
    if (entry["processors"]) {
      target.processors = reader.texts(entry, "processors");
    }
    target.source = reader.text(entry, "source");
    if (const YAML::Node rocm = entry["rocm"]) {
      reader.require_map(rocm, "\"rocm\"");
      for (const auto& release : rocm) {
        const std::string status = release.second.Scalar();
        if (status != "supported" && status != "deprecated" && status != "unsupported") {
          reader.fail(
              release.second,
              "ROCm support must be supported, deprecated or unsupported, not " + quoted(status));
        }
        target.rocm[release.first.Scalar()] = status;
      }
    }
    target.rocm_since = reader.optional_text(entry, "rocm_since");
    target.generic = reader.optional_text(entry, "generic");
    if (const YAML::Node override_node = entry["override"]) {
      target.override_value = load_override(reader, override_node);
    }
    if (entry["broken_firmware"]) {
      for (const auto& node : reader.sequence(entry, "broken_firmware")) {
        target.broken_firmware.push_back(load_broken_firmware(reader, node));
      }
    }
    if (const YAML::Node memory = entry["memory_kernel"]) {
      reader.require_map(memory, "\"memory_kernel\"");
      target.memory_kernel =
          MemoryKernel{reader.text(memory, "version"), reader.text(memory, "says"),
                       reader.text(memory, "source")};
      if (!util::version_numbers(target.memory_kernel->version)) {
        reader.fail(memory["version"], "memory_kernel version must be a kernel version, not " +
                                           quoted(target.memory_kernel->version));
      }
    }
    if (const YAML::Node compute = entry["compute"]) {
      target.compute = load_compute(reader, compute);
    }
    if (!seen.insert(target.name).second) {
      reader.fail(entry["name"], "target " + bare(target.name) + " is defined twice");
    }
    const auto decoded = gfx_name_from_kfd(target.kfd);
    if (!decoded || *decoded != target.name) {
      reader.fail(entry["kfd"], "kfd " + std::to_string(target.kfd) + " decodes to " +
                                    decoded.value_or("nothing") + ", not " + bare(target.name));
    }
    knowledge.targets.push_back(std::move(target));
  }
}

/// `products: {"c1": "Radeon RX 6700 XT", …}`: one product per PCI revision (two hex digits).
std::vector<std::pair<std::uint8_t, std::string>> products(const RuleReader& reader,
                                                           const YAML::Node& node) {
  reader.require_map(node, "\"products\"");
  std::vector<std::pair<std::uint8_t, std::string>> result;
  for (const auto& item : node) {
    const std::string revision = item.first.IsScalar() ? item.first.Scalar() : std::string();
    const auto value = util::parse_unsigned(revision, 16);
    if (revision.size() != 2 || !value) {
      reader.fail(item.first,
                  "a products key must be a PCI revision of two hex digits such as "
                  "\"c1\", not " +
                      quoted(revision));
    }
    if (!item.second.IsScalar() || item.second.Scalar().empty()) {
      reader.fail(item.second, "a product must be a non-empty string");
    }
    result.emplace_back(static_cast<std::uint8_t>(*value), item.second.Scalar());
  }
  return result;
}

void load_pci_ids(const RuleReader& reader, Knowledge& knowledge) {
  for (const auto& entry : reader.entries("devices", "a device")) {
    const std::string id = reader.text(entry, "id");
    const auto device = util::parse_unsigned(id, 16);
    if (id.size() != 4 || !device) {
      reader.fail(entry["id"],
                  "\"id\" must be four hex digits such as \"74a1\", not " + quoted(id));
    }
    if (entry["kind"] && reader.text(entry, "kind") == "bridge") {
      continue;  // switch ports: documented, not GPUs
    }
    PciIdEntry pci;
    pci.device = static_cast<std::uint16_t>(*device);
    pci.name = reader.text(entry, "name");
    pci.gfx = reader.text(entry, "gfx");
    pci.source = reader.text(entry, "source");
    if (entry["products"]) {
      pci.products = products(reader, entry["products"]);
      pci.source += " ; " + reader.text(reader.root(), "products_source");
    }
    if (knowledge.target(pci.gfx) == nullptr) {
      reader.fail(entry["gfx"],
                  "unknown gfx target " + bare(pci.gfx) + " (not in gfx_targets.yaml)");
    }
    if (knowledge.amd_pci_id(pci.device) != nullptr) {
      reader.fail(entry["id"], "PCI id " + bare(id) + " is listed twice");
    }
    knowledge.pci_ids.push_back(std::move(pci));
  }
}

/// "2.9.1" < "2.10.0", numerically per component.
bool version_before(const std::string& a, const std::string& b) {
  return util::version_numbers(a).value_or(std::vector<int>{}) <
         util::version_numbers(b).value_or(std::vector<int>{});
}

bool is_major_minor(const std::string& release) {
  const auto parts = util::split(release, '.');
  return parts.size() == 2 && util::parse_unsigned(parts[0]) && util::parse_unsigned(parts[1]);
}

/// rocm_releases.yaml `installers`: how ROCm gets onto each distribution release.
void load_installers(const RuleReader& reader, Knowledge& knowledge) {
  if (!reader.root()["installers"]) {
    return;
  }
  for (const auto& entry : reader.entries("installers", "an installer")) {
    RocmInstaller installer;
    installer.os = reader.text(entry, "os");
    if (entry["versions"]) {
      installer.versions = reader.texts(entry, "versions");
    }
    installer.method =
        reader.choice(entry, "method", {"amdgpu-install", "distribution"}) == "amdgpu-install"
            ? InstallMethod::amdgpu_install
            : InstallMethod::distribution;
    installer.rocm = reader.optional_text(entry, "rocm");
    installer.steps = reader.texts(entry, "steps");
    installer.source = reader.text(entry, "source");
    if (installer.steps.empty()) {
      reader.fail(entry, "an installer needs at least one of \"steps\"");
    }
    for (std::size_t i = 0; i < installer.steps.size(); ++i) {
      if (installer.steps[i].find('\n') != std::string::npos) {
        reader.fail(entry["steps"][i], "a step is one shell line");
      }
    }
    knowledge.installers.push_back(std::move(installer));
  }
}

void load_rocm_releases(const RuleReader& reader, Knowledge& knowledge) {
  for (const auto& entry : reader.entries("releases", "a release")) {
    RocmRelease release;
    release.rocm = reader.text(entry, "rocm");
    release.source = reader.text(entry, "source");
    if (!is_major_minor(release.rocm)) {
      reader.fail(entry["rocm"],
                  "\"rocm\" must be major.minor such as \"6.3\", not " + quoted(release.rocm));
    }
    for (const auto& os : reader.sequence(entry, "os")) {
      reader.require_map(os, "an os entry");
      OsSupport support{reader.text(os, "id"), reader.texts(os, "versions"),
                        reader.optional_text(os, "since")};
      if (!support.since.empty() &&
          (support.since.rfind(release.rocm + ".", 0) != 0 ||
           support.since.find_first_not_of("0123456789.") != std::string::npos)) {
        reader.fail(os["since"], "\"since\" is a point release of ROCm " + bare(release.rocm) +
                                     " (" + bare(release.rocm) + ".2), not " +
                                     quoted(support.since));
      }
      release.os.push_back(std::move(support));
    }
    if (entry["library_targets"]) {
      release.library_targets = reader.targets(entry, "library_targets", knowledge);
      if (reader.optional_text(entry, "library_targets_source").empty()) {
        reader.fail(entry["library_targets"],
                    "\"library_targets\" needs \"library_targets_source\" (where they were read)");
      }
    }
    if (entry["hip"]) {
      release.hip = reader.text(entry, "hip");
      if (!is_major_minor(release.hip) || release.hip == release.rocm) {
        reader.fail(entry["hip"],
                    "\"hip\" is the HIP major.minor where it differs from the "
                    "ROCm number (\"7.15\" for ROCm 10.0), not " +
                        quoted(release.hip));
      }
      if (reader.optional_text(entry, "hip_source").empty()) {
        reader.fail(entry["hip"], "\"hip\" needs \"hip_source\" (where the number was read)");
      }
    }
    if (entry["without"]) {
      release.without = reader.texts(entry, "without");
      for (const auto& component : release.without) {
        if (component != "rocm-smi") {
          reader.fail(entry["without"],
                      "\"without\" names components rocdoc loads: rocm-smi, "
                      "not " +
                          quoted(component));
        }
      }
      if (reader.optional_text(entry, "without_source").empty()) {
        reader.fail(entry["without"], "\"without\" needs \"without_source\"");
      }
    }
    knowledge.rocm_releases.push_back(std::move(release));
  }
  load_installers(reader, knowledge);
  if (const YAML::Node sdk = reader.root()["sdk_families"]) {
    reader.require_map(sdk, "\"sdk_families\"");
    reader.text(sdk, "source");
    reader.optional_text(sdk, "note");
    const YAML::Node families = sdk["families"];
    reader.require_map(families, "\"families\" (family: [targets])");
    for (const auto& family : families) {
      const std::string name = family.first.Scalar();
      knowledge.sdk_families[util::to_lower(name)] =
          reader.targets(families, name.c_str(), knowledge);
    }
  }
  if (!reader.root()["driver_versions"]) {
    return;
  }
  for (const auto& entry : reader.entries("driver_versions", "a driver version")) {
    DriverVersion version{reader.text(entry, "module"), reader.text(entry, "rocm"),
                          reader.text(entry, "source"), reader.optional_text(entry, "package")};
    if (!version.package.empty() && !is_major_minor(version.package)) {
      reader.fail(entry["package"],
                  "\"package\" is the AMD GPU Driver release, major.minor such "
                  "as \"31.40\", not " +
                      quoted(version.package));
    }
    if (!knowledge.rocm_release_index(version.rocm)) {
      reader.fail(entry["rocm"],
                  "unknown ROCm release " + bare(version.rocm) + " (not in releases)");
    }
    knowledge.driver_versions.push_back(std::move(version));
  }
}

/// A list of CPython versions, each "3.N", none twice, at least one.
std::vector<std::string> python_versions(const RuleReader& reader, const YAML::Node& entry,
                                         const char* key) {
  if (!entry[key]) {
    reader.fail(entry, std::string("missing \"") + key +
                           "\" (the CPython versions it has wheels for, such as [\"3.12\"])");
  }
  std::vector<std::string> versions = reader.texts(entry, key);
  if (versions.empty()) {
    reader.fail(entry, std::string("\"") + key + "\" lists at least one CPython version");
  }
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const std::string& version = versions[i];
    if (version.rfind("3.", 0) != 0 || !util::parse_unsigned(version.substr(2)) ||
        std::count(versions.begin(), versions.end(), version) > 1) {
      reader.fail(entry[key][i],
                  "a CPython version is written 3.N, once each, not " + quoted(version));
    }
  }
  return versions;
}

/// The `index` of a gfx_exceptions or python_exceptions entry: one of the release's indexes.
std::string exception_index(const RuleReader& reader, const YAML::Node& exception,
                            const TorchRelease& release) {
  const std::string index = reader.text(exception, "index");
  if (std::find(release.rocm_indexes.begin(), release.rocm_indexes.end(), index) ==
      release.rocm_indexes.end()) {
    reader.fail(exception["index"],
                "index " + bare(index) + " is not among this release's rocm_indexes");
  }
  return index;
}

void load_torch_extras(const RuleReader& reader, Knowledge& knowledge) {
  if (reader.root()["nightly_indexes"]) {
    knowledge.nightly_indexes = reader.texts(reader.root(), "nightly_indexes");
  }
  if (!reader.root()["amd_wheels"]) {
    return;
  }
  for (const auto& entry : reader.entries("amd_wheels", "an AMD wheel set")) {
    AmdWheelSet set{reader.text(entry, "rocm"),       reader.text(entry, "index_url"),
                    reader.text(entry, "torch"),      reader.text(entry, "torchvision"),
                    reader.text(entry, "torchaudio"), reader.targets(entry, "devices", knowledge),
                    reader.text(entry, "source"),     {}};
    if (entry["python"]) {
      set.python = python_versions(reader, entry, "python");
    }
    if (set.index_url.rfind("https://", 0) != 0) {
      reader.fail(entry["index_url"], "\"index_url\" must be an https:// URL");
    }
    for (const std::string* version : {&set.torch, &set.torchvision, &set.torchaudio}) {
      if (version->find('+') == std::string::npos) {
        reader.fail(entry, "AMD wheel versions carry their local tag (2.12.0+rocm7.14.0), not " +
                               quoted(*version));
      }
    }
    knowledge.amd_wheels.push_back(std::move(set));
  }
}

void load_radeon_wheels(const RuleReader& reader, Knowledge& knowledge) {
  if (!reader.root()["radeon_wheels"]) {
    return;
  }
  for (const auto& entry : reader.entries("radeon_wheels", "a repo.radeon.com wheel set")) {
    RadeonWheelSet set{reader.text(entry, "rocm"),
                       reader.text(entry, "url"),
                       reader.text(entry, "torch"),
                       reader.text(entry, "torchvision"),
                       reader.text(entry, "torchaudio"),
                       reader.optional_text(entry, "triton"),
                       python_versions(reader, entry, "python"),
                       reader.text(entry, "source")};
    const std::string directory =
        "https://repo.radeon.com/rocm/manylinux/rocm-rel-" + set.rocm + "/";
    if (set.url != directory) {
      reader.fail(entry["url"],
                  "\"url\" must be AMD's directory of that release, " + quoted(directory));
    }
    for (const std::string* version :
         {&set.torch, &set.torchvision, &set.torchaudio, &set.triton}) {
      if (!version->empty() && version->find("+rocm" + set.rocm) == std::string::npos) {
        reader.fail(entry, "the wheels of rocm-rel-" + set.rocm + " carry +rocm" + set.rocm +
                               " in their versions, not " + quoted(*version));
      }
    }
    knowledge.radeon_wheels.push_back(std::move(set));
  }
}

void load_torch(const RuleReader& reader, Knowledge& knowledge) {
  for (const auto& entry : reader.entries("releases", "a torch release")) {
    TorchRelease release;
    release.torch = reader.text(entry, "torch");
    release.torchvision = reader.text(entry, "torchvision");
    release.torchaudio = reader.optional_text(entry, "torchaudio");
    release.torchaudio_pair = reader.optional_text(entry, "torchaudio_pair");
    release.triton_rocm = reader.optional_text(entry, "triton_rocm");
    release.rocm_indexes = reader.texts(entry, "rocm_indexes");
    release.gfx = reader.targets(entry, "gfx", knowledge);
    release.source = reader.text(entry, "source");
    release.python = python_versions(reader, entry, "python");
    if (release.torchaudio.empty() && release.torchaudio_pair.empty()) {
      reader.fail(entry, "a torch release needs \"torchaudio\" or \"torchaudio_pair\"");
    }
    if (release.rocm_indexes.empty()) {
      reader.fail(entry, "a torch release needs at least one \"rocm_indexes\" entry");
    }
    for (std::size_t i = 0; i < release.rocm_indexes.size(); ++i) {
      if (release.rocm_indexes[i].rfind("rocm", 0) != 0) {
        reader.fail(entry["rocm_indexes"][i],
                    "an index is named rocmX.Y[.Z], not " + quoted(release.rocm_indexes[i]));
      }
    }
    if (const YAML::Node exceptions = entry["gfx_exceptions"]) {
      for (const auto& exception : exceptions) {
        release.gfx_exceptions[exception_index(reader, exception, release)] =
            reader.targets(exception, "gfx", knowledge);
      }
    }
    if (const YAML::Node exceptions = entry["python_exceptions"]) {
      for (const auto& exception : exceptions) {
        release.python_exceptions[exception_index(reader, exception, release)] =
            python_versions(reader, exception, "python");
      }
    }
    if (knowledge.torch_release(release.torch) != nullptr) {
      reader.fail(entry["torch"], "torch " + bare(release.torch) + " is listed twice");
    }
    if (!knowledge.torch_releases.empty() &&
        !version_before(knowledge.torch_releases.back().torch, release.torch)) {
      reader.fail(entry["torch"],
                  "torch releases must be listed oldest first: " + bare(release.torch) +
                      " comes after " + bare(knowledge.torch_releases.back().torch));
    }
    knowledge.torch_releases.push_back(std::move(release));
  }
  load_torch_extras(reader, knowledge);
  load_radeon_wheels(reader, knowledge);
}

/// A variable's `place`: a default under the home ("~/…"), a per-user place that is one shell
/// word a fix can export ("$HOME/…" or "/…", quoted by the check), and where to go on a
/// networked home ("/tmp/…").
PlaceRule place_rule(const RuleReader& reader, const YAML::Node& place) {
  reader.require_map(place, "\"place\"");
  PlaceRule rule;
  rule.default_place = reader.optional_text(place, "default");
  rule.per_user = reader.text(place, "per_user");
  rule.on_network_home = reader.optional_text(place, "on_network_home");
  rule.source = reader.text(place, "source");
  if (!rule.default_place.empty() && rule.default_place.rfind("~/", 0) != 0) {
    reader.fail(place["default"], "\"default\" is a place under the home, written ~/…, not " +
                                      quoted(rule.default_place));
  }
  const auto safe = [](const std::string& text) {
    return text.find_first_of("\"'`\\ ;&|<>()\n") == std::string::npos;
  };
  if ((rule.per_user.rfind("$HOME/", 0) != 0 && rule.per_user.rfind('/', 0) != 0) ||
      !safe(rule.per_user)) {
    reader.fail(place["per_user"],
                "\"per_user\" is $HOME/… or an absolute path without quotes, "
                "spaces or shell operators, not " +
                    quoted(rule.per_user));
  }
  if (!rule.on_network_home.empty() &&
      (rule.on_network_home.rfind('/', 0) != 0 || !safe(rule.on_network_home))) {
    reader.fail(place["on_network_home"],
                "\"on_network_home\" is an absolute path without quotes, spaces or shell "
                "operators, not " +
                    quoted(rule.on_network_home));
  }
  return rule;
}

void load_env_vars(const RuleReader& reader, Knowledge& knowledge) {
  for (const auto& entry : reader.entries("variables", "a variable")) {
    EnvVariable variable;
    variable.name = reader.text(entry, "name");
    variable.kind = reader.choice(entry, "kind", {"real", "misspelling"}) == "real"
                        ? EnvVarKind::real
                        : EnvVarKind::misspelling;
    variable.real = reader.optional_text(entry, "real");
    variable.per_node_since_rocm = reader.optional_text(entry, "per_node_since_rocm");
    if (!variable.per_node_since_rocm.empty() && !is_major_minor(variable.per_node_since_rocm)) {
      reader.fail(entry["per_node_since_rocm"], "\"per_node_since_rocm\" must be major.minor");
    }
    variable.description = reader.optional_text(entry, "description");
    variable.source = reader.text(entry, "source");
    if (variable.kind == EnvVarKind::misspelling && variable.real.empty()) {
      reader.fail(entry, "a misspelling needs \"real\": the name it stands for");
    }
    if (const YAML::Node left_on = entry["left_on"]) {
      reader.require_map(left_on, "\"left_on\"");
      LeftOn rule;
      rule.when = enum_choice<LeftOnWhen>(reader, left_on, "when",
                                          {{"set", LeftOnWhen::set},
                                           {"nonzero", LeftOnWhen::nonzero},
                                           {"at_least", LeftOnWhen::at_least},
                                           {"off", LeftOnWhen::off},
                                           {"one", LeftOnWhen::one}});
      if (rule.when == LeftOnWhen::at_least) {
        rule.at_least = static_cast<int>(reader.number(left_on, "at_least"));
      }
      rule.effect = reader.text(left_on, "effect");
      rule.only_with_direct_peers =
          left_on["peers"] && reader.choice(left_on, "peers", {"direct"}) == "direct";
      variable.left_on = std::move(rule);
    }
    if (const YAML::Node accepts = entry["accepts"]) {
      reader.require_map(accepts, "\"accepts\"");
      AcceptedValues rule;
      rule.values = reader.texts(accepts, "values");
      if (rule.values.empty()) {
        reader.fail(accepts, "\"accepts\" needs at least one value");
      }
      rule.ignore_case =
          accepts["case"] && reader.choice(accepts, "case", {"exact", "ignored"}) == "ignored";
      rule.any_number = accepts["numbers"] && reader.choice(accepts, "numbers", {"any"}) == "any";
      rule.says = reader.text(accepts, "says");
      variable.accepts = std::move(rule);
    }
    if (const YAML::Node place = entry["place"]) {
      variable.place = place_rule(reader, place);
    }
    knowledge.env_variables.push_back(std::move(variable));
  }
  for (const auto& entry : reader.entries("variables", "a variable")) {
    const std::string real = reader.optional_text(entry, "real");
    if (!real.empty() && knowledge.env_variable(real) == nullptr) {
      reader.fail(entry["real"], bare(reader.text(entry, "name")) + " names " + bare(real) +
                                     ", which is not listed");
    }
  }
}

/// A size in the rules: whole MiB ("1024") → bytes.
std::uint64_t mebibytes(const RuleReader& reader, const YAML::Node& node, const char* key) {
  return std::uint64_t{reader.number(node, key)} << 20;
}

void load_tuning(const RuleReader& reader, Knowledge& knowledge) {
  const YAML::Node shm = reader.root()["shm"];
  if (!shm) {
    reader.fail(reader.root(), "missing \"shm\"");
  }
  reader.require_map(shm, "\"shm\"");
  knowledge.shm.container_bytes = mebibytes(reader, shm, "container_mib");
  knowledge.shm.multi_gpu_bytes = mebibytes(reader, shm, "multi_gpu_mib");
  knowledge.shm.suggested_bytes = mebibytes(reader, shm, "suggested_mib");
  knowledge.shm.source = reader.text(shm, "source");
  const YAML::Node allocator = reader.root()["allocator"];
  if (!allocator) {
    reader.fail(reader.root(), "missing \"allocator\"");
  }
  reader.require_map(allocator, "\"allocator\"");
  AllocatorConfig& config = knowledge.allocator;
  config.variables = reader.texts(allocator, "variables");
  config.unknown_key_says = reader.text(allocator, "unknown_key_says");
  config.source = reader.text(allocator, "source");
  for (const auto& entry : reader.sequence(allocator, "keys")) {
    reader.require_map(entry, "a key");
    AllocatorKey key;
    key.names = reader.texts(entry, "names");
    if (key.names.empty()) {
      reader.fail(entry, "a key needs \"names\"");
    }
    key.since_torch = release_or_unknown(reader, entry, "since_torch");
    key.rocm_works_since_torch = release_or_unknown(reader, entry, "rocm_works_since_torch");
    key.rocm_says = reader.optional_text(entry, "rocm_says");
    if (!key.rocm_works_since_torch.empty() && key.rocm_says.empty()) {
      reader.fail(entry, "\"rocm_works_since_torch\" needs \"rocm_says\"");
    }
    key.source = reader.text(entry, "source");
    config.keys.push_back(std::move(key));
  }
  for (const auto& name : config.variables) {
    if (knowledge.env_variable(name) == nullptr) {
      reader.fail(allocator["variables"],
                  bare(name) + " is not in env_vars.yaml (the privacy allow-list)");
    }
  }
}

void load_revision(const RuleReader& reader, Knowledge& knowledge) {
  knowledge.revision = reader.text(reader.root(), "revision");
  const std::string& r = knowledge.revision;
  const bool date =
      r.size() == 10 && r[4] == '-' && r[7] == '-' && std::all_of(r.begin(), r.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '-';
      });
  if (!date) {
    reader.fail(reader.root()["revision"], "\"revision\" is a date, YYYY-MM-DD, not " + quoted(r));
  }
}

void load_wsl(const RuleReader& reader, Knowledge& knowledge) {
  for (const auto& entry : reader.entries("releases", "a WSL release")) {
    WslRelease release;
    release.rocm = reader.text(entry, "rocm");
    release.windows_driver = reader.optional_text(entry, "windows_driver");
    release.runtime_library = reader.optional_text(entry, "runtime_library");
    release.supported = reader.flag(entry, "supported", true);
    release.source = reader.text(entry, "source");
    reader.targets(entry, "gpus", knowledge);
    if (entry["requires_env"]) {
      release.requires_env = reader.texts(entry, "requires_env");
    }
    for (std::size_t i = 0; i < release.requires_env.size(); ++i) {
      const auto& requirement = release.requires_env[i];
      const auto equals = requirement.find('=');
      if (equals == std::string::npos || equals == 0 ||
          knowledge.env_variable(requirement.substr(0, equals)) == nullptr) {
        reader.fail(entry["requires_env"][i],
                    "requires_env entries are NAME=VALUE of a variable in env_vars.yaml, not " +
                        quoted(requirement));
      }
    }
    knowledge.wsl_releases.push_back(std::move(release));
  }
}

/// A distribution name as pip normalises it (PEP 503: lower case, runs of -_. as one -), in
/// which `*` stands for any run of characters ("nvidia-*-cu12"); it starts with a letter or digit.
bool is_distribution_name(const std::string& name) {
  return !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789") != 0 &&
         name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-*") == std::string::npos &&
         name.find("--") == std::string::npos && name.find("**") == std::string::npos;
}

/// An evidence file: a relative path under site-packages, `*` only in its last part.
bool is_evidence_pattern(const std::string& pattern) {
  const auto slash = pattern.rfind('/');
  return !pattern.empty() && pattern.front() != '/' && pattern.find("..") == std::string::npos &&
         (slash == std::string::npos || pattern.substr(0, slash).find('*') == std::string::npos) &&
         pattern.back() != '/';
}

/// The evidence files of a package row (`evidence`).
std::vector<PackageEvidenceFile> evidence_files(const RuleReader& reader, const YAML::Node& entry) {
  std::vector<PackageEvidenceFile> files;
  if (!entry["evidence"]) {
    return files;
  }
  for (const auto& file : reader.sequence(entry, "evidence")) {
    reader.require_map(file, "an evidence file");
    PackageEvidenceFile evidence;
    evidence.pattern = reader.text(file, "file");
    if (!is_evidence_pattern(evidence.pattern)) {
      reader.fail(file["file"],
                  "\"file\" is a relative path under site-packages with * "
                  "only in its last part, not " +
                      quoted(evidence.pattern));
    }
    const std::string says = reader.choice(file, "says", {"cuda", "rocm", "linked"});
    evidence.says = says == "cuda"   ? PackageEvidence::cuda
                    : says == "rocm" ? PackageEvidence::rocm
                                     : PackageEvidence::linked;
    files.push_back(std::move(evidence));
  }
  return files;
}

/// A name of a package row (`name`, or one of `also`): normalised, and in no other row.
void check_package_name(const RuleReader& reader, const YAML::Node& node, const std::string& name,
                        std::set<std::string>& seen) {
  if (!is_distribution_name(name)) {
    reader.fail(node,
                "a package name is a normalised distribution name (lower case, digits, single "
                "dashes; * for any run of characters), not " +
                    quoted(name));
  }
  if (!seen.insert(name).second) {
    reader.fail(node, "package " + bare(name) + " is listed twice");
  }
}

/// What the ROCm build is and how it is installed (`rocm_build`, `install`, `pythons`,
/// `torch_indexes`).
void load_rocm_build(const RuleReader& reader, const YAML::Node& entry, CudaPackage& package) {
  package.rocm_build = reader.optional_text(entry, "rocm_build");
  package.install = reader.optional_text(entry, "install");
  if (!package.install.empty() && (package.rocm_build.empty() ||
                                   package.install.find("{python} -m pip ") == std::string::npos)) {
    reader.fail(entry["install"],
                "\"install\" is a line that runs \"{python} -m pip \", "
                "beside a \"rocm_build\"");
  }
  package.pythons = reader.texts(entry, "pythons");
  package.torch_indexes = reader.texts(entry, "torch_indexes");
  if (!package.torch_indexes.empty() &&
      package.install.find("{torch_index}") == std::string::npos) {
    reader.fail(entry["torch_indexes"], "\"torch_indexes\" needs {torch_index} in \"install\"");
  }
}

CudaPackage cuda_package(const RuleReader& reader, const YAML::Node& entry,
                         std::set<std::string>& seen) {
  CudaPackage package;
  package.name = reader.text(entry, "name");
  check_package_name(reader, entry["name"], package.name, seen);
  package.also = reader.texts(entry, "also");
  for (std::size_t i = 0; i < package.also.size(); ++i) {
    check_package_name(reader, entry["also"][i], package.also[i], seen);
  }
  package.what = reader.text(entry, "what");
  package.name_is_cuda = reader.flag(entry, "name_is_cuda");
  package.untagged_is_cuda = reader.flag(entry, "untagged_is_cuda");
  package.comes_with_cuda_torch = reader.flag(entry, "comes_with_cuda_torch");
  package.evidence = evidence_files(reader, entry);
  if (!package.name_is_cuda && !package.untagged_is_cuda && package.evidence.empty()) {
    reader.fail(entry,
                "a package needs \"evidence\", \"name_is_cuda\" or "
                "\"untagged_is_cuda\": else nothing tells its CUDA build");
  }
  const std::string breaks =
      reader.choice(entry, "breaks", {"cuda_torch", "fails", "cpu_fallback", "leftover"});
  package.breaks = breaks == "cuda_torch"     ? CudaPackageBreaks::cuda_torch
                   : breaks == "fails"        ? CudaPackageBreaks::fails
                   : breaks == "cpu_fallback" ? CudaPackageBreaks::cpu_fallback
                                              : CudaPackageBreaks::leftover;
  package.breaks_how = reader.text(entry, "breaks_how");
  load_rocm_build(reader, entry, package);
  package.source = reader.text(entry, "source");
  package.note = reader.optional_text(entry, "note");
  return package;
}

void load_cuda_packages(const RuleReader& reader, Knowledge& knowledge) {
  const YAML::Node& libraries = reader.root()["libraries"];
  reader.require_map(libraries, "\"libraries\"");
  knowledge.build_libraries.cuda = reader.texts(libraries, "cuda");
  knowledge.build_libraries.rocm = reader.texts(libraries, "rocm");
  knowledge.build_libraries.source = reader.text(libraries, "source");
  if (knowledge.build_libraries.cuda.empty() || knowledge.build_libraries.rocm.empty()) {
    reader.fail(libraries, "\"libraries\" needs \"cuda\" and \"rocm\" names");
  }
  std::set<std::string> seen;
  for (const auto& entry : reader.entries("packages", "a package")) {
    knowledge.cuda_packages.push_back(cuda_package(reader, entry, seen));
  }
}

bool is_check_id_form(const std::string& id);

/// The citations of `source:` (one key or a list of keys of the file's `sources:` map).
std::vector<std::string> cited_sources(const RuleReader& reader, const YAML::Node& entry,
                                       const std::map<std::string, std::string>& sources) {
  const YAML::Node node = entry["source"];
  std::vector<std::string> keys;
  if (node && node.IsScalar()) {
    keys.push_back(reader.text(entry, "source"));
  } else {
    keys = reader.texts(entry, "source");
  }
  if (keys.empty()) {
    reader.fail(node ? node : entry, "\"source\" must name one or more keys of \"sources\"");
  }
  std::vector<std::string> cited;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto it = sources.find(keys[i]);
    if (it == sources.end()) {
      reader.fail(node.IsSequence() ? node[i] : node,
                  "unknown source " + quoted(keys[i]) + " (not in \"sources\")");
    }
    cited.push_back(it->second);
  }
  return cited;
}

/// An RE2 expression of a code pattern: it compiles, in multi-line mode and never across a
/// line end as the scan runs it, and it needs at least one character to match.
void check_expression(const RuleReader& reader, const YAML::Node& node, const char* key,
                      const std::string& expression) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_never_nl(true);
  const RE2 compiled("(?m)" + expression, options);
  if (!compiled.ok()) {
    reader.fail(node, "\"" + std::string(key) +
                          "\" is not an RE2 expression: " + util::excerpt(compiled.error(), 200));
  }
  if (RE2::PartialMatch("", compiled) || RE2::PartialMatch("\n", compiled)) {
    reader.fail(node, "\"" + std::string(key) +
                          "\" matches an empty line: a pattern needs "
                          "at least one character to match");
  }
}

std::string code_expression(const RuleReader& reader, const YAML::Node& entry, const char* key,
                            bool required) {
  const std::string expression =
      required ? reader.text(entry, key) : reader.optional_text(entry, key);
  if (!expression.empty()) {
    check_expression(reader, entry[key], key, expression);
  }
  return expression;
}

constexpr std::string_view k_code_kinds[] = {
    "cxx", "python", "cmake", "make", "shell", "dockerfile", "compose", "kubernetes", "pyproject"};

std::vector<std::string> code_kinds(const RuleReader& reader, const YAML::Node& entry) {
  std::vector<std::string> kinds = reader.texts(entry, "kinds");
  if (kinds.empty()) {
    reader.fail(entry["kinds"] ? entry["kinds"] : entry, "\"kinds\" must name file kinds");
  }
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (std::find(std::begin(k_code_kinds), std::end(k_code_kinds), kinds[i]) ==
        std::end(k_code_kinds)) {
      std::string list;
      for (const auto kind : k_code_kinds) {
        list += (list.empty() ? "" : ", ") + std::string(kind);
      }
      reader.fail(entry["kinds"][i],
                  "unknown file kind " + quoted(kinds[i]) + " (one of " + list + ")");
    }
  }
  return kinds;
}

/// `branch` and `unless_branch`: preprocessor branches exist in C/C++ only.
void load_code_branch(const RuleReader& reader, const YAML::Node& entry, CodePattern& pattern) {
  const bool cxx_only = pattern.kinds == std::vector<std::string>{"cxx"};
  pattern.branch = cxx_only ? CodeBranch::code : CodeBranch::anywhere;
  if (entry["branch"]) {
    if (!cxx_only) {
      reader.fail(entry["branch"], "\"branch\" needs kinds: [cxx] (only C/C++ has #if branches)");
    }
    pattern.branch = enum_choice<CodeBranch>(reader, entry, "branch",
                                             {{"code", CodeBranch::code},
                                              {"rocm", CodeBranch::rocm},
                                              {"anywhere", CodeBranch::anywhere}});
  }
  pattern.unless_branch = code_expression(reader, entry, "unless_branch", false);
  if (!pattern.unless_branch.empty() && pattern.branch == CodeBranch::anywhere) {
    reader.fail(entry["unless_branch"],
                "\"unless_branch\" needs kinds: [cxx] and a branch (code or rocm)");
  }
}

CodePattern code_pattern(const RuleReader& reader, const YAML::Node& entry,
                         const std::map<std::string, std::string>& sources,
                         std::set<std::string>& names) {
  CodePattern pattern;
  pattern.id = reader.text(entry, "id");
  if (!is_check_id_form(pattern.id) || !pattern.id.starts_with("code.")) {
    reader.fail(entry["id"], "\"id\" must be a code.* check id, not " + quoted(pattern.id));
  }
  pattern.name = reader.text(entry, "name");
  if (pattern.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") !=
      std::string::npos) {
    reader.fail(entry["name"],
                "\"name\" is lower-case letters, digits and '-', not " + quoted(pattern.name));
  }
  if (!names.insert(pattern.name).second) {
    reader.fail(entry["name"], "pattern " + quoted(pattern.name) + " is listed twice");
  }
  pattern.kinds = code_kinds(reader, entry);
  pattern.severity = enum_choice<Severity>(
      reader, entry, "severity",
      {{"error", Severity::error}, {"warning", Severity::warning}, {"info", Severity::info}});
  pattern.match = code_expression(reader, entry, "match", true);
  pattern.unless_line = code_expression(reader, entry, "unless_line", false);
  if (entry["context_lines"]) {
    pattern.context_lines = reader.number(entry, "context_lines");
    if (pattern.context_lines > 20 || pattern.unless_line.empty()) {
      reader.fail(entry["context_lines"],
                  "\"context_lines\" is 0 to 20, beside an \"unless_line\"");
    }
  }
  pattern.unless_file = code_expression(reader, entry, "unless_file", false);
  pattern.unless_mapped = reader.flag(entry, "unless_mapped");
  if (pattern.unless_mapped && pattern.kinds != std::vector<std::string>{"cxx"}) {
    reader.fail(entry["unless_mapped"], "\"unless_mapped\" needs kinds: [cxx] (C/C++ macros)");
  }
  load_code_branch(reader, entry, pattern);
  pattern.what = reader.text(entry, "what");
  pattern.replacement = reader.text(entry, "replacement");
  pattern.sources = cited_sources(reader, entry, sources);
  return pattern;
}

std::vector<std::string> macro_names(const RuleReader& reader, const YAML::Node& node,
                                     const char* key) {
  std::vector<std::string> names = reader.texts(node, key);
  if (names.empty()) {
    reader.fail(node[key] ? node[key] : node, "\"" + std::string(key) + "\" must name macros");
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (std::isdigit(static_cast<unsigned char>(name[0])) ||
        name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
            std::string::npos) {
      reader.fail(node[key][i], "not a macro name: " + quoted(name));
    }
  }
  return names;
}

void load_code_patterns(const RuleReader& reader, Knowledge& knowledge) {
  const YAML::Node& listed = reader.root()["sources"];
  reader.require_map(listed, "\"sources\"");
  std::map<std::string, std::string> sources;
  for (const auto& item : listed) {
    if (!item.second.IsScalar() || item.second.Scalar().empty()) {
      reader.fail(item.second, "a source is a non-empty string");
    }
    sources[item.first.Scalar()] = item.second.Scalar();
  }
  const YAML::Node& macros = reader.root()["platform_macros"];
  reader.require_map(macros, "\"platform_macros\"");
  knowledge.code_platform_macros.rocm = macro_names(reader, macros, "rocm");
  knowledge.code_platform_macros.cuda = macro_names(reader, macros, "cuda");
  knowledge.code_platform_macros.sources = cited_sources(reader, macros, sources);
  const YAML::Node& paths = reader.root()["cuda_only_paths"];
  reader.require_map(paths, "\"cuda_only_paths\"");
  knowledge.code_cuda_only_paths.match = reader.texts(paths, "match");
  for (std::size_t i = 0; i < knowledge.code_cuda_only_paths.match.size(); ++i) {
    check_expression(reader, paths["match"][i], "match", knowledge.code_cuda_only_paths.match[i]);
  }
  knowledge.code_cuda_only_paths.sources = cited_sources(reader, paths, sources);
  std::set<std::string> names;
  for (const auto& entry : reader.entries("patterns", "a pattern")) {
    knowledge.code_patterns.push_back(code_pattern(reader, entry, sources, names));
  }
}

/// A triage match string: plain printable ASCII (compared without regard to ASCII case), long
/// enough not to match everywhere and short enough to sit on one line of a log.
void check_triage_text(const RuleReader& reader, const YAML::Node& node, const std::string& text) {
  constexpr std::size_t k_min = 4;
  constexpr std::size_t k_max = 200;
  if (text.size() < k_min || text.size() > k_max) {
    reader.fail(node, "a match string is " + std::to_string(k_min) + " to " +
                          std::to_string(k_max) + " characters, not " + quoted(text));
  }
  if (std::any_of(text.begin(), text.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e;
      })) {
    reader.fail(node, "a match string is printable ASCII text (no control bytes, no UTF-8), not " +
                          quoted(text));
  }
}

std::vector<std::string> triage_texts(const RuleReader& reader, const YAML::Node& entry,
                                      const char* key) {
  std::vector<std::string> texts = reader.texts(entry, key);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    check_triage_text(reader, entry[key][i], texts[i]);
  }
  return texts;
}

bool is_check_id_form(const std::string& id) {
  const auto dot = id.find('.');
  return dot != std::string::npos && dot > 0 && dot + 1 < id.size() &&
         id.find('.', dot + 1) == std::string::npos &&
         id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") == std::string::npos;
}

void load_triage(const RuleReader& reader, Knowledge& knowledge) {
  std::set<std::string> seen;
  for (const auto& entry : reader.entries("signatures", "a signature")) {
    TriageSignature signature;
    signature.id = reader.text(entry, "id");
    if (signature.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") !=
        std::string::npos) {
      reader.fail(entry["id"],
                  "\"id\" is lower-case letters, digits and dashes, not " + quoted(signature.id));
    }
    if (!seen.insert(signature.id).second) {
      reader.fail(entry["id"], "signature " + bare(signature.id) + " is defined twice");
    }
    signature.match = triage_texts(reader, entry, "match");
    if (signature.match.empty()) {
      reader.fail(entry, "\"match\" needs at least one string");
    }
    signature.with = triage_texts(reader, entry, "with");
    signature.check = reader.text(entry, "check");
    if (!is_check_id_form(signature.check)) {
      reader.fail(entry["check"], "\"check\" is a check id such as arch.unsupported, not " +
                                      quoted(signature.check));
    }
    signature.severity = reader.choice(entry, "severity", {"error", "warning", "info"});
    signature.message = reader.text(entry, "message");
    signature.source = reader.text(entry, "source");
    if (entry["fixes"]) {
      for (const auto& fix : reader.sequence(entry, "fixes")) {
        reader.require_map(fix, "a fix");
        TriageFix parsed{reader.text(fix, "description"), reader.optional_text(fix, "command"),
                         false, ""};
        if (fix["kind"]) {
          parsed.kind = reader.choice(fix, "kind", {"shell", "container_flag", "file_edit"});
          if (parsed.command.empty()) {
            reader.fail(fix["kind"], "a fix with a \"kind\" needs a \"command\"");
          }
        }
        parsed.needs_root = reader.flag(fix, "needs_root");
        signature.fixes.push_back(std::move(parsed));
      }
    }
    if (entry["fix_order"]) {
      signature.fix_order = reader.choice(entry, "fix_order", {"steps", "alternatives"});
      if (signature.fixes.size() < 2) {
        reader.fail(entry["fix_order"], "\"fix_order\" needs at least two fixes");
      }
    }
    knowledge.triage_signatures.push_back(std::move(signature));
  }
}

}  // namespace

const RuleText* find_rule_file(const std::vector<RuleText>& files, std::string_view base) {
  for (const auto& file : files) {
    const std::string_view name = file.name;
    const auto slash = name.rfind('/');
    if ((slash == std::string_view::npos ? name : name.substr(slash + 1)) == base) {
      return &file;
    }
  }
  return nullptr;
}

std::string oversize_rules_file_problem(std::uintmax_t size) {
  return "the file is " + std::to_string(size) + " bytes; a rules file may be at most " +
         std::to_string(k_max_rules_file_bytes) + " bytes (" +
         std::to_string(k_max_rules_file_bytes >> 20) + " MiB)";
}

Knowledge load_knowledge(const std::vector<RuleText>& files, std::string origin) {
  Knowledge knowledge;
  knowledge.origin = std::move(origin);
  using Loader = void (*)(const RuleReader&, Knowledge&);
  // In dependency order: later files refer to the gfx targets.
  const std::pair<std::string_view, Loader> loaders[] = {
      {"gfx_targets.yaml", load_gfx_targets},
      {"pci_ids.yaml", load_pci_ids},
      {"rocm_releases.yaml", load_rocm_releases},
      {"torch.yaml", load_torch},
      {"env_vars.yaml", load_env_vars},
      {"wsl.yaml", load_wsl},
      {"tuning.yaml", load_tuning},  // after env_vars.yaml: it names variables
      {"triage.yaml", load_triage},
      {"cuda_packages.yaml", load_cuda_packages},
      {"code_patterns.yaml", load_code_patterns},
      {"revision.yaml", load_revision},
  };
  // Each file is parsed once, and its nodes are freed before the next file is parsed: yaml-cpp
  // needs up to 250 bytes of memory per byte of YAML.
  std::set<const RuleText*> loaded;
  for (const auto& [name, load] : loaders) {
    const RuleText* file = find_rule_file(files, name);
    if (file == nullptr && name == "triage.yaml") {
      continue;  // only `rocdoc triage` reads it: without it, no log line is recognised
    }
    if (file == nullptr) {
      throw RulesError(knowledge.origin, 0, 0, "the rules need " + std::string(name));
    }
    try {
      load(RuleReader(file->name, parse(*file)), knowledge);
    } catch (const YAML::Exception& error) {  // e.g. a mapping where a string belongs
      throw RulesError(file->name, error.mark.line + 1, error.mark.column + 1,
                       util::excerpt(error.msg, 200));
    }
    loaded.insert(file);
  }
  for (const auto& file : files) {
    if (loaded.count(&file) == 0) {
      parse(file);  // a file rocdoc reads nothing from must be valid too
    }
  }
  return knowledge;
}

}  // namespace rocdoc
