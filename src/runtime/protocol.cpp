#include "src/runtime/protocol.h"

#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>

#include "src/util/strings.h"

namespace rocdoc::runtime {

namespace {

constexpr std::string_view k_hex = "0123456789abcdef";

std::optional<int> hex_digit(char c) {
  const auto at = k_hex.find(static_cast<char>(c | 0x20));
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
             ? std::optional<int>(static_cast<int>(at))
             : std::nullopt;
}

/// Unescapes one field; nullopt when an escape is malformed or a raw control byte is in it.
std::optional<std::string> unescape_field(std::string_view field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    const char c = field[i];
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return std::nullopt;
    }
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= field.size()) {
      return std::nullopt;
    }
    switch (field[i]) {
      case '\\':
        out += '\\';
        break;
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 'x': {
        const auto high = i + 1 < field.size() ? hex_digit(field[i + 1]) : std::nullopt;
        const auto low = i + 2 < field.size() ? hex_digit(field[i + 2]) : std::nullopt;
        if (!high || !low) {
          return std::nullopt;
        }
        out += static_cast<char>(*high * 16 + *low);
        i += 2;
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return out;
}

/// Reads the lines every child writes into `load`; false when the line is none of them.
bool read_load_line(const std::vector<std::string>& line, RuntimeLoad& load) {
  const std::string& key = line[0];
  if (key == "tried" && line.size() == 3) {
    load.failed.push_back({line[1], line[2]});
  } else if (key == "loaded" && line.size() == 3) {
    load.candidate = line[1];
    load.loaded = line[2];
  } else if (key == "missing" && line.size() == 2) {
    load.missing.push_back(line[1]);
  } else if (key == "call" && line.size() == 2) {
    load.running = line[1];
  } else if (key == "status" && (line.size() == 4 || line.size() == 5)) {
    const auto code = util::parse_number<std::int64_t>(line[2]);
    if (!code) {
      return false;
    }
    load.calls.push_back({line[1], *code, line[3], line.size() == 5 ? line[4] : ""});
    load.running.reset();
  } else if (key == "end" && line.size() == 1) {
    load.complete = true;
    load.running.reset();
  } else {
    return false;
  }
  return true;
}

std::string unreadable_line(std::size_t number, std::string_view why) {
  return fmt::format("line {}: {}", number, why);
}

/// Runs `read`, then the load lines' reader, over every line; the first line neither reads
/// stops it (`read` sees each line first, so it may take a call or status line for itself).
template <typename Read>
void read_result(std::string_view text, RuntimeLoad& load, Read read) {
  ResultLines split = split_result(text);
  load.unreadable = split.unreadable;
  std::size_t number = 0;
  for (const auto& line : split.lines) {
    ++number;
    if (load.complete) {
      load.unreadable = unreadable_line(number, "a line after \"end\"");
      return;
    }
    if (!read(line) && !read_load_line(line, load)) {
      load.unreadable = unreadable_line(number, "not a result line: " + util::excerpt(line[0], 40));
      return;
    }
  }
}

std::optional<int> device_index(const std::string& text) {
  const auto index = util::parse_number<int>(text);
  return index && *index >= 0 && *index < k_max_devices ? index : std::nullopt;
}

template <typename Device>
Device& device_at(std::vector<Device>& devices, int index) {
  for (auto& device : devices) {
    if (device.index == index) {
      return device;
    }
  }
  devices.push_back({});
  devices.back().index = index;
  return devices.back();
}

}  // namespace

void ResultWriter::line(std::initializer_list<std::string_view> fields) const {
  std::string text;
  for (const auto field : fields) {
    if (!text.empty()) {
      text += '\t';
    }
    text += escape_field(field.substr(0, k_max_field));
  }
  text += '\n';
  std::string_view rest = text;
  while (!rest.empty()) {
    const ssize_t written = ::write(m_fd, rest.data(), rest.size());
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      return;
    }
    rest.remove_prefix(static_cast<std::size_t>(written));
  }
}

