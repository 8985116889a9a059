// Layouts: pyenv (pyenv/pyenv libexec/pyenv-version-name, pyenv-version-file-read), conda
// (~/.conda/environments.txt, conda-meta/), uv (docs.astral.sh/uv/concepts/python-versions),
// Fedora/RHEL lib64 platlib and venvs' lib64 -> lib link (CPython's venv module).
#include "probes/python_locations.h"

#include <algorithm>

#include "src/hosts/path_in_root.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

bool is_directory(const Host& host, const std::string& path) {
  const auto stat = host.stat(path);
  return stat && stat->type == FileType::directory;
}

void add_unique(std::vector<std::string>& list, std::string value) {
  if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end()) {
    list.push_back(std::move(value));
  }
}

/// pyenv's "3.11" names the newest installed 3.11.x.
std::optional<std::string> pyenv_installed(const Host& host, const std::string& versions,
                                           const std::string& name) {
  if (is_directory(host, versions + "/" + name)) {
    return name;
  }
  std::optional<std::string> best;
  if (const auto names = host.list_dir(versions)) {
    for (const auto& candidate : *names) {
      if (candidate.rfind(name + ".", 0) == 0 &&
          (!best || util::version_numbers(candidate) > util::version_numbers(*best))) {
        best = candidate;
      }
    }
  }
  return best;
}

}  // namespace

std::optional<std::string> home_from_passwd(std::string_view passwd, std::string_view user) {
  for (const auto line : util::lines(passwd)) {
    const auto fields = util::split(line, ':');
    if (fields.size() >= 7 && fields[0] == user && !fields[5].empty() && fields[5].front() == '/') {
      return std::string(fields[5]);
    }
  }
  return std::nullopt;
}

std::vector<std::string> user_homes(const Host& host) {
  std::vector<std::string> homes;
  const auto passwd = host.read_file("/etc/passwd", 1 << 20);
  const auto home_of = [&](const std::string& user, bool root) {
    if (passwd) {
      if (auto home = home_from_passwd(*passwd, user)) {
        return *home;
      }
    }
    return root ? std::string("/root") : "/home/" + user;
  };
  const Identity identity = host.identity();
  if (identity.uid == 0) {
    if (const auto sudo_user = host.env("SUDO_USER"); sudo_user && !sudo_user->empty()) {
      add_unique(homes, home_of(*sudo_user, *sudo_user == "root"));
    }
  }
  if (!identity.user.empty()) {
    add_unique(homes, home_of(identity.user, identity.uid == 0));
  }
  return homes;
}

std::vector<std::string> parse_pyenv_version_file(std::string_view content) {
  std::vector<std::string> names;
  for (const auto line : util::lines(content)) {
    const auto words = util::split_whitespace(util::trim(line));
    if (words.empty() || words.front().empty() || words.front().front() == '#') {
      continue;
    }
    names.emplace_back(words.front());
  }
  return names;
}

std::vector<PythonPrefix> pyenv_prefixes(const Host& host, const std::string& home) {
  std::vector<PythonPrefix> prefixes;
  const std::string root = host.env("PYENV_ROOT").value_or(home + "/.pyenv");
  if (!is_directory(host, root + "/versions")) {
    return prefixes;
  }
  std::vector<std::string> names;
  std::string from;
  if (const auto variable = host.env("PYENV_VERSION"); variable && !variable->empty()) {
    for (const auto part : util::split(*variable, ':')) {
      names.emplace_back(util::trim(part));
    }
    from = "PYENV_VERSION";
  } else if (const auto local = host.read_file(home + "/.python-version", 4096)) {
    names = parse_pyenv_version_file(*local);
    from = home + "/.python-version";
  } else if (const auto global = host.read_file(root + "/version", 4096)) {
    names = parse_pyenv_version_file(*global);
    from = root + "/version";
  }
  for (auto name : names) {
    if (name.rfind("python-", 0) == 0) {
      name = name.substr(7);
    }
    if (name.empty() || name == "system" || name.find('/') != std::string::npos) {
      continue;  // "system" is the distribution's Python, searched anyway
    }
    if (const auto installed = pyenv_installed(host, root + "/versions", name)) {
      prefixes.push_back(
          {root + "/versions/" + *installed, "pyenv " + *installed + " from " + from});
    }
  }
  return prefixes;
}

