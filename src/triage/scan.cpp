#include "src/triage/scan.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <bitset>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include "probes/torch_origin.h"
#include "rocdoc/check.h"
#include "rocdoc/gfx_target.h"
#include "src/hosts/declared_gpus.h"
#include "src/triage/literal_search.h"
#include "src/util/byte_source.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_lower(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    c = lower(c);
  }
  return out;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

/// A version-like token at `pos`: digits first, then [0-9A-Za-z.+_-], at most 64 bytes, with a
/// dot in it; "" otherwise.
std::string version_at(std::string_view line, std::size_t pos) {
  if (pos >= line.size() || !is_digit(line[pos])) {
    return {};
  }
  std::size_t end = pos;
  while (end < line.size() && end - pos < 64 &&
         (is_alnum(line[end]) || line[end] == '.' || line[end] == '+' || line[end] == '_' ||
          line[end] == '-')) {
    ++end;
  }
  std::string_view token = line.substr(pos, end - pos);
  while (!token.empty() && (token.back() == '.' || token.back() == '-')) {
    token.remove_suffix(1);  // "2.6.0." at the end of a sentence
  }
  return contains(token, ".") ? std::string(token) : std::string();
}

/// The first position after `pos` that is not one of `skip`, at most `limit` bytes on.
std::size_t skip_chars(std::string_view line, std::size_t pos, std::string_view skip,
                       std::size_t limit = 32) {
  const std::size_t stop = std::min(line.size(), pos + limit);
  while (pos < stop && skip.find(line[pos]) != std::string_view::npos) {
    ++pos;
  }
  return pos;
}

void keep_first(std::optional<LogFact>& fact, std::string_view value, std::size_t line) {
  if (fact || value.empty()) {
    return;
  }
  std::string kept = util::printable(value);
  if (kept.size() <= k_max_fact_bytes) {
    fact = LogFact{std::move(kept), line, {}};
  }
}

void keep_distinct(std::vector<LogFact>& facts, std::string value, std::size_t line,
                   std::string name = {}) {
  if (value.empty() || facts.size() >= k_max_fact_values) {
    return;
  }
  value = util::printable(value);
  if (value.size() > k_max_fact_bytes) {
    return;
  }
  const bool seen = std::any_of(facts.begin(), facts.end(), [&](const LogFact& fact) {
    return fact.value == value && fact.name == name;
  });
  if (!seen) {
    facts.push_back({std::move(value), line, std::move(name)});
  }
}

