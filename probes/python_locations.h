// Where Python environments live, found from files: venvs, PATH, pyenv, conda, uv, the
// distribution's directories. Nothing here runs Python.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/host.h"

namespace rocdoc {

/// Places that may hold a Python environment (conda envs, PATH entries, ...) rocdoc looks at,
/// at most: a developer's machine has tens (docs/snapshot-extensions.md lists the bounds).
inline constexpr std::size_t k_max_python_prefixes = 512;
/// Path components resolve_links() walks, links' included, before giving up.
inline constexpr int k_max_link_walk = 256;

/// A Python prefix to search, and how it was found ("VIRTUAL_ENV", "pyenv 3.11.7 ...").
struct PythonPrefix {
  std::string prefix;
  std::string found_by;
};

/// The home directories whose environments matter (from /etc/passwd): the process user's, and
/// under sudo first the invoking user's (sudo drops VIRTUAL_ENV and CONDA_PREFIX, not their
/// environments). HOME is not on the privacy allow-list.
std::vector<std::string> user_homes(const Host& host);

/// /etc/passwd: the home directory of a user; nullopt when the user is not listed.
std::optional<std::string> home_from_passwd(std::string_view passwd, std::string_view user);

/// pyenv's version file: the first word of each line, '#' comments skipped ("3.11.7").
std::vector<std::string> parse_pyenv_version_file(std::string_view content);

/// Prefixes of the environments pyenv selects: PYENV_VERSION, else ~/.python-version, else
/// $(pyenv root)/version; "system" is the system Python; "3.11" is the newest 3.11.x.
std::vector<PythonPrefix> pyenv_prefixes(const Host& host, const std::string& home);

/// conda bases (~/miniconda3, ~/miniforge3, ~/anaconda3, ~/mambaforge, /opt/conda, the
/// prefixes in ~/.conda/environments.txt) and their envs/<name>.
std::vector<PythonPrefix> conda_prefixes(const Host& host, const std::string& home);

/// Interpreters uv manages: $UV_PYTHON_INSTALL_DIR or ~/.local/share/uv/python, cpython-*.
std::vector<PythonPrefix> uv_prefixes(const Host& host, const std::string& home);

/// The lib directories of a prefix that hold python3.N: lib, and lib64 unless it is a link
/// to lib (every venv has one: one environment, not two).
std::vector<std::string> lib_dirs(const Host& host, const std::string& prefix);

/// The path with every symbolic link in it resolved (at most 40 links): two names of one
/// directory give the same string (uv's cpython-3.12 link beside cpython-3.12.14). A path
/// whose walk takes more than k_max_link_walk components is returned normalized, unresolved.
std::string resolve_links(const Host& host, const std::string& path);

/// What read_link() said of each path asked (nullopt: not a link), for resolve_links() calls
/// that resolve many paths under the same directories (/usr, /usr/lib, /usr/local/lib ...): each
/// link is read once.
using LinksRead = std::map<std::string, std::optional<std::string>, std::less<>>;

/// resolve_links(), reading each link through `read`.
std::string resolve_links(const Host& host, const std::string& path, LinksRead& read);

/// Follows a chain of symbolic links (at most 8) to the file it ends at.
std::string follow_links(const Host& host, const std::string& path);

}  // namespace rocdoc
