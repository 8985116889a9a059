// --redact's words and texts: Redactions (stable placeholders for names, values and ids) and
// the redaction of the kernel command line, serials, group files and unique ids, as plain
// functions over strings. RedactingHost (redacting.cpp) applies them to what the probes read.
#include <fmt/format.h>

#include <algorithm>

#include "src/hosts/redacting.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// `text` with every whole-word `from` replaced by `to`.
std::string replace_words(std::string_view text, std::string_view from, std::string_view to) {
  if (from.empty()) {
    return std::string(text);
  }
  std::string result;
  std::size_t done = 0;
  for (std::size_t at = text.find(from); at != std::string_view::npos;
       at = text.find(from, at + 1)) {
    const std::size_t end = at + from.size();
    const bool starts = at == 0 || !is_word_char(text[at - 1]);
    const bool ends = end == text.size() || !is_word_char(text[end]);
    if (starts && ends && at >= done) {
      result.append(text.substr(done, at - done));
      result.append(to);
      done = end;
    }
  }
  result.append(text.substr(done));
  return result;
}

// Kernel command-line keys whose values rocdoc reads or that concern the GPU, the IOMMU or
// memory: kept. Every other key=value keeps its key and loses its value (root=UUID=…).
bool gpu_related_key(std::string_view key) {
  static constexpr std::string_view k_prefixes[] = {"amdgpu.",
                                                    "amdkfd.",
                                                    "radeon.",
                                                    "drm.",
                                                    "ttm.",
                                                    "iommu",
                                                    "amd_iommu",
                                                    "intel_iommu",
                                                    "pci",
                                                    "pcie_",
                                                    "modprobe.blacklist",
                                                    "module_blacklist",
                                                    "rd.driver.blacklist",
                                                    "initcall_blacklist",
                                                    "numa_balancing",
                                                    "hugepage",
                                                    "default_hugepagesz",
                                                    "transparent_hugepage",
                                                    "mem_encrypt",
                                                    "nomodeset",
                                                    "video",
                                                    "numa",
                                                    "isolcpus",
                                                    "mitigations"};
  return std::any_of(std::begin(k_prefixes), std::end(k_prefixes), [&](std::string_view prefix) {
    return key.substr(0, prefix.size()) == prefix;
  });
}

/// A key as the kernel's parameters are named ("amdgpu.ppfeaturemask", "root"): nothing that
/// could hide a value.
bool plain_key(std::string_view key) {
  return !key.empty() && key.find_first_not_of(
                             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789_.-") == std::string_view::npos;
}

/// Bare kernel flags that name nothing of the machine; every other bare word is redacted.
bool harmless_flag(std::string_view word) {
  static constexpr std::string_view k_flags[] = {
      "ro",     "rw",      "quiet",       "splash",          "nosplash", "single", "--",
      "debug",  "noquiet", "rhgb",        "emergency",       "rescue",   "nosmt",  "nokaslr",
      "noapic", "nolapic", "earlyprintk", "ignore_loglevel", "text",     "s"};
  return std::find(std::begin(k_flags), std::end(k_flags), word) != std::end(k_flags);
}

}  // namespace

const std::string& Redactions::add_word(const std::string& real, std::string_view kind) {
  for (const auto& [word, placeholder] : m_words) {
    if (word == real) {
      return placeholder;
    }
  }
  const int number = ++m_counts[std::string(kind)];
  m_words.emplace_back(real, fmt::format("redacted-{}-{}", kind, number));
  // Longer words first, so that "alice-admin" is replaced before "alice".
  std::stable_sort(m_words.begin(), m_words.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [word, placeholder] : m_words) {
    if (word == real) {
      return placeholder;
    }
  }
  return m_words.front().second;  // not reached
}

const std::string& Redactions::add_field(const std::string& real, std::string_view kind) {
  auto it = m_fields.find(real);
  if (it == m_fields.end()) {
    const int number = ++m_counts[std::string(kind)];
    it = m_fields.emplace(real, fmt::format("redacted-{}-{}", kind, number)).first;
  }
  return it->second;
}

std::string Redactions::group(const std::string& name) {
  if (kept_groups.count(name) != 0 || name.empty()) {
    return name;
  }
  if (std::string mapped = forward(name); mapped != name) {
    return mapped;  // a user's own group: the user's placeholder
  }
  auto it = m_groups.find(name);
  if (it == m_groups.end()) {
    it = m_groups.emplace(name, fmt::format("redacted-group-{}", m_groups.size() + 1)).first;
  }
  return it->second;
}