/// The gfx names on a line: "gfx" after a non-letter, hex digits, then a non-alphanumeric. Three
/// distinct names make a list (lists_targets), so no more are collected: cost stays linear.
std::vector<std::string> gfx_names(std::string_view low) {
  std::vector<std::string> names;
  const std::size_t tensile = low.find("tensilelibrary");
  for (std::size_t pos = low.find("gfx"); pos != std::string_view::npos && names.size() < 3;
       pos = low.find("gfx", pos + 3)) {
    if (pos > 0 && is_alnum(low[pos - 1])) {
      continue;
    }
    std::size_t end = pos + 3;
    while (end < low.size() && end - pos < 8 && is_hex_lower(low[end])) {
      ++end;
    }
    if (end == pos + 3 || (end < low.size() && is_alnum(low[end]))) {
      continue;
    }
    const std::string name(low.substr(pos, end - pos));
    if (kfd_from_gfx_name(name) &&
        // TensileLibrary_lazy_gfx908.dat: a library file's target, not this GPU's
        !(pos >= 1 && low[pos - 1] == '_' && tensile < pos) &&
        std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  return names;
}

/// A line that lists targets something was built for (not the GPU's own).
bool lists_targets(std::string_view low, std::size_t names) {
  return names >= 3 || contains(low, "arch_list") || contains(low, "pytorch_rocm_arch") ||
         contains(low, "amdgpu_targets") || contains(low, "gpu_targets") ||
         contains(low, "available:") || contains(low, "supported types");
}

/// The value after `key` on a line ("Marketing Name:   AMD Radeon RX 6700 XT").
std::string value_after(std::string_view line, std::size_t pos) {
  std::string_view value = util::trim(line.substr(std::min(pos, line.size())));
  return std::string(value.substr(0, 100));
}

bool names_cpu(std::string_view low_value) {
  for (const char* word : {"ryzen", "epyc", "threadripper", "athlon", "intel", "xeon", "cpu"}) {
    if (contains(low_value, word)) {
      return true;
    }
  }
  return false;
}

/// A package's version on a line: pip freeze/uv (name==V), pip list ("name   V"), pip's
/// "Requirement already satisfied: name in DIR (V)", "name: V", "name version: V".
std::string package_version(std::string_view line, std::string_view low, std::string_view name) {
  const std::string exact = std::string(name) + "==";
  for (std::size_t pos = low.find(exact); pos != std::string_view::npos;
       pos = low.find(exact, pos + 1)) {
    if (pos == 0 || !(is_alnum(low[pos - 1]) || low[pos - 1] == '-' || low[pos - 1] == '_' ||
                      low[pos - 1] == '.')) {
      return version_at(line, pos + exact.size());
    }
  }
  const std::string satisfied = "requirement already satisfied: " + std::string(name) + " in ";
  if (const auto pos = low.find(satisfied); pos != std::string_view::npos) {
    const auto open = low.find(" (", pos + satisfied.size());
    return open == std::string_view::npos ? std::string() : version_at(line, open + 2);
  }
  const std::size_t start = low.find_first_not_of(" \t+");  // "+ torch==…" from uv handled above
  if (start != std::string_view::npos && low.substr(start).rfind(name, 0) == 0 &&
      start + name.size() < low.size()) {
    std::size_t pos = start + name.size();
    const char next = low[pos];
    if (next == ':' || next == ' ' || next == '\t') {
      pos = skip_chars(low, pos, ": \t");
      if (low.substr(pos).rfind("version", 0) == 0) {
        pos = skip_chars(low, pos + 7, ": \t");
      }
      return version_at(line, pos);
    }
  }
  return {};
}

struct BuildEvidence {
  std::optional<bool> cuda_used;  ///< collect_env: "CUDA used to build PyTorch"
  std::optional<bool> rocm_used;  ///< "ROCM used to build PyTorch", torch.version.hip
  std::size_t cuda_line = 0;
  std::size_t rocm_line = 0;
};

/// Where a pip list table is: after its "Package  Version" header, a row per line until a line
/// that is not one.
struct PipTable {
  bool open = false;            ///< a header was seen and no line has ended the table yet
  std::set<std::string> names;  ///< the packages kept, by normalised name
};

/// PEP 503's normalised name: lower case, each run of '-', '_' and '.' as one '-'.
std::string normalised_name(std::string_view name) {
  std::string out;
  for (const char c : name) {
    const bool separator = c == '-' || c == '_' || c == '.';
    if (separator) {
      if (!out.empty() && out.back() != '-') {
        out += '-';
      }
    } else {
      out += lower(c);
    }
  }
  return out;
}

/// A distribution name as pip writes one: letters, digits, '.', '_', '-', starting with a letter
/// or digit.
bool distribution_name(std::string_view name) {
  return !name.empty() && name.size() <= 128 && is_alnum(name.front()) &&
         std::all_of(name.begin(), name.end(),
                     [](char c) { return is_alnum(c) || c == '.' || c == '_' || c == '-'; });
}

/// A version as pip prints one: starts with a digit, no spaces, at most 64 bytes.
bool package_version_text(std::string_view version) {
  return !version.empty() && version.size() <= 64 && is_digit(version.front()) &&
         std::none_of(version.begin(), version.end(),
                      [](char c) { return c == ' ' || c == '\t' || c == ','; });
}

/// One package of a line: pip freeze and uv ("name==1.2", "+ name==1.2"), collect_env
/// ("[pip3] name==1.2", "[conda] name 1.2 build channel") and the rows of a pip list table.
std::optional<std::pair<std::string, std::string>> package_row(std::string_view line,
                                                               std::string_view low,
                                                               PipTable& table) {
  std::string_view rest = util::trim(line);
  const auto words = [](std::string_view text) {
    std::vector<std::string_view> out;
    for (const auto word : util::split(text, ' ')) {
      const std::string_view trimmed = util::trim(word);
      if (!trimmed.empty()) {
        out.push_back(trimmed);
      }
      if (out.size() == 3) {
        break;
      }
    }
    return out;
  };
  const std::string_view low_rest = util::trim(low);
  if (low_rest.rfind("package ", 0) == 0 && contains(low_rest, " version")) {
    table.open = true;  // pip list's header; its rule of dashes and its rows follow
    return std::nullopt;
  }
  bool conda = false;
  for (const std::string_view prefix : {"[pip3] ", "[pip] ", "+ "}) {
    if (rest.substr(0, prefix.size()) == prefix) {
      rest = util::trim(rest.substr(prefix.size()));
    }
  }
  if (rest.substr(0, 8) == "[conda] ") {
    rest = util::trim(rest.substr(8));
    conda = true;
  }
  std::string_view name;
  std::string_view version;
  if (const auto equals = rest.find("=="); equals != std::string_view::npos && !conda) {
    name = rest.substr(0, equals);
    version = rest.substr(equals + 2);
    version = version.substr(0, version.find(' '));
  } else if (conda || table.open) {
    const auto parts = words(rest);
    if (table.open && !parts.empty() && parts[0].find_first_not_of('-') == std::string_view::npos) {
      return std::nullopt;  // the table's rule
    }
    if (parts.size() >= 2) {
      name = parts[0];
      version = parts[1];
    }
  }
  if (!distribution_name(name) || !package_version_text(version)) {
    table.open = false;
    return std::nullopt;
  }
  return std::make_pair(normalised_name(name), std::string(version));
}

/// "N/A", "None", "Could not collect": no value.
bool no_value(std::string_view low_value) {
  low_value = util::trim(low_value);
  return low_value.empty() || low_value.rfind("n/a", 0) == 0 || low_value.rfind("none", 0) == 0 ||
         low_value.rfind("could not", 0) == 0 || low_value.rfind("no cuda", 0) == 0;
}

/// Where the value after "key:" starts on a line; collect_env aligns its keys ("PyTorch version
/// : 2.12.0+rocm7.2" in vLLM's and newer torch's form), so spaces may stand before the colon.
/// npos when the line has no such key.
std::size_t after_key(std::string_view low, std::string_view key) {
  const std::size_t pos = low.find(key);
  if (pos == std::string_view::npos) {
    return std::string_view::npos;
  }
  const std::size_t colon = skip_chars(low, pos + key.size(), " \t", 64);
  return colon < low.size() && low[colon] == ':' ? colon + 1 : std::string_view::npos;
}

/// dmesg's timestamp at the start of a line: "[    3.548555] ", -T's "[Sat Jan  7 14:25:56
/// 2023] ", -H's "[Nov19 10:33] " and "[  +0.000388] ".
bool dmesg_timestamp(std::string_view line) {
  if (line.empty() || line.front() != '[') {
    return false;
  }
  const std::size_t close = line.find(']');
  if (close == std::string_view::npos || close > 32) {
    return false;
  }
  const std::string_view stamp = line.substr(1, close - 1);
  return std::any_of(stamp.begin(), stamp.end(), is_digit) &&
         stamp.find_first_not_of("0123456789.:+ ADFJMNOSTabcdeghilnoprtuvy") ==
             std::string_view::npos;
}

/// The program a shell prompt runs ("user@host:~$ rocm-smi", "$ /opt/rocm/bin/amd-smi static"),
/// without its directory; empty when the line is no such prompt.
std::string_view prompted_program(std::string_view low) {
  const std::size_t prompt = low.find("$ ");
  if (prompt == std::string_view::npos || prompt > 80) {
    return {};
  }
  std::string_view command = util::trim(low.substr(prompt + 2));
  command = command.substr(0, command.find(' '));
  return command.substr(command.rfind('/') == std::string_view::npos ? 0 : command.rfind('/') + 1);
}

/// "name==1.2.3" as a whole line (pip freeze, uv): a name and a version as package_row() reads
/// them, nothing else on the line.
bool freeze_line(std::string_view low) {
  const std::size_t equals = low.find("==");
  return equals != std::string_view::npos && low.find(' ') == std::string_view::npos &&
         distribution_name(low.substr(0, equals)) && package_version_text(low.substr(equals + 2));
}

/// Every word scan_facts() looks for, lower-case: a line without one of them (and without a
/// signature's match string) holds no fact and is not read, and each reader of scan_facts()
/// runs only on a line that holds its words (a Markers set, from the one search). A reader
/// added to scan_facts() adds its word here; the unit test "the one-pass filter reads what
/// every line would give" and the triage fuzz harness compare with reading every line.
// clang-format off
constexpr std::string_view k_fact_markers[] = {
    // tool outputs (tool_of)
    "used to build pytorch", "is debug build", "hsa system attributes", "hsa agents",
    "rock module is", "rocm system management interface", "target_graphics_version",
    "traceback (most recent call last)", "error response from daemon", "controller", "amdgpu",
    "kfd", "drm", "==", "package ", "[conda]", "rocminfo", "rocm-smi", "amd-smi",
    // facts (scan_facts)
    "gfx", "1002:", "marketing name", "gpu models and configuration", "device name",
    "card series", "market_name", "torch", "rocm version", "hip runtime version",
    "python version", "/opt/rocm-", "hsa_override_gfx_version", "docker", "podman", "kubectl",
    "[10de:", "nvidia driver version", "nvidia-smi"};
// clang-format on
constexpr std::size_t k_tool_markers = 19;  ///< the first ones: tool_of's words

/// The markers a line holds.
using Markers = std::bitset<std::size(k_fact_markers)>;

/// The index of a marker word, or the number of markers for a word that is not one (each use
/// below is a constant checked by a static_assert; gcc 10, the release build's compiler, takes
/// neither consteval calls in braced lists nor a throw in a constexpr function).
constexpr std::size_t marker(std::string_view word) {
  std::size_t index = 0;
  while (index < std::size(k_fact_markers) && k_fact_markers[index] != word) {
    ++index;
  }
  return index;
}

/// The markers the readers of scan_facts() test, by name.
namespace word {
constexpr std::size_t opt_rocm = marker("/opt/rocm-");
constexpr std::size_t amd_pci_id = marker("1002:");
constexpr std::size_t pinned = marker("==");
constexpr std::size_t nvidia_pci_id = marker("[10de:");
constexpr std::size_t conda = marker("[conda]");
constexpr std::size_t docker = marker("docker");
constexpr std::size_t gfx = marker("gfx");
constexpr std::size_t hip_runtime_version = marker("hip runtime version");
constexpr std::size_t hsa_override = marker("hsa_override_gfx_version");
constexpr std::size_t kubectl = marker("kubectl");
constexpr std::size_t market_name = marker("market_name");
constexpr std::size_t marketing_name = marker("marketing name");
constexpr std::size_t gpu_models = marker("gpu models and configuration");
constexpr std::size_t device_name = marker("device name");
constexpr std::size_t card_series = marker("card series");
constexpr std::size_t nvidia_driver_version = marker("nvidia driver version");
constexpr std::size_t nvidia_smi = marker("nvidia-smi");
constexpr std::size_t package_header = marker("package ");
constexpr std::size_t podman = marker("podman");
constexpr std::size_t python_version = marker("python version");
constexpr std::size_t rocm_version = marker("rocm version");
constexpr std::size_t torch = marker("torch");
static_assert(opt_rocm < std::size(k_fact_markers));
static_assert(amd_pci_id < std::size(k_fact_markers));
static_assert(pinned < std::size(k_fact_markers));
static_assert(nvidia_pci_id < std::size(k_fact_markers));
static_assert(conda < std::size(k_fact_markers));
static_assert(docker < std::size(k_fact_markers));
static_assert(gfx < std::size(k_fact_markers));
static_assert(hip_runtime_version < std::size(k_fact_markers));
static_assert(hsa_override < std::size(k_fact_markers));
static_assert(kubectl < std::size(k_fact_markers));
static_assert(market_name < std::size(k_fact_markers));
static_assert(marketing_name < std::size(k_fact_markers));
static_assert(gpu_models < std::size(k_fact_markers));
static_assert(device_name < std::size(k_fact_markers));
static_assert(card_series < std::size(k_fact_markers));
static_assert(nvidia_driver_version < std::size(k_fact_markers));
static_assert(nvidia_smi < std::size(k_fact_markers));
static_assert(package_header < std::size(k_fact_markers));
static_assert(podman < std::size(k_fact_markers));
static_assert(python_version < std::size(k_fact_markers));
static_assert(rocm_version < std::size(k_fact_markers));
static_assert(torch < std::size(k_fact_markers));
static_assert(gfx == k_tool_markers);  // the facts' words start where tool_of's end
}  // namespace word

bool any(const Markers& markers, std::initializer_list<std::size_t> wanted) {
  return std::any_of(wanted.begin(), wanted.end(),
                     [&](std::size_t index) { return markers.test(index); });
}

/// A line holds one of tool_of()'s words.
bool may_name_a_tool(const Markers& markers) {
  for (std::size_t i = 0; i < k_tool_markers; ++i) {
    if (markers.test(i)) {
      return true;
    }
  }
  return any(markers, {word::torch, word::market_name, word::amd_pci_id});
}

/// The tool whose output a line is (its own words, or its form), or nullptr.
const char* tool_of(std::string_view line, std::string_view low) {
  if (after_key(low, "used to build pytorch") != std::string_view::npos ||
      after_key(low, "is debug build") != std::string_view::npos ||
      (low.rfind("pytorch version", 0) == 0 &&
       after_key(low, "pytorch version") != std::string_view::npos)) {
    return "collect_env";
  }
  if (contains(low, "hsa system attributes") || contains(low, "hsa agents") ||
      contains(low, "rock module is")) {
    return "rocminfo";
  }
  if (contains(low, "rocm system management interface")) {
    return "rocm-smi";
  }
  if (contains(low, "market_name:") || contains(low, "target_graphics_version")) {
    return "amd-smi";
  }
  if (contains(low, "traceback (most recent call last)")) {
    return "a Python traceback";
  }
  if (contains(low, "error response from daemon")) {
    return "a container runtime's error";
  }
  if (contains(low, "[1002:") && contains(low, "controller")) {
    return "lspci -nn";
  }
  if ((contains(low, "amdgpu") || contains(low, "kfd") || contains(low, "drm")) &&
      (dmesg_timestamp(line) || contains(low, " kernel: ") || low.rfind("[drm:", 0) == 0)) {
    return "a kernel log (dmesg, journalctl -k)";
  }
  const std::string_view program = prompted_program(low);
  for (const char* tool : {"rocminfo", "rocm-smi", "amd-smi"}) {
    if (program == tool) {
      return tool;
    }
  }
  if (freeze_line(low)) {
    return "pip freeze";
  }
  if (low.rfind("package ", 0) == 0 && contains(low, " version")) {
    return "pip list";
  }
  return nullptr;
}

void scan_facts(std::string_view line, std::string_view low, std::size_t number,
                const Markers& markers, const Knowledge& knowledge, LogFacts& facts,
                BuildEvidence& build, PipTable& table) {
  const bool package_line =
      table.open || any(markers, {word::pinned, word::conda, word::package_header});
  if (auto row = package_line ? package_row(line, low, table) : std::nullopt) {
    if (facts.packages.size() == k_max_log_packages) {
      ++facts.packages_left_out;
    } else if (table.names.insert(row->first).second) {
      facts.packages.push_back({util::printable(row->second), number, std::move(row->first)});
    }
  }
  if (const char* tool = may_name_a_tool(markers) ? tool_of(line, low) : nullptr) {
    if (std::none_of(facts.tools.begin(), facts.tools.end(),
                     [&](const LogFact& fact) { return fact.value == tool; })) {
      facts.tools.push_back({tool, number, {}});
    }
  }
  // GPU targets
  if (markers.test(word::gfx)) {
    const auto names = gfx_names(low);
    if (!lists_targets(low, names.size())) {
      for (const auto& name : names) {
        keep_distinct(facts.gfx_targets, name, number);
      }
    }
  }
  // A PCI id in a kernel line: "skipped device 1002:67df, PCI rejects atomics"
  for (std::size_t pos = markers.test(word::amd_pci_id) ? low.find("1002:")
                                                        : std::string_view::npos;
       pos != std::string_view::npos; pos = low.find("1002:", pos + 5)) {
    if ((pos > 0 && is_alnum(low[pos - 1])) || pos + 9 > low.size() ||
        (pos + 9 < low.size() && is_alnum(low[pos + 9]))) {
      continue;
    }
    const auto id = util::parse_number<std::uint16_t>(low.substr(pos + 5, 4), 16);
    if (id) {
      if (const PciIdEntry* entry = knowledge.amd_pci_id(*id)) {
        keep_distinct(facts.gfx_targets, entry->gfx, number);
        keep_distinct(facts.gpu_names, entry->name, number);
      }
    }
  }
  // GPU names
  constexpr std::array<std::pair<std::string_view, std::size_t>, 5> k_name_keys = {
      {{"marketing name", word::marketing_name},
       {"gpu models and configuration", word::gpu_models},
       {"device name", word::device_name},
       {"card series", word::card_series},
       {"market_name", word::market_name}}};
  for (const auto& [key, index] : k_name_keys) {
    if (!markers.test(index)) {
      continue;
    }
    if (const auto pos = after_key(low, key); pos != std::string_view::npos) {
      const std::string value = value_after(line, pos);
      const std::string low_value = ascii_lower(value);
      if ((contains(low_value, "radeon") || contains(low_value, "instinct") ||
           contains(low_value, "amd")) &&
          !names_cpu(low_value)) {
        keep_distinct(facts.gpu_names, value, number);
      }
    }
  }
  // an NVIDIA GPU beside the AMD ones
  if (!facts.nvidia_gpu &&
      any(markers, {word::nvidia_pci_id, word::nvidia_driver_version, word::nvidia_smi})) {
    const std::size_t driver = after_key(low, "nvidia driver version");
    if ((contains(low, "[10de:") &&
         (contains(low, "vga compatible controller") || contains(low, "3d controller"))) ||
        contains(low, "nvidia-smi 5") || contains(low, "nvidia-smi 4") ||
        (driver != std::string_view::npos && is_digit(low[skip_chars(low, driver, " \t")]))) {
      keep_first(facts.nvidia_gpu, util::trim(line).substr(0, 100), number);
    }
  }
  if (markers.test(word::torch)) {
    // torch and its companions
    for (const char* key : {"pytorch version", "torch version"}) {
      if (const auto pos = after_key(low, key); pos != std::string_view::npos) {
        keep_first(facts.torch, version_at(line, skip_chars(line, pos, " \"'\t")), number);
      }
    }
    if (const auto pos = low.find("torch.__version__"); pos != std::string_view::npos) {
      keep_first(facts.torch, version_at(line, skip_chars(line, pos + 17, " :=\"'\t")), number);
    }
    keep_first(facts.torch, package_version(line, low, "torch"), number);
    keep_first(facts.torchvision, package_version(line, low, "torchvision"), number);
    keep_first(facts.torchaudio, package_version(line, low, "torchaudio"), number);
    // how torch was built (collect_env)
    if (const auto pos = after_key(low, "cuda used to build pytorch");
        pos != std::string_view::npos) {
      build.cuda_used = !no_value(low.substr(pos));
      build.cuda_line = number;
    }
    if (const auto pos = after_key(low, "rocm used to build pytorch");
        pos != std::string_view::npos) {
      build.rocm_used = !no_value(low.substr(pos));
      build.rocm_line = number;
      if (*build.rocm_used) {
        keep_first(facts.rocm, version_at(line, skip_chars(line, pos, " \t")), number);
      }
    }
    if (const auto pos = low.find("torch.version.hip"); pos != std::string_view::npos) {
      const std::size_t value = skip_chars(low, pos + 17, " :=\t'\"");
      if (low.substr(value).rfind("none", 0) == 0) {
        build.rocm_used = false;
        build.rocm_line = number;
      } else if (value < low.size() && is_digit(low[value])) {
        build.rocm_used = true;
        build.rocm_line = number;
      }
    }
  }
  // Python (collect_env: "Python version: 3.12.8 (main, …)"): major.minor
  if (const auto pos = markers.test(word::python_version) ? after_key(low, "python version")
                                                          : std::string_view::npos;
      pos != std::string_view::npos) {
    const std::string version = version_at(line, skip_chars(line, pos, " \t"));
    const auto parts = util::split(version, '.');
    if (parts.size() >= 2 && !parts[1].empty()) {
      keep_first(facts.python, std::string(parts[0]) + "." + std::string(parts[1]), number);
    }
  }

  for (const char* key : {"hip runtime version", "rocm version"}) {
    if (!any(markers, {word::hip_runtime_version, word::rocm_version})) {
      break;
    }
    if (const auto pos = after_key(low, key); pos != std::string_view::npos) {
      keep_first(facts.rocm, version_at(line, skip_chars(line, pos, " \t")), number);
    }
  }
  if (const auto pos =
          markers.test(word::opt_rocm) ? low.find("/opt/rocm-") : std::string_view::npos;
      pos != std::string_view::npos) {
    keep_first(facts.rocm, version_at(line, pos + 10), number);
  }
  // HSA_OVERRIDE_GFX_VERSION[_N]=10.3.0, HSA_OVERRIDE_GFX_VERSION:10.3.0 (ollama), ... is invalid
  constexpr std::string_view k_override = "hsa_override_gfx_version";
  for (std::size_t pos = markers.test(word::hsa_override) ? low.find(k_override)
                                                          : std::string_view::npos;
       pos != std::string_view::npos; pos = low.find(k_override, pos + 1)) {
    std::size_t end = pos + k_override.size();
    if (end < low.size() && low[end] == '_') {
      std::size_t digits = end + 1;
      while (digits < low.size() && digits - end <= 3 && is_digit(low[digits])) {
        ++digits;
      }
      if (digits == end + 1) {
        continue;  // HSA_OVERRIDE_GFX_VERSION_X: not a per-node name
      }
      end = digits;
    }
    const std::string name = util::to_upper(line.substr(pos, end - pos));
    const std::size_t value = skip_chars(line, end, " \t=:\"'");
    std::string found = version_at(line, value);
    if (!found.empty() && value > end) {
      keep_distinct(facts.overrides, found.substr(0, found.find_first_not_of("0123456789.")),
                    number, name);
    }
  }
  // a container: how it was started, or what runs in it
  if (!facts.container && any(markers, {word::docker, word::podman, word::kubectl})) {
    for (const auto& [marker, runtime] :
         {std::pair<const char*, const char*>{"docker run", "docker"},
          {"docker exec", "docker"},
          {"docker compose", "docker"},
          {"docker-compose", "docker"},
          {"podman run", "podman"},
          {"podman exec", "podman"},
          {"kubectl exec", "kubernetes"},
          {"kubectl run", "kubernetes"}}) {
      if (contains(low, marker)) {
        keep_first(facts.container, runtime, number);
        break;
      }
    }
  }
  // torch's site-packages from a path (tracebacks, pip)
  for (const char* key : {"/site-packages/torch", "/dist-packages/torch"}) {
    if (facts.site_packages || !markers.test(word::torch)) {
      break;
    }
    if (const auto pos = line.find(key); pos != std::string_view::npos) {
      std::size_t start = pos;
      while (start > 0 && line[start - 1] != '"' && line[start - 1] != '\'' &&
             line[start - 1] != ' ' && line[start - 1] != '(' && line[start - 1] != '\t') {
        --start;
      }
      const std::string_view dir = line.substr(start, pos + std::strlen(key) - 6 - start);
      if (!dir.empty() && dir.front() == '/') {
        keep_first(facts.site_packages, std::string(dir), number);
      }
    }
  }
}

bool matches(std::string_view low, const std::vector<std::string>& match,
             const std::vector<std::string>& with) {
  const bool any = std::any_of(match.begin(), match.end(),
                               [&](const std::string& text) { return contains(low, text); });
  return any && std::all_of(with.begin(), with.end(),
                            [&](const std::string& text) { return contains(low, text); });
}

TorchBuild build_of_tag(std::string_view version) {
  const auto plus = version.find('+');
  const std::string tag =
      ascii_lower(plus == std::string_view::npos ? "" : version.substr(plus + 1));
  if (tag.rfind("rocm", 0) == 0) {
    return TorchBuild::rocm;
  }
  return tag.rfind("cu", 0) == 0 ? TorchBuild::cuda : TorchBuild::cpu;
}

void settle_build(LogFacts& facts, const BuildEvidence& build) {
  if (facts.torch && facts.torch->value.find('+') != std::string::npos) {
    facts.torch_build = build_of_tag(facts.torch->value);
    facts.torch_build_evidence = facts.torch;
  } else if (build.rocm_used == true) {
    facts.torch_build = TorchBuild::rocm;
    facts.torch_build_evidence = LogFact{"rocm", build.rocm_line, {}};
  } else if (build.cuda_used == true) {
    facts.torch_build = TorchBuild::cuda;
    facts.torch_build_evidence = LogFact{"cuda", build.cuda_line, {}};
  } else if (build.cuda_used == false && build.rocm_used == false) {
    facts.torch_build = TorchBuild::cpu;
    facts.torch_build_evidence = LogFact{"cpu", build.rocm_line, {}};
  }
}

/// After this many lines in a row that hold a literal, the lines are read without searching
/// ahead until one holds none.
constexpr std::size_t k_dense_lines = 4;

}  // namespace

LogLine quote(std::size_t number, std::string_view line) {
  return {number, util::excerpt(line, k_max_quoted_bytes)};
}

LogMatcher::LogMatcher(const Knowledge& knowledge) : knowledge_(&knowledge) {
  knowledge.require(KnowledgeParts::triage);
  // The literals: every signature's match strings (owner: the signature's index), then the
  // words of the fact readers (owner: none).
  std::vector<std::string> literals;
  for (const auto& signature : knowledge.triage_signatures) {
    std::vector<std::string> match;
    for (const auto& m : signature.match) {
      match.push_back(ascii_lower(m));
      literals.push_back(match.back());
      owner_.push_back(needles_.size());
    }
    std::vector<std::string> with;
    for (const auto& w : signature.with) {
      with.push_back(ascii_lower(w));
    }
    needles_.emplace_back(std::move(match), std::move(with));
  }
  for (const std::string_view word : k_fact_markers) {
    literals.emplace_back(word);
  }
  search_ = std::make_unique<LiteralSearch>(literals);
}

LogMatcher::~LogMatcher() = default;

LogScan scan_log(std::string_view text, const Knowledge& knowledge, LineFilter filter) {
  return scan_log(text, LogMatcher(knowledge), filter);
}

LogScan scan_log(std::string_view text, const LogMatcher& matcher, LineFilter filter) {
  LogScan scan;
  scan.bytes = text.size();
  const Knowledge& knowledge = *matcher.knowledge_;
  const auto& needles = matcher.needles_;
  const auto& owner = matcher.owner_;
  const LiteralSearch& search = *matcher.search_;
  for (const auto& signature : knowledge.triage_signatures) {
    scan.hits.push_back({&signature, {}, 0});
  }
  BuildEvidence build;
  PipTable table;
  std::string low;
  std::vector<int> found;
  std::vector<std::size_t> candidates;
  std::size_t dense = 0;  // lines read one after the other, each holding a literal
  // Where a literal occurs next: the lines before it hold nothing and are only counted.
  std::optional<std::size_t> next = filter == LineFilter::every_line ? 0 : search.next(text, 0);
  std::size_t start = 0;
  while (start < text.size()) {
    const void* newline = std::memchr(text.data() + start, '\n', text.size() - start);
    const std::size_t end =
        newline == nullptr
            ? text.size()
            : static_cast<std::size_t>(static_cast<const char*>(newline) - text.data());
    const std::size_t line_start = start;
    start = end + 1;
    ++scan.lines;
    if (end - line_start > k_max_triage_line) {
      ++scan.cut_lines;
    }
    // The rows of a pip list hold no literal: while its table is open, every line is read.
    if (filter == LineFilter::markers && !table.open && (!next || *next > end)) {
      continue;
    }
    std::string_view line = text.substr(line_start, std::min(end - line_start, k_max_triage_line));
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    low.assign(line);
    for (char& c : low) {
      c = lower(c);
    }
    candidates.clear();
    Markers markers;
    if (filter == LineFilter::markers) {
      search.which(low, found);
      // Where literals are on line after line (a hostile log), the next line is read without
      // searching ahead: which() says what it holds, and the first line without a literal
      // starts the search again.
      dense = found.empty() ? 0 : dense + 1;
      next = dense >= k_dense_lines ? std::optional<std::size_t>(start)
                                    : search.next(text, std::min(start, text.size()));
      if (found.empty() && !table.open) {
        continue;
      }
      for (const int literal : found) {
        const auto index = static_cast<std::size_t>(literal);
        if (index < owner.size()) {
          candidates.push_back(owner[index]);
        } else if (index - owner.size() < markers.size()) {
          markers.set(index - owner.size());
        }
      }
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    } else {
      for (std::size_t i = 0; i < needles.size(); ++i) {
        candidates.push_back(i);
      }
      markers.set();  // every reader runs
    }
    for (const std::size_t i : candidates) {
      if (matches(low, needles[i].first, needles[i].second)) {
        SignatureHit& hit = scan.hits[i];
        if (hit.lines.size() < k_max_quoted_lines) {
          hit.lines.push_back(quote(scan.lines, line));
        }
        ++hit.count;
      }
    }
    scan_facts(line, low, scan.lines, markers, knowledge, scan.facts, build, table);
  }
  settle_build(scan.facts, build);
  scan.hits.erase(std::remove_if(scan.hits.begin(), scan.hits.end(),
                                 [](const SignatureHit& hit) { return hit.count == 0; }),
                  scan.hits.end());
  return scan;
}

void check_triage_signatures(const Knowledge& knowledge) {
  knowledge.require(KnowledgeParts::triage);
  for (const auto& signature : knowledge.triage_signatures) {
    if (find_check(signature.check) == nullptr) {
      throw RulesError("triage.yaml", 0, 0,
                       "signature " + util::excerpt(signature.id) + " names check " +
                           util::excerpt(signature.check) +
                           ", which is not in the check table (rocdoc list-checks)");
    }
  }
}

TriageInput read_triage_input(const std::string& path) {
  TriageInput input;
  const std::string name = path == "-" ? "standard input" : util::printable(path);
  const std::string limit =
      fmt::format("{} bytes ({} MiB)", k_max_triage_bytes, k_max_triage_bytes >> 20);
  const auto failure =
      util::read_whole_file(path, k_max_triage_bytes, input.text, util::Dash::standard_input);
  if (!failure) {
    return input;
  }
  using Kind = util::ReadFailure::Kind;
  switch (failure->kind) {
    case Kind::cannot_open:
    case Kind::read_error:
      input.problem =
          name + ": " + (failure->error == ENOENT ? "no such file" : std::strerror(failure->error));
      break;
    case Kind::not_regular:
      // A FIFO or a device (/dev/kmsg) could block forever; a stream is read from standard
      // input, where the user chose to wait for it.
      input.problem = failure->type == S_IFDIR
                          ? name + ": a directory, not a log"
                          : name + ": " + util::file_type_words(failure->type) +
                                ", not a log file; pipe a stream to standard input instead "
                                "(dmesg | rocdoc triage -)";
      break;
    case Kind::too_large:
      input.problem =
          failure->size
              ? fmt::format("{}: {} bytes; triage reads a log of at most {}", name, *failure->size,
                            limit)
              : fmt::format("{}: more than {}; triage reads a log of at most that", name, limit);
      break;
  }
  return input;
}

}  // namespace rocdoc