std::string escape_field(std::string_view field) {
  std::string out;
  for (const char c : field) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += k_hex[byte >> 4];
      out += k_hex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

ResultLines split_result(std::string_view text) {
  ResultLines result;
  std::size_t number = 0;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    if (newline == std::string_view::npos) {
      break;  // cut off while it was written
    }
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline + 1);
    ++number;
    if (result.lines.size() >= k_max_records) {
      result.unreadable = unreadable_line(number, fmt::format("more than {} lines", k_max_records));
      return result;
    }
    std::vector<std::string> fields;
    bool bad = false;
    for (const auto field : util::split(line, '\t')) {
      auto value = field.size() <= 4 * k_max_field ? unescape_field(field) : std::nullopt;
      if (!value || value->size() > k_max_field) {
        bad = true;
        break;
      }
      fields.push_back(std::move(*value));
    }
    if (bad || fields.empty() || fields[0].empty()) {
      result.unreadable =
          unreadable_line(number, "not tab-separated result fields: " + util::excerpt(line, 40));
      return result;
    }
    result.lines.push_back(std::move(fields));
  }
  return result;
}

namespace {

std::optional<HipCopyRate> copy_rate(const std::vector<std::string>& line) {
  const auto bytes = util::parse_number<std::uint64_t>(line[4]);
  const auto nanoseconds = util::parse_number<std::uint64_t>(line[5]);
  if (!bytes || !nanoseconds) {
    return std::nullopt;
  }
  return HipCopyRate{*bytes, *nanoseconds};
}

/// "compute INDEX begin BYTES" … "compute INDEX end": one GPU's compute test, never nested.
bool read_compute_line(const std::vector<std::string>& line, HipRuntimeFacts& hip) {
  const auto index = line.size() >= 3 ? device_index(line[1]) : std::nullopt;
  if (!index) {
    return false;
  }
  const std::string& key = line[2];
  HipDevice& device = device_at(hip.devices, *index);
  if (key == "begin" && line.size() == 4) {
    const auto bytes = util::parse_number<std::uint64_t>(line[3]);
    if (!bytes || hip.computing || device.compute) {
      return false;
    }
    device.compute.emplace().bytes = *bytes;
    hip.computing = *index;
    return true;
  }
  if (hip.computing != index || !device.compute) {
    return false;
  }
  HipCompute& compute = *device.compute;
  if (key == "end" && line.size() == 3) {
    compute.complete = true;
    hip.computing.reset();
    return true;
  }
  if (key == "pinned" && line.size() == 4 && (line[3] == "0" || line[3] == "1")) {
    compute.pinned = line[3] == "1";
    return true;
  }
  if (key == "checked" && line.size() == 5) {
    compute.checked_bytes = util::parse_number<std::uint64_t>(line[3]);
    compute.wrong_words = util::parse_number<std::uint64_t>(line[4]);
    return compute.checked_bytes && compute.wrong_words;
  }
  if (key == "wrong" && line.size() == 6) {
    const auto offset = util::parse_number<std::uint64_t>(line[3]);
    const auto expected = util::parse_number<std::uint32_t>(line[4]);
    const auto found = util::parse_number<std::uint32_t>(line[5]);
    if (!offset || !expected || !found) {
      return false;
    }
    compute.first_wrong = HipWrongWord{*offset, *expected, *found};
    return true;
  }
  if (key == "copy" && line.size() == 6 && (line[3] == "h2d" || line[3] == "d2h")) {
    auto rate = copy_rate(line);
    (line[3] == "h2d" ? compute.host_to_device : compute.device_to_host) = rate;
    return rate.has_value();
  }
  return false;
}

}  // namespace

