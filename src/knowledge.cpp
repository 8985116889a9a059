#include "rocdoc/knowledge.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

#include "rocdoc/gfx_target.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// Reads typed values out of one rules file, turning every problem into a RulesError
/// that points at the offending node.
class RuleReader {
 public:
  explicit RuleReader(std::string file) : m_file(std::move(file)) {}

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

  const std::string& file() const { return m_file; }

 private:
  std::string m_file;
};

YAML::Node parse(const RuleText& file) {
  try {
    return YAML::Load(file.content);
  } catch (const YAML::ParserException& error) {
    throw RulesError(file.name, error.mark.line + 1, error.mark.column + 1, error.msg);
  }
}

GpuKind parse_kind(const RuleReader& reader, const YAML::Node& entry) {
  const std::string kind = reader.text(entry, "kind");
  if (kind == "radeon") {
    return GpuKind::radeon;
  }
  if (kind == "instinct") {
    return GpuKind::instinct;
  }
  if (kind == "apu") {
    return GpuKind::apu;
  }
  reader.fail(entry["kind"], "\"kind\" must be radeon, instinct or apu, not \"" + kind + "\"");
}

void load_gfx_targets(const RuleText& file, Knowledge& knowledge) {
  const RuleReader reader(file.name);
  const YAML::Node root = parse(file);
  reader.require_map(root, "the file");
  std::set<std::string> seen;
  for (const auto& entry : reader.sequence(root, "targets")) {
    reader.require_map(entry, "a target");
    GfxTarget target;
    target.name = reader.text(entry, "name");
    target.kfd = reader.number(entry, "kfd");
    target.family = reader.text(entry, "family");
    target.kind = parse_kind(reader, entry);
    target.products = reader.texts(entry, "products");
    target.source = reader.text(entry, "source");
    if (!seen.insert(target.name).second) {
      reader.fail(entry["name"], "target " + target.name + " is defined twice");
    }
    const auto decoded = gfx_name_from_kfd(target.kfd);
    if (!decoded || *decoded != target.name) {
      reader.fail(entry["kfd"], "kfd " + std::to_string(target.kfd) + " decodes to " +
                                    decoded.value_or("nothing") + ", not " + target.name);
    }
    knowledge.targets.push_back(std::move(target));
  }
}

void load_pci_ids(const RuleText& file, Knowledge& knowledge) {
  const RuleReader reader(file.name);
  const YAML::Node root = parse(file);
  reader.require_map(root, "the file");
  for (const auto& entry : reader.sequence(root, "devices")) {
    reader.require_map(entry, "a device");
    const std::string id = reader.text(entry, "id");
    const auto device = util::parse_unsigned(id, 16);
    if (id.size() != 4 || !device) {
      reader.fail(entry["id"],
                  "\"id\" must be four hex digits such as \"74a1\", not \"" + id + "\"");
    }
    PciIdEntry pci;
    pci.device = static_cast<std::uint16_t>(*device);
    pci.name = reader.text(entry, "name");
    pci.gfx = reader.text(entry, "gfx");
    pci.source = reader.text(entry, "source");
    if (knowledge.target(pci.gfx) == nullptr) {
      reader.fail(entry["gfx"], "unknown gfx target " + pci.gfx + " (not in gfx_targets.yaml)");
    }
    if (knowledge.amd_pci_id(pci.device) != nullptr) {
      reader.fail(entry["id"], "PCI id " + id + " is listed twice");
    }
    knowledge.pci_ids.push_back(std::move(pci));
  }
}

void load_rocm_releases(const RuleText& file, Knowledge& knowledge) {
  const RuleReader reader(file.name);
  const YAML::Node root = parse(file);
  reader.require_map(root, "the file");
  for (const auto& entry : reader.sequence(root, "releases")) {
    reader.require_map(entry, "a release");
    const std::string release = reader.text(entry, "rocm");
    reader.text(entry, "source");
    if (std::count(release.begin(), release.end(), '.') != 1) {
      reader.fail(entry["rocm"],
                  "\"rocm\" must be major.minor such as \"6.3\", not \"" + release + "\"");
    }
    knowledge.rocm_releases.push_back(release);
  }
  if (!root["driver_versions"]) {
    return;
  }
  for (const auto& entry : reader.sequence(root, "driver_versions")) {
    reader.require_map(entry, "a driver version");
    DriverVersion version{reader.text(entry, "module"), reader.text(entry, "rocm"),
                          reader.text(entry, "source")};
    if (!knowledge.rocm_release_index(version.rocm)) {
      reader.fail(entry["rocm"], "unknown ROCm release " + version.rocm + " (not in releases)");
    }
    knowledge.driver_versions.push_back(std::move(version));
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

RulesError::RulesError(std::string file, int line, int column, const std::string& what)
    : std::runtime_error(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                         what),
      m_file(std::move(file)),
      m_line(line),
      m_column(column) {}

const GfxTarget* Knowledge::target(std::string_view name) const {
  const auto it = std::find_if(targets.begin(), targets.end(),
                               [&](const GfxTarget& t) { return t.name == name; });
  return it == targets.end() ? nullptr : &*it;
}

const DriverVersion* Knowledge::driver_version(std::string_view module) const {
  const auto it = std::find_if(driver_versions.begin(), driver_versions.end(),
                               [&](const DriverVersion& d) { return d.module == module; });
  return it == driver_versions.end() ? nullptr : &*it;
}

std::optional<int> Knowledge::rocm_release_index(std::string_view major_minor) const {
  const auto it = std::find(rocm_releases.begin(), rocm_releases.end(), major_minor);
  if (it == rocm_releases.end()) {
    return std::nullopt;
  }
  return static_cast<int>(it - rocm_releases.begin());
}

const PciIdEntry* Knowledge::amd_pci_id(std::uint16_t device) const {
  const auto it = std::find_if(pci_ids.begin(), pci_ids.end(),
                               [&](const PciIdEntry& e) { return e.device == device; });
  return it == pci_ids.end() ? nullptr : &*it;
}

Knowledge load_knowledge(const std::vector<RuleText>& files, std::string origin) {
  Knowledge knowledge;
  knowledge.origin = std::move(origin);
  for (const auto& file : files) {
    parse(file);  // every file must at least be valid YAML
  }
  const RuleText* targets = find_rule_file(files, "gfx_targets.yaml");
  const RuleText* pci_ids = find_rule_file(files, "pci_ids.yaml");
  if (targets == nullptr || pci_ids == nullptr) {
    throw RulesError(knowledge.origin, 0, 0, "the rules need gfx_targets.yaml and pci_ids.yaml");
  }
  load_gfx_targets(*targets, knowledge);
  load_pci_ids(*pci_ids, knowledge);
  if (const RuleText* releases = find_rule_file(files, "rocm_releases.yaml")) {
    load_rocm_releases(*releases, knowledge);
  }
  return knowledge;
}

}  // namespace rocdoc
