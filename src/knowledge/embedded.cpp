// The rules compiled into the binary, and --rules DIR.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <future>
#include <memory>
#include <mutex>
#include <string_view>
#include <system_error>

#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_loader.h"
#include "src/hosts/live.h"
#include "src/util/strings.h"
#include "src/util/unique_fd.h"

namespace rocdoc {

namespace {

bool is_yaml_name(std::string_view name) {
  return name.size() >= 5 && name.substr(name.size() - 5) == ".yaml";
}

/// The entries of DIR, sorted; at most k_max_rules_dir_entries.
std::vector<std::string> rules_dir_entries(const std::string& dir) {
  const std::unique_ptr<DIR, int (*)(DIR*)> handle(::opendir(dir.c_str()), ::closedir);
  if (!handle) {
    throw RulesError(dir, 0, 0, "cannot read the rules directory (" + errno_name(errno) + ")");
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(handle.get())) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") {
      continue;
    }
    if (names.size() == k_max_rules_dir_entries) {
      throw RulesError(dir, 0, 0,
                       "the rules directory holds more than " +
                           std::to_string(k_max_rules_dir_entries) +
                           " entries; it should hold only the rules files");
    }
    names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string known_names() {
  std::vector<std::string> names;
  for (const auto& embedded : embedded_rule_files()) {
    names.emplace_back(embedded.name);
  }
  std::sort(names.begin(), names.end());
  return util::join(names, ", ");
}

bool is_known(std::string_view name) {
  const auto& known = embedded_rule_files();
  return std::any_of(known.begin(), known.end(),
                     [&](const EmbeddedRuleFile& file) { return file.name == name; });
}

/// "a FIFO" for what a rules file must not be.
std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO";
  }
  if (S_ISCHR(mode)) {
    return "a character device";
  }
  if (S_ISBLK(mode)) {
    return "a block device";
  }
  return S_ISSOCK(mode) ? "a socket" : "not a plain file";
}

/// Refuses what is not a regular file of at most k_max_rules_file_bytes.
void require_rules_file(const std::string& path, const struct ::stat& st) {
  if (!S_ISREG(st.st_mode)) {
    throw RulesError(path, 0, 0, "not a regular file (" + file_kind(st.st_mode) + ")");
  }
  if (static_cast<std::uintmax_t>(st.st_size) > k_max_rules_file_bytes) {
    throw RulesError(path, 0, 0,
                     oversize_rules_file_problem(static_cast<std::uintmax_t>(st.st_size)));
  }
}

[[noreturn]] void cannot_read(const std::string& path, int error) {
  throw RulesError(path, 0, 0, "cannot read the file (" + errno_name(error) + ")");
}

/// Reads to the end; a file that grows past the limit while it is read is refused, never cut.
std::string read_to_end(const std::string& path, const util::UniqueFd& file) {
  std::string content;
  std::array<char, 65536> buffer{};
  while (content.size() <= k_max_rules_file_bytes) {
    const ssize_t n = ::read(file.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      cannot_read(path, errno);
    }
    if (n == 0) {
      return content;
    }
    content.append(buffer.data(), static_cast<std::size_t>(n));
  }
  throw RulesError(path, 0, 0, oversize_rules_file_problem(content.size()));
}

/// The whole file, checked before it is opened (a FIFO or a device is never opened) and again
/// on the open descriptor.
std::string read_rules_file(const std::string& path) {
  struct ::stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    cannot_read(path, errno);
  }
  require_rules_file(path, st);
  const util::UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!file.valid() || ::fstat(file.get(), &st) != 0) {
    cannot_read(path, errno);
  }
  require_rules_file(path, st);
  return read_to_end(path, file);
}

}  // namespace

const Knowledge& embedded_knowledge(KnowledgeParts parts) {
  // Validated at build time (rocdoc_rulesc) and compiled in as code: parsing YAML or JSON at
  // every start would cost more than the whole check. One per set of parts, kept (reachable
  // from here) until the process ends.
  static std::mutex built_lock;
  static std::array<const Knowledge*, static_cast<std::size_t>(KnowledgeParts::all) + 1> built{};
  const std::lock_guard<std::mutex> hold(built_lock);
  const Knowledge*& kept = built.at(static_cast<std::size_t>(parts));
  if (kept == nullptr) {
    auto knowledge = std::make_unique<Knowledge>();
    knowledge->built = parts;
    knowledge->origin = "embedded";
    if (holds(parts, KnowledgeParts::machine)) {
      add_embedded_machine_rules(*knowledge);
    }
    if (holds(parts, KnowledgeParts::triage)) {
      add_embedded_triage_rules(*knowledge);
    }
    if (holds(parts, KnowledgeParts::code)) {
      add_embedded_code_rules(*knowledge);
    }
    kept = knowledge.release();
  }
  return *kept;
}

Knowledge load_embedded_knowledge() { return embedded_knowledge(KnowledgeParts::all); }

Knowledge load_knowledge_dir(const std::string& dir) {
  std::vector<std::string> names;
  for (auto& name : rules_dir_entries(dir)) {
    if (!is_yaml_name(name)) {
      continue;  // README.md, an editor's torch.yaml~
    }
    if (!is_known(name)) {
      throw RulesError(dir + "/" + name, 0, 0,
                       "not a rules file; the rules files are " + known_names());
    }
    names.push_back(std::move(name));
  }
  if (names.empty()) {
    // A mistyped path (or /etc) would otherwise be "valid": the embedded rules, all of them.
    throw RulesError(dir, 0, 0, "no rules files here; a rules directory holds " + known_names());
  }
  std::vector<RuleText> files;
  for (const auto& name : names) {
    const std::string path = dir + "/" + name;
    files.push_back({path, read_rules_file(path)});
  }
  for (const auto& embedded : embedded_rule_files()) {
    if (find_rule_file(files, embedded.name) == nullptr) {
      files.push_back({"rules/" + std::string(embedded.name), std::string(embedded.content)});
    }
  }
  return load_knowledge(files, dir);
}

std::shared_ptr<const Knowledge> load_rules(const std::string& dir, KnowledgeParts parts) {
  if (dir.empty()) {
    // Not owned: the embedded rules live as long as the process.
    return {std::shared_ptr<const Knowledge>(), &embedded_knowledge(parts)};
  }
  return std::make_shared<const Knowledge>(load_knowledge_dir(dir));
}

KnowledgeSource start_loading_rules(const std::string& dir, KnowledgeParts parts) {
  if (!dir.empty()) {
    return KnowledgeSource(load_rules(dir, parts));
  }
  try {
    return KnowledgeSource(
        std::async(std::launch::async, [parts] { return load_rules("", parts); }).share());
  } catch (const std::system_error&) {
    return KnowledgeSource(load_rules("", parts));  // no thread to be had: built here
  }
}

}  // namespace rocdoc