std::string Redactions::value(const std::string& real) {
  auto it = m_values.find(real);
  if (it == m_values.end()) {
    it = m_values.emplace(real, fmt::format("redacted-value-{}", m_values.size() + 1)).first;
  }
  return it->second;
}

std::uint64_t Redactions::unique_id(std::uint64_t real) {
  if (real == 0) {
    return 0;  // "no unique id": nothing to hide, and it means something to the checks
  }
  auto it = m_ids.find(real);
  if (it == m_ids.end()) {
    // 0x5245444143540000 is "REDACT\0\0": no GPU's id, and recognisable in hex.
    it = m_ids.emplace(real, 0x5245444143540000ull + m_ids.size() + 1).first;
  }
  return it->second;
}

std::string Redactions::forward(std::string_view text) const {
  std::string result(text);
  for (const auto& [word, placeholder] : m_words) {
    result = replace_words(result, word, placeholder);
  }
  return result;
}

std::string Redactions::backward(std::string_view path) const {
  std::string result(path);
  for (const auto& [word, placeholder] : m_words) {
    result = replace_words(result, placeholder, word);
  }
  return result;
}

std::vector<CmdlineParam> split_cmdline(std::string_view cmdline) {
  const auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  // The line end /proc/cmdline adds (and any blank before it) is not part of the command line:
  // inside an unclosed quote it would otherwise join the last parameter.
  while (!cmdline.empty() && is_space(cmdline.back())) {
    cmdline.remove_suffix(1);
  }
  std::vector<CmdlineParam> params;
  std::size_t at = 0;
  while (true) {
    while (at < cmdline.size() && is_space(cmdline[at])) {
      ++at;
    }
    if (at == cmdline.size()) {
      return params;
    }
    // As next_arg(): a leading quote opens a quote that may wrap the whole parameter; a quote
    // anywhere toggles it; the first '=' (not the very first character) ends the key.
    const bool quoted = cmdline[at] == '"';
    const std::size_t body = quoted ? at + 1 : at;
    bool in_quote = quoted;
    std::optional<std::size_t> equals;
    std::size_t end = body;
    for (; end < cmdline.size() && (in_quote || !is_space(cmdline[end])); ++end) {
      if (!equals && cmdline[end] == '=' && end > body) {
        equals = end;
      }
      if (cmdline[end] == '"') {
        in_quote = !in_quote;
      }
    }
    CmdlineParam param;
    param.raw = cmdline.substr(at, end - at);
    const bool value_quoted = equals && *equals + 1 < end && cmdline[*equals + 1] == '"';
    // Both of next_arg()'s rules cut the same last quote.
    const bool cut_last = end > body && cmdline[end - 1] == '"' && (quoted || value_quoted);
    const std::size_t stop = cut_last ? end - 1 : end;
    if (equals) {
      param.key = cmdline.substr(body, *equals - body);
      const std::size_t from = *equals + 1 + (value_quoted ? 1 : 0);
      param.value = cmdline.substr(from, stop > from ? stop - from : 0);
    } else {
      param.key = cmdline.substr(body, stop > body ? stop - body : 0);
    }
    params.push_back(param);
    at = end;
  }
}

std::string redact_cmdline(std::string_view cmdline, Redactions& redactions) {
  std::vector<std::string> words;
  for (const CmdlineParam& param : split_cmdline(cmdline)) {
    if (gpu_related_key(param.key) && plain_key(param.key)) {
      words.emplace_back(param.raw);
    } else if (!param.value) {
      words.emplace_back(harmless_flag(param.key) && param.raw == param.key
                             ? std::string(param.key)
                             : redactions.value(std::string(param.raw)));
    } else if (plain_key(param.key)) {
      words.push_back(std::string(param.key) + "=" + redactions.value(std::string(*param.value)));
    } else {
      words.push_back(redactions.value(std::string(param.raw)));  // "a b=c": no key to keep
    }
  }
  return util::join(words, " ") + "\n";
}

