// A pull reader over one rocdoc-report/1 document: it decodes the keys `rocdoc fleet` needs and
// skips every other value by scanning brackets and strings (memchr), without building a tree.
// What it extracts is validated strictly (types, UTF-8 escapes, sizes); what it skips is
// checked for balanced brackets and terminated strings only.
// Whole on purpose: one bounded pull reader; its scanner and the keys it decodes share state.
#include "src/fleet/report_reader.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rocdoc {
namespace {

class ReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The bytes that matter when a value is skipped: quotes and brackets.
constexpr std::array<bool, 256> k_structural = [] {
  std::array<bool, 256> table{};
  for (const unsigned char c : {'"', '{', '}', '[', ']'}) {
    table[c] = true;
  }
  return table;
}();

class Reader {
 public:
  explicit Reader(std::string_view text) : m_text(text) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw ReadError(what + " at byte " + std::to_string(m_pos));
  }

  void ws() {
    while (m_pos < m_text.size()) {
      const char c = m_text[m_pos];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return;
      }
      ++m_pos;
    }
  }

  char peek() {
    ws();
    if (m_pos >= m_text.size()) {
      fail("unexpected end of the document");
    }
    return m_text[m_pos];
  }

  void expect(char c) {
    if (peek() != c) {
      fail(std::string("expected '") + c + "'");
    }
    ++m_pos;
  }

  bool at_end() {
    ws();
    return m_pos >= m_text.size();
  }

  /// A string whose value is not needed: up to the closing quote that no backslash escapes.
  void skip_string() {
    ++m_pos;  // the opening quote
    for (;;) {
      const void* found = std::memchr(m_text.data() + m_pos, '"', m_text.size() - m_pos);
      if (found == nullptr) {
        fail("unterminated string");
      }
      const std::size_t quote =
          static_cast<std::size_t>(static_cast<const char*>(found) - m_text.data());
      std::size_t backslashes = 0;
      while (quote - backslashes > m_pos && m_text[quote - backslashes - 1] == '\\') {
        ++backslashes;
      }
      m_pos = quote + 1;
      if (backslashes % 2 == 0) {
        return;
      }
    }
  }

  /// Any value, not decoded: brackets must balance and strings end.
  void skip_value() {
    const char first = peek();
    if (first == '"') {
      skip_string();
      return;
    }
    if (first != '{' && first != '[') {
      skip_scalar();
      return;
    }
    char open[k_fleet_max_depth];
    int depth = 0;
    while (m_pos < m_text.size()) {
      m_pos = next_structural(m_pos);
      if (m_pos >= m_text.size()) {
        break;
      }
      const char c = m_text[m_pos];
      if (c == '"') {
        skip_string();
        continue;
      }
      if (c == '{' || c == '[') {
        if (depth + m_depth >= k_fleet_max_depth) {
          fail("nested deeper than " + std::to_string(k_fleet_max_depth));
        }
        open[depth++] = c;
      } else if (c == '}' || c == ']') {
        if (depth == 0 || open[depth - 1] != (c == '}' ? '{' : '[')) {
          fail(std::string("unbalanced '") + c + "'");
        }
        if (--depth == 0) {
          ++m_pos;
          return;
        }
      }
      ++m_pos;
    }
    fail("unexpected end of the document");
  }

  /// The first quote or bracket at or after `from`; the text's size when there is none.
  std::size_t next_structural(std::size_t from) const {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i open_brace = _mm_set1_epi8('{');
    const __m128i close_brace = _mm_set1_epi8('}');
    const __m128i bit = _mm_set1_epi8(0x20);  // '[' | 0x20 == '{', ']' | 0x20 == '}'
    while (from + 16 <= m_text.size()) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(m_text.data() + from));
      const __m128i folded = _mm_or_si128(bytes, bit);
      const __m128i hits = _mm_or_si128(
          _mm_cmpeq_epi8(bytes, quote),
          _mm_or_si128(_mm_cmpeq_epi8(folded, open_brace), _mm_cmpeq_epi8(folded, close_brace)));
      const int mask = _mm_movemask_epi8(hits);
      if (mask != 0) {
        return from + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
      }
      from += 16;
    }