HipRuntimeFacts parse_hip_result(std::string_view text) {
  HipRuntimeFacts hip;
  read_result(text, hip.load, [&](const std::vector<std::string>& line) {
    if (line[0] == "compute") {
      return read_compute_line(line, hip);
    }
    if (hip.computing && (line[0] == "call" || line[0] == "status")) {
      // A call made for one GPU's compute test is that GPU's: the running call is the load's
      // too, so that a hang or a crash still says where it stopped.
      HipCompute& compute = *device_at(hip.devices, *hip.computing).compute;
      if (!read_load_line(line, hip.load)) {
        return false;
      }
      if (line[0] == "call") {
        compute.running = line[1];
      } else {
        compute.calls.push_back(hip.load.calls.back());
        hip.load.calls.pop_back();
        compute.running.reset();
      }
      return true;
    }
    if (line[0] == "value" && line.size() == 3) {
      const std::string& key = line[1];
      if (key == "runtime_version" || key == "driver_version") {
        const auto version = util::parse_number<std::int64_t>(line[2]);
        (key == "runtime_version" ? hip.runtime_version : hip.driver_version) = version;
        return version.has_value();
      }
      if (key == "device_count") {
        hip.device_count = util::parse_number<int>(line[2]);
        return hip.device_count.has_value() && *hip.device_count >= 0;
      }
      if (key == "round_trip" && (line[2] == "ok" || line[2] == "mismatch")) {
        hip.round_trip = line[2] == "ok";
        return true;
      }
      return false;
    }
    if (line[0] == "device" && line.size() == 4) {
      const auto index = device_index(line[1]);
      if (!index) {
        return false;
      }
      HipDevice& device = device_at(hip.devices, *index);
      const std::string& key = line[2];
      const std::string& value = line[3];
      if (key == "name") {
        device.name = value;
      } else if (key == "gcn_arch_name") {
        device.gcn_arch_name = value;
      } else if (key == "total_memory") {
        device.total_memory = util::parse_number<std::uint64_t>(value);
      } else if (key == "pci_domain") {
        device.pci_domain = util::parse_number<std::uint32_t>(value);
      } else if (key == "pci_bus") {
        device.pci_bus = util::parse_number<std::uint32_t>(value);
      } else if (key == "pci_device") {
        device.pci_device = util::parse_number<std::uint32_t>(value);
      } else {
        return false;
      }
      return true;
    }
    return false;
  });
  return hip;
}

SmiRuntimeFacts parse_smi_result(std::string_view text) {
  SmiRuntimeFacts smi;
  read_result(text, smi.load, [&](const std::vector<std::string>& line) {
    if (line[0] == "value" && line.size() == 3) {
      if (line[1] == "device_count") {
        smi.device_count = util::parse_number<int>(line[2]);
        return smi.device_count.has_value() && *smi.device_count >= 0;
      }
      if (line[1] == "driver_version") {
        smi.driver_version = line[2];
        return true;
      }
      return false;
    }
    if (line[0] == "device" && line.size() == 4) {
      const auto index = device_index(line[1]);
      if (!index) {
        return false;
      }
      SmiDevice& device = device_at(smi.devices, *index);
      const auto number = util::parse_number<std::uint64_t>(line[3]);
      if (line[2] == "vram_total") {
        device.vram_total = number;
      } else if (line[2] == "vram_used") {
        device.vram_used = number;
      } else if (line[2] == "pci_id") {
        device.pci_id = number;
      } else if (line[2] == "market_name") {
        device.market_name = line[3];
        return true;
      } else if (line[2] == "ecc_correctable") {
        device.ecc_correctable = number;
      } else if (line[2] == "ecc_uncorrectable") {
        device.ecc_uncorrectable = number;
      } else if (line[2] == "firmware_mec") {
        device.firmware_mec = number;
      } else if (line[2] == "firmware_smc") {
        device.firmware_smc = number;
      } else if (line[2] == "temperature_edge") {
        device.temperature_edge = util::parse_number<std::int64_t>(line[3]);
        return device.temperature_edge.has_value();
      } else {
        return false;
      }
      return true;
    }
    if (line[0] == "link" && line.size() == 5) {
      const auto from = device_index(line[1]);
      const auto to = device_index(line[2]);
      const auto type = util::parse_number<std::uint32_t>(line[3]);
      if (!from || !to || !type) {
        return false;
      }
      smi.links.push_back({*from, *to, *type, util::parse_number<std::uint64_t>(line[4])});
      return true;
    }
    return false;
  });
  return smi;
}

HsaRuntimeFacts parse_hsa_result(std::string_view text) {
  HsaRuntimeFacts hsa;
  read_result(text, hsa.load, [&](const std::vector<std::string>& line) {
    if (line[0] == "agent" && line.size() == 3) {
      hsa.agents.push_back({line[2], line[1]});
      return true;
    }
    return false;
  });
  return hsa;
}

std::string hip_version_text(std::int64_t version) {
  if (version < 0) {
    return std::to_string(version);
  }
  return fmt::format("{}.{}.{}", version / 10'000'000, version / 100'000 % 100, version % 100'000);
}

}  // namespace rocdoc::runtime