std::string redact_kernel_line(std::string_view line, Redactions& redactions) {
  std::string result(line);
  // "Kernel command line: …" and x86's "Command line: …": the rest of the line.
  for (const std::string_view mark :
       {std::string_view("Kernel command line: "), std::string_view("Command line: ")}) {
    if (const auto at = result.find(mark); at != std::string::npos) {
      std::string redacted =
          redact_cmdline(std::string_view(result).substr(at + mark.size()), redactions);
      redacted.pop_back();  // the newline
      result = result.substr(0, at + mark.size()) + redacted;
      break;
    }
  }
  // "Unknown kernel command line parameters \"…\", will be passed to user space."
  constexpr std::string_view k_unknown = "command line parameters \"";
  if (const auto at = result.find(k_unknown); at != std::string::npos) {
    const std::size_t from = at + k_unknown.size();
    const std::size_t to = result.rfind('"');
    if (to != std::string::npos && to >= from) {
      std::string redacted =
          redact_cmdline(std::string_view(result).substr(from, to - from), redactions);
      redacted.pop_back();
      result = result.substr(0, from) + redacted + result.substr(to);
    }
  }
  return redact_serials(result);
}

std::string redact_serials(std::string_view line) {
  // A word that names a serial number: the word after it (past "number", "no" and the like) is
  // the serial, and so is what follows a ':' or '=' inside it ("serial=ABC", "SN:ABC").
  const auto names_serial = [](std::string_view word) {
    const std::string lower = util::to_lower(word);
    return lower == "serial" || lower == "serial_number" || lower == "serialnumber" ||
           lower == "serial#" || lower == "unique_id" || lower == "uniqueid" ||
           lower == "board_serial" || lower == "product_serial" || word == "SN" || word == "S/N" ||
           lower == "sn#";
  };
  const auto filler = [](std::string_view word) {
    const std::string lower = util::to_lower(word);
    return lower == "number" || lower == "number:" || lower == "no" || lower == "no." ||
           lower == "no:" || lower == "is" || lower == ":" || lower == "=" || lower == "#";
  };
  std::vector<std::string> words;
  for (const auto word : util::split(line, ' ')) {
    words.emplace_back(word);
  }
  constexpr std::string_view k_mark = "redacted-serial";
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    const auto cut = word.find_first_of(":=");
    const std::string_view name = std::string_view(word).substr(0, cut);
    if (!names_serial(name)) {
      continue;
    }
    if (cut != std::string::npos && cut + 1 < word.size()) {
      words[i] = std::string(name) + word[cut] + std::string(k_mark);
      continue;
    }
    std::size_t next = i + 1;
    while (next < words.size() && (words[next].empty() || filler(words[next]))) {
      ++next;
    }
    if (next < words.size()) {
      words[next] = std::string(k_mark);
      i = next;
    }
  }
  return util::join(words, " ");
}

std::string redact_group_file(std::string_view group_file, Redactions& redactions) {
  std::string result;
  for (const auto line : util::lines(group_file)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      result += std::string(line) + "\n";
      continue;
    }
    result += redactions.group(std::string(line.substr(0, colon))) +
              std::string(line.substr(colon)) + "\n";
  }
  return result;
}

std::string redact_unique_id_lines(std::string_view properties, Redactions& redactions) {
  std::string result;
  for (const auto line : util::lines(properties)) {
    constexpr std::string_view k_key = "unique_id ";
    if (line.substr(0, k_key.size()) == k_key) {
      if (const auto id =
              util::parse_number<std::uint64_t>(util::trim(line.substr(k_key.size())))) {
        result += std::string(k_key) + std::to_string(redactions.unique_id(*id)) + "\n";
        continue;
      }
    }
    result += std::string(line) + "\n";
  }
  return result;
}

std::string redact_gpu_uuids(std::string_view value, Redactions& redactions) {
  // GPU-<16 hex digits>, as ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES take a unique id.
  std::string result(value);
  for (std::size_t at = result.find("GPU-"); at != std::string::npos;
       at = result.find("GPU-", at + 4)) {
    const std::string digits = result.substr(at + 4, 16);
    if (digits.size() != 16 ||
        digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      continue;
    }
    const auto id = util::parse_unsigned(digits, 16);
    if (!id) {
      continue;
    }
    const bool upper = digits.find_first_of("ABCDEF") != std::string::npos;
    result.replace(at + 4, 16,
                   upper ? fmt::format("{:016X}", redactions.unique_id(*id))
                         : fmt::format("{:016x}", redactions.unique_id(*id)));
  }
  return result;
}

}  // namespace rocdoc