#endif
    while (from < m_text.size() && !k_structural[static_cast<unsigned char>(m_text[from])]) {
      ++from;
    }
    return from;
  }

  void skip_scalar() {
    const std::size_t start = m_pos;
    while (m_pos < m_text.size()) {
      const char c = m_text[m_pos];
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' || c == '.' ||
            c == 'E')) {
        break;
      }
      ++m_pos;
    }
    const std::string_view word = m_text.substr(start, m_pos - start);
    if (word.empty()) {
      fail("expected a value");
    }
    if ((word[0] >= 'a' && word[0] <= 'z') && word != "true" && word != "false" && word != "null") {
      fail("not a JSON value");
    }
  }

  bool null() {
    if (peek() == 'n') {
      literal("null");
      return true;
    }
    return false;
  }

  bool boolean() {
    if (peek() == 't') {
      literal("true");
      return true;
    }
    literal("false");
    return false;
  }

  void literal(std::string_view word) {
    if (m_text.substr(m_pos, word.size()) != word) {
      fail("expected " + std::string(word));
    }
    m_pos += word.size();
  }

  /// A string value, decoded; longer than k_fleet_max_string_bytes is an error.
  std::string string() {
    std::string out;
    decode_string(out);
    return out;
  }

  /// A member's name: a view of the text when it has no escape (the usual case), else of a
  /// decoded copy that the next key() replaces.
  std::string_view key() {
    if (peek() != '"') {
      fail("expected a string");
    }
    if (const auto plain = plain_string()) {
      return *plain;
    }
    m_key.clear();
    decode_string(m_key);
    return m_key;
  }

  /// The string at m_pos when it holds no escape and no control byte: skipped, and returned as a
  /// view of the text; nullopt (nothing consumed) otherwise.
  std::optional<std::string_view> plain_string() {
    const std::size_t start = m_pos + 1;
    const void* found = std::memchr(m_text.data() + start, '"', m_text.size() - start);
    if (found == nullptr) {
      return std::nullopt;
    }
    const std::size_t end =
        static_cast<std::size_t>(static_cast<const char*>(found) - m_text.data());
    const std::string_view content = m_text.substr(start, end - start);
    if (content.size() > k_fleet_max_string_bytes) {
      return std::nullopt;
    }
    for (const char c : content) {
      if (c == '\\' || static_cast<unsigned char>(c) < 0x20) {
        return std::nullopt;
      }
    }
    m_pos = end + 1;
    return content;
  }

  void decode_string(std::string& out) {
    if (peek() != '"') {
      fail("expected a string");
    }
    if (const auto plain = plain_string()) {
      out.assign(plain->data(), plain->size());
      return;
    }
    ++m_pos;
    for (;;) {
      if (m_pos >= m_text.size()) {
        fail("unterminated string");
      }
      const char c = m_text[m_pos++];
      if (c == '"') {
        return;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        fail("control character in a string");
      }
      if (c != '\\') {
        out.push_back(c);
      } else {
        escape(out);
      }
      if (out.size() > k_fleet_max_string_bytes) {
        fail("a string over " + std::to_string(k_fleet_max_string_bytes) + " bytes");
      }
    }
  }

  std::optional<std::string> optional_string() {
    if (null()) {
      return std::nullopt;
    }
    return string();
  }

  /// Calls on_member(key) for each member; on_member must consume the value.
  template <typename F>
  void object(F&& on_member) {
    expect('{');
    Nest nest(*this);
    if (peek() == '}') {
      ++m_pos;
      return;
    }
    for (;;) {
      const std::string_view name = key();
      expect(':');
      on_member(name);
      const char c = peek();
      ++m_pos;
      if (c == '}') {
        return;
      }
      if (c != ',') {
        --m_pos;
        fail("expected ',' or '}'");
      }
    }
  }

  /// Calls on_element() for each element (at most k_fleet_max_entries).
  template <typename F>
  void array(F&& on_element) {
    expect('[');
    Nest nest(*this);
    if (peek() == ']') {
      ++m_pos;
      return;
    }
    std::size_t count = 0;
    for (;;) {
      if (++count > k_fleet_max_entries) {
        fail("an array of over " + std::to_string(k_fleet_max_entries) + " entries");
      }
      on_element();
      const char c = peek();
      ++m_pos;
      if (c == ']') {
        return;
      }
      if (c != ',') {
        --m_pos;
        fail("expected ',' or ']'");
      }
    }
  }

 private:
  struct Nest {
    explicit Nest(Reader& reader) : r(reader) {
      if (++r.m_depth > k_fleet_max_depth) {
        r.fail("nested deeper than " + std::to_string(k_fleet_max_depth));
      }
    }
    ~Nest() { --r.m_depth; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    Reader& r;
  };

  unsigned hex4() {
    if (m_pos + 4 > m_text.size()) {
      fail("short \\u escape");
    }
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = m_text[m_pos++];
      value <<= 4;
      if (h >= '0' && h <= '9') {
        value |= static_cast<unsigned>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        value |= static_cast<unsigned>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        value |= static_cast<unsigned>(h - 'A' + 10);
      } else {
        fail("bad \\u escape");
      }
    }
    return value;
  }

  void escape(std::string& out) {
    if (m_pos >= m_text.size()) {
      fail("unterminated string");
    }
    const char e = m_text[m_pos++];
    switch (e) {
      case '"':
        out.push_back('"');
        return;
      case '\\':
        out.push_back('\\');
        return;
      case '/':
        out.push_back('/');
        return;
      case 'b':
        out.push_back('\b');
        return;
      case 'f':
        out.push_back('\f');
        return;
      case 'n':
        out.push_back('\n');
        return;
      case 'r':
        out.push_back('\r');
        return;
      case 't':
        out.push_back('\t');
        return;
      case 'u':
        break;
      default:
        fail("bad escape");
    }
    unsigned code = hex4();
    if (code >= 0xd800 && code <= 0xdbff) {
      if (m_text.substr(m_pos, 2) != "\\u") {
        fail("lone surrogate");
      }
      m_pos += 2;
      const unsigned low = hex4();
      if (low < 0xdc00 || low > 0xdfff) {
        fail("lone surrogate");
      }
      code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      fail("lone surrogate");
    }
    if (code < 0x80) {
      out.push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out.push_back(static_cast<char>(0xc0 | (code >> 6)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
    } else if (code < 0x10000) {
      out.push_back(static_cast<char>(0xe0 | (code >> 12)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
    } else {
      out.push_back(static_cast<char>(0xf0 | (code >> 18)));
      out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
    }
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
  int m_depth = 0;
  std::string m_key;  ///< the last key that needed decoding
};

void read_check(Reader& r, FleetReport& report) {
  std::string id;
  std::string status;
  std::string severity;
  bool caused = false;
  r.object([&](std::string_view key) {
    if (key == "id") {
      id = r.string();
    } else if (key == "status") {
      status = r.string();
    } else if (key == "severity") {
      severity = r.string();
    } else if (key == "caused_by") {
      r.array([&] { caused = !r.string().empty() || caused; });
    } else {
      r.skip_value();
    }
  });
  if (id.empty()) {
    r.fail("a check without an id");
  }
  if (status != "pass" && status != "warn" && status != "fail" && status != "skip") {
    r.fail("check " + id + ": status '" + status + "' is not pass, warn, fail or skip");
  }
  if (severity != "error" && severity != "warning" && severity != "info") {
    r.fail("check " + id + ": severity '" + severity + "' is not error, warning or info");
  }
  const bool error = status == "fail";
  const bool warning = status == "warn" && severity == "warning";
  report.errors += error ? 1 : 0;
  report.warnings += warning ? 1 : 0;
  if ((error || warning) && !caused) {
    report.causes.push_back({id, error ? "error" : "warning"});
  }
}

void read_host(Reader& r, FleetReport& report) {
  r.object([&](std::string_view key) {
    if (key == "os") {
      report.os = r.optional_string();
    } else if (key == "kernel") {
      report.kernel = r.string();
    } else if (key == "snapshot") {
      r.object([&](std::string_view inner) {
        if (inner == "created") {
          report.capture_created = r.optional_string();
        } else {
          r.skip_value();
        }
      });
    } else {
      r.skip_value();
    }
  });
}

void read_inventory(Reader& r, FleetReport& report) {
  r.object([&](std::string_view key) {
    if (key != "gpus") {
      r.skip_value();
      return;
    }
    r.array([&] {
      std::string gfx = "unknown";
      r.object([&](std::string_view inner) {
        if (inner == "gfx_target") {
          gfx = r.optional_string().value_or("unknown");
        } else {
          r.skip_value();
        }
      });
      report.gfx.push_back(gfx);
    });
  });
}

void read_pci(Reader& r, FleetReport& report) {
  r.object([&](std::string_view key) {
    if (key != "devices") {
      r.skip_value();
      return;
    }
    r.array([&] {
      std::optional<std::string> gpu;
      std::vector<std::string> firmware;
      r.object([&](std::string_view inner) {
        if (inner == "gpu") {
          gpu = r.optional_string();
        } else if (inner == "firmware") {
          r.object([&](std::string_view name) {
            if (firmware.size() >= k_fleet_max_entries) {
              r.fail("over " + std::to_string(k_fleet_max_entries) + " firmware entries");
            }
            std::string entry(name);
            entry += '=';
            entry += r.string();
            firmware.push_back(std::move(entry));
          });
        } else {
          r.skip_value();
        }
      });
      if (gpu == "amd") {
        report.firmware.insert(report.firmware.end(), firmware.begin(), firmware.end());
      }
    });
  });
}

void read_python(Reader& r, FleetReport& report) {
  r.object([&](std::string_view key) {
    if (key != "environments") {
      r.skip_value();
      return;
    }
    r.array([&] {
      r.object([&](std::string_view inner) {
        if (inner != "torch" || r.null()) {
          if (inner != "torch") {
            r.skip_value();
          }
          return;
        }
        r.object([&](std::string_view field) {
          if (field == "version") {
            report.torch.push_back(r.string());
          } else {
            r.skip_value();
          }
        });
      });
    });
  });
}

void read_facts(Reader& r, FleetReport& report) {
  r.object([&](std::string_view key) {
    if (key == "pci" && !r.null()) {
      read_pci(r, report);
    } else if (key == "driver" && !r.null()) {
      report.driver_known = true;
      r.object([&](std::string_view inner) {
        if (inner == "amdgpu_loaded") {
          report.amdgpu_loaded = r.boolean();
        } else if (inner == "dkms_version") {
          report.dkms_version = r.optional_string();
        } else {
          r.skip_value();
        }
      });
    } else if (key == "rocm" && !r.null()) {
      report.rocm_known = true;
      r.object([&](std::string_view inner) {
        if (inner == "opt_rocm_version") {
          report.rocm = r.optional_string();
        } else {
          r.skip_value();
        }
      });
    } else if (key == "python" && !r.null()) {
      report.python_known = true;
      read_python(r, report);
    } else if (key != "pci" && key != "driver" && key != "rocm" && key != "python") {
      r.skip_value();
    }
  });
}

void read_topology(Reader& r, FleetReport& report) {
  report.topology_known = true;
  r.object([&](std::string_view key) {
    if (key != "links") {
      r.skip_value();
      return;
    }
    r.array([&] {
      if (report.links.size() >= k_fleet_max_entries) {
        r.fail("over " + std::to_string(k_fleet_max_entries) + " GPU links");
      }
      std::string type = "unknown";
      std::string p2p = "unknown";
      bool down = false;
      r.object([&](std::string_view inner) {
        if (inner == "type") {
          type = r.string();
        } else if (inner == "p2p") {
          p2p = r.string();
        } else if (inner == "hive_without_xgmi") {
          down = r.boolean();
        } else {
          r.skip_value();
        }
      });
      report.links.push_back(type + (down           ? " xgmi-down"
                                     : p2p == "no"  ? " refused"
                                     : p2p == "yes" ? ""
                                                    : " p2p-unknown"));
    });
  });
}

FleetReport read_report(Reader& r) {
  FleetReport report;
  std::string schema;
  bool has_checks = false;
  r.object([&](std::string_view key) {
    if (key == "schema") {
      schema = r.string();
      if (schema != "rocdoc-report/1") {
        r.fail("schema '" + schema + "' is not rocdoc-report/1");
      }
    } else if (key == "created") {
      report.created = r.string();
    } else if (key == "checks") {
      has_checks = true;
      r.array([&] { read_check(r, report); });
    } else if (key == "host") {
      read_host(r, report);
    } else if (key == "inventory") {
      read_inventory(r, report);
    } else if (key == "topology" && !r.null()) {
      read_topology(r, report);
    } else if (key == "facts") {
      read_facts(r, report);
    } else {
      r.skip_value();
    }
  });
  if (!r.at_end()) {
    r.fail("text after the document");
  }
  if (schema.empty()) {
    throw ReadError("no schema: not a rocdoc report");
  }
  if (!has_checks) {
    throw ReadError("no checks: not a complete rocdoc report");
  }
  return report;
}

}  // namespace

FleetParse parse_fleet_report(std::string_view json) {
  FleetParse parse;
  if (json.size() > k_fleet_max_report_bytes) {
    parse.problem = "over " + std::to_string(k_fleet_max_report_bytes >> 20) + " MiB";
    return parse;
  }
  try {
    Reader reader(json);
    if (reader.at_end()) {
      parse.problem = "empty";
      return parse;
    }
    parse.report = read_report(reader);
  } catch (const ReadError& error) {
    parse.problem = error.what();
  } catch (const std::bad_alloc&) {
    parse.problem = "out of memory";
  }
  return parse;
}

}  // namespace rocdoc