std::vector<PythonPrefix> conda_prefixes(const Host& host, const std::string& home) {
  std::vector<std::string> bases;
  for (const char* name : {"miniconda3", "miniforge3", "anaconda3", "mambaforge", "micromamba"}) {
    add_unique(bases, home + "/" + name);
  }
  add_unique(bases, "/opt/conda");
  std::vector<std::string> listed;
  if (const auto text = host.read_file(home + "/.conda/environments.txt", 64 * 1024)) {
    for (const auto line : util::lines(*text)) {
      const std::string prefix(util::trim(line));
      if (!prefix.empty() && prefix.front() == '/') {
        add_unique(listed, prefix);
      }
    }
    check_bound(listed.size(), k_max_python_prefixes, "conda environments",
                home + "/.conda/environments.txt");
  }
  std::vector<PythonPrefix> prefixes;
  const auto add = [&](const std::string& prefix, const std::string& found_by) {
    if (std::none_of(prefixes.begin(), prefixes.end(),
                     [&](const PythonPrefix& p) { return p.prefix == prefix; }) &&
        is_directory(host, prefix + "/conda-meta")) {
      prefixes.push_back({prefix, found_by});
    }
  };
  for (const auto& base : bases) {
    add(base, "conda base " + base);
    if (const auto envs = host.list_dir(base + "/envs")) {
      check_bound(envs->size(), k_max_python_prefixes, "conda environments", base + "/envs");
      for (const auto& name : *envs) {
        add(base + "/envs/" + name, "conda env " + name);
      }
    }
  }
  if (const auto envs = host.list_dir(home + "/.conda/envs")) {
    check_bound(envs->size(), k_max_python_prefixes, "conda environments", home + "/.conda/envs");
    for (const auto& name : *envs) {
      add(home + "/.conda/envs/" + name, "conda env " + name);
    }
  }
  for (const auto& prefix : listed) {
    add(prefix,
        "conda env " + prefix.substr(prefix.rfind('/') + 1) + " (~/.conda/environments.txt)");
  }
  return prefixes;
}

std::vector<PythonPrefix> uv_prefixes(const Host& host, const std::string& home) {
  std::vector<PythonPrefix> prefixes;
  const std::string dir =
      host.env("UV_PYTHON_INSTALL_DIR").value_or(home + "/.local/share/uv/python");
  if (const auto names = host.list_dir(dir)) {
    check_bound(names->size(), k_max_python_prefixes, "entries", dir);
    for (const auto& name : *names) {
      // cpython-3.12.14-linux-x86_64-gnu; cpython-3.12-linux-... is a link to it.
      if (name.rfind("cpython-", 0) == 0 && !host.read_link(dir + "/" + name)) {
        prefixes.push_back({dir + "/" + name, "uv-managed Python " + name});
      }
    }
  }
  return prefixes;
}

std::vector<std::string> lib_dirs(const Host& host, const std::string& prefix) {
  std::vector<std::string> dirs = {prefix + "/lib"};
  const auto link = host.read_link(prefix + "/lib64");
  const bool to_lib = link && (*link == "lib" || *link == "lib/" || *link == prefix + "/lib");
  if (!to_lib && is_directory(host, prefix + "/lib64")) {
    dirs.push_back(prefix + "/lib64");
  }
  return dirs;
}

std::string resolve_links(const Host& host, const std::string& path) {
  LinksRead read;
  return resolve_links(host, path, read);
}

std::string resolve_links(const Host& host, const std::string& path, LinksRead& read) {
  std::vector<std::string> pending;
  const std::string normalized = normalize_absolute(path);
  for (const auto part : util::split(normalized, '/')) {
    if (!part.empty()) {
      pending.emplace_back(part);
    }
  }
  std::reverse(pending.begin(), pending.end());
  std::string resolved;
  for (int hops = 0, steps = 0; !pending.empty();) {
    if (++steps > k_max_link_walk) {
      return normalized;  // hostile link targets: leave the path unresolved
    }
    const std::string next = resolved + "/" + pending.back();
    pending.pop_back();
    auto known = read.find(next);
    if (known == read.end()) {
      known = read.emplace(next, host.read_link(next)).first;
    }
    const std::optional<std::string>& target = known->second;
    if (!target || target->empty() || ++hops > 40) {
      resolved = next;
      continue;
    }
    // Replace the link by its target and go on with what is left of the path.
    const std::string base = target->front() == '/' ? std::string() : resolved;
    std::vector<std::string> parts;
    for (const auto part : util::split(*target, '/')) {
      if (!part.empty()) {
        parts.emplace_back(part);
      }
    }
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      pending.push_back(*it);
    }
    resolved = base;
    while (!pending.empty() && (pending.back() == "." || pending.back() == "..")) {
      if (pending.back() == "..") {
        resolved = resolved.empty() ? resolved : util::parent_path(resolved);
        resolved = resolved == "/" ? "" : resolved;
      }
      pending.pop_back();
    }
  }
  return resolved.empty() ? "/" : resolved;
}

std::string follow_links(const Host& host, const std::string& path) {
  std::string current = path;
  for (int hop = 0; hop < 8; ++hop) {
    const auto target = host.read_link(current);
    if (!target || target->empty()) {
      break;
    }
    current = normalize_absolute(
        target->front() == '/' ? *target : util::parent_path(current) + "/" + *target);
  }
  return current;
}

}  // namespace rocdoc
