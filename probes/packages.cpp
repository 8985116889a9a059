// The rpm database is read by rocdoc's own reader of the SQLite file format
// (src/util/sqlite_file.cpp) and of rpm's header blob (parse_rpm_header), not through
// libsqlite3 or librpm:
// - the Host hands a probe bytes, not a path on the live disk: a snapshot's captured
//   rpmdb.sqlite must read the same on a support machine, which may have no libsqlite3, no
//   librpm, or a libsqlite3 built without sqlite3_deserialize (an option before SQLite 3.36;
//   RHEL 9 ships 3.34), so a reader of our own gives one answer everywhere;
// - a stranger's snapshot is hostile input: a small reader that follows only table b-tree pages
//   with every offset checked (and a fuzz harness) is easier to trust than a whole SQL engine
//   opened on crafted bytes;
// - it needs no dlopen and no link-time dependency (the release binary starts on machines
//   without either library), and parses only the pages of the packages it keeps (the file itself
//   is read whole, within k_rpmdb_cap; a snapshot keeps only those pages).
// Not read, but named in the facts when present: rpm's BerkeleyDB `Packages` (RHEL/CentOS 8 and
// older) and SUSE's ndb `Packages.db` (SLE 15, openSUSE Leap 15).
#include "probes/packages.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <set>
#include <tuple>

#include "src/util/byte_size.h"
#include "src/util/sqlite_file.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// Whether text[start, end) is a blank line, which ends a stanza: empty, or only white space
/// (util::trim's: space, tab, CR).
bool is_blank_line(std::string_view text, std::size_t start, std::size_t end) {
  return util::trim(text.substr(start, end - start)).empty();
}

/// The start of the stanza holding the line that starts at `line`: the line after the blank line
/// before it, or the start of the text.
std::size_t stanza_start(std::string_view text, std::size_t line) {
  while (line > 0) {
    const std::size_t previous = line == 1 ? 0 : text.rfind('\n', line - 2) + 1;  // npos + 1 = 0
    if (is_blank_line(text, previous, line - 1)) {
      return line;
    }
    line = previous;
  }
  return 0;
}

/// The end of the stanza holding the line that starts at `line`: the start of the blank line
/// after it, or the end of the text.
std::size_t stanza_end(std::string_view text, std::size_t line) {
  while (line < text.size()) {
    const std::size_t end = std::min(text.find('\n', line), text.size());
    if (is_blank_line(text, line, end)) {
      return line;
    }
    line = end + 1;
  }
  return text.size();
}

/// The value of `field` on the line that starts at `line` and names it ("Package: rocm-core" →
/// "rocm-core"): the rest of that line, trimmed.
std::string_view field_value_at(std::string_view text, std::size_t line, std::string_view field) {
  const std::string_view value = text.substr(line + field.size() + 1);
  return util::trim(value.substr(0, value.find('\n')));  // trim takes a CRLF's CR too
}

/// The value of `field` in a stanza (its first line only), or empty. Read in place: a status file
/// of a desktop holds thousands of stanzas, most of them looked at for their Package line only.
std::string_view field_of(std::string_view stanza, std::string_view field) {
  std::size_t start = 0;
  while (start < stanza.size()) {
    const std::size_t end = std::min(stanza.find('\n', start), stanza.size());
    const std::string_view line = stanza.substr(start, end - start);
    if (line.size() > field.size() && line[field.size()] == ':' && line.starts_with(field)) {
      return field_value_at(stanza, start, field);
    }
    start = end + 1;
  }
  return {};
}

/// Calls `visit` with each stanza of a deb-control file (paragraphs separated by blank lines)
/// whose Package field (its first) names a kept package. A status file of a desktop holds
/// thousands of stanzas, mostly descriptions, and a few dozen are kept: only the lines that start
/// with "Package:" are looked at, and a stanza's bounds are found only around a kept name.
template <typename Visit>
void for_each_kept_stanza(std::string_view text, Visit visit) {
  std::size_t visited = 0;  // the end of the last stanza looked at whole
  for (std::size_t at = text.find("Package:"); at != std::string_view::npos;
       at = text.find("Package:", at + 1)) {
    if (at < visited || (at > 0 && text[at - 1] != '\n') ||
        !is_kept_package(field_value_at(text, at, "Package"))) {
      continue;
    }
    const std::size_t start = stanza_start(text, at);
    visited = stanza_end(text, at);
    const std::string_view stanza = text.substr(start, visited - start);
    // Its first Package line decides (a stanza may hold two; field_of reads the first).
    if (is_kept_package(field_of(stanza, "Package"))) {
      visit(stanza);
    }
  }
}

std::optional<PackageDatabase> database_file(const Host& host, PackageManager manager,
                                             const std::string& path, std::uint64_t cap) {
  const auto stat = host.stat(path);
  if (!stat) {
    return std::nullopt;
  }
  PackageDatabase database;
  database.manager = manager;
  database.path = path;
  database.size = stat->size;
  database.cap = cap;
  if (stat->size > cap) {
    database.state = PackageDatabase::State::too_large;
    database.problem = fmt::format("{} is over rocdoc's cap of {}: not read",
                                   util::byte_size_text(stat->size), util::byte_size_text(cap));
  }
  return database;
}

/// A database whose read failed (`read.content` empty) or that grew to its cap since the stat
/// is not read: its state and problem say which. True when it was read whole.
bool read_whole(const FileRead& read, std::uint64_t size, PackageDatabase& database) {
  if (!read.content) {
    database.state = PackageDatabase::State::unreadable;
    database.problem = read.error.empty() ? std::string("not readable") : read.error;
    return false;
  }
  if (size >= *database.cap) {
    database.state = PackageDatabase::State::too_large;
    database.problem = fmt::format("grew past rocdoc's cap of {} while read: not read",
                                   util::byte_size_text(*database.cap));
    return false;
  }
  return true;
}

/// Reads a database file that is within its cap; a file that grew past it since the stat is
/// too large as well.
std::optional<std::string> read_database(const Host& host, PackageDatabase& database) {
  if (database.state != PackageDatabase::State::read) {
    return std::nullopt;
  }
  FileRead read = host.read_file_or_error(database.path, static_cast<std::size_t>(*database.cap));
  const std::uint64_t size = read.content ? read.content->size() : 0;
  if (!read_whole(read, size, database)) {
    return std::nullopt;
  }
  return std::move(read.content);
}

void sort_packages(std::vector<InstalledPackage>& packages) {
  std::sort(packages.begin(), packages.end(),
            [](const InstalledPackage& a, const InstalledPackage& b) {
              return std::tie(a.name, a.version, a.arch) < std::tie(b.name, b.version, b.arch);
            });
}

std::optional<PackageDatabase> read_dpkg(const Host& host) {
  auto database =
      database_file(host, PackageManager::dpkg, "/var/lib/dpkg/status", k_dpkg_status_cap);
  if (!database || database->state != PackageDatabase::State::read) {
    return database;
  }
  // Read in pieces: a status file of megabytes is scanned once and never held whole.
  DpkgStatusReader reader;
  std::uint64_t total = 0;
  const FileRead read = host.read_file_pieces(
      database->path, static_cast<std::size_t>(*database->cap), [&](std::string_view piece) {
        total += piece.size();
        reader.feed(piece);
      });
  if (read_whole(read, total, *database)) {
    database->packages = reader.finish();
  }
  return database;
}

std::optional<PackageDatabase> read_rpm(const Host& host) {
  // Fedora 36+ and openSUSE keep it in /usr/lib/sysimage/rpm (/var/lib/rpm links there).
  for (const std::string dir : {"/var/lib/rpm", "/usr/lib/sysimage/rpm"}) {
    if (auto database =
            database_file(host, PackageManager::rpm, dir + "/rpmdb.sqlite", k_rpmdb_cap)) {
      if (const auto bytes = read_database(host, *database)) {
        try {
          database->packages = read_rpmdb_sqlite(*bytes);
          sort_packages(database->packages);
        } catch (const util::SqliteFormatError& error) {
          database->state = PackageDatabase::State::malformed;
          database->problem = error.what();
        }
      }
      return database;
    }
    for (const auto& [file, format] :
         {std::pair<const char*, const char*>{"/Packages",
                                              "rpm's BerkeleyDB database (RHEL/CentOS 8 and "
                                              "older), which rocdoc does not read"},
          {"/Packages.db", "SUSE's ndb database, which rocdoc does not read"}}) {
      if (const auto stat = host.stat(dir + file)) {
        PackageDatabase database;
        database.manager = PackageManager::rpm;
        database.path = dir + file;
        database.size = stat->size;
        database.state = PackageDatabase::State::unsupported;
        database.problem = format;
        return database;
      }
    }
  }
  return std::nullopt;
}

std::optional<PackageDatabase> read_pacman(const Host& host) {
  const std::string dir = "/var/lib/pacman/local";
  const auto names = host.list_dir(dir);
  if (!names) {
    return std::nullopt;
  }
  check_bound(names->size(), k_pacman_entries_bound, "entries", dir);
  PackageDatabase database;
  database.manager = PackageManager::pacman;
  database.path = dir;
  for (const auto& entry : *names) {
    // <name>-<pkgver>-<pkgrel>: neither pkgver nor pkgrel holds a '-'.
    const auto rel = entry.rfind('-');
    const auto ver =
        rel == std::string::npos || rel == 0 ? std::string::npos : entry.rfind('-', rel - 1);
    if (ver == std::string::npos || ver == 0 || !is_kept_package(entry.substr(0, ver))) {
      continue;
    }
    const auto desc = host.read_file(dir + "/" + entry + "/desc", k_pacman_desc_cap);
    auto package = desc ? parse_pacman_desc(*desc) : std::nullopt;
    if (!package) {
      package = InstalledPackage{entry.substr(0, ver), entry.substr(ver + 1), "", std::nullopt};
    }
    database.packages.push_back(std::move(*package));
  }
  sort_packages(database.packages);
  return database;
}

std::uint32_t big_endian32(std::string_view bytes, std::size_t at) {
  return (std::uint32_t{static_cast<unsigned char>(bytes[at])} << 24) |
         (std::uint32_t{static_cast<unsigned char>(bytes[at + 1])} << 16) |
         (std::uint32_t{static_cast<unsigned char>(bytes[at + 2])} << 8) |
         std::uint32_t{static_cast<unsigned char>(bytes[at + 3])};
}

}  // namespace

bool is_kept_package(std::string_view name) {
  static constexpr std::array<std::string_view, 8> k_prefixes = {
      "rocm", "amdgpu", "hip", "hsa", "miopen", "rccl", "libamdhip64", "libhsa-runtime64"};
  static constexpr std::array<std::string_view, 12> k_names = {
      "python3-torch",  "linux",          "linux-lts",      "linux-zen",
      "linux-hardened", "linux-rt",       "linux-rt-lts",   "kernel",
      "kernel-core",    "kernel-default", "kernel-rt-core", "kernel-64k-core"};
  return std::any_of(k_prefixes.begin(), k_prefixes.end(),
                     [&](std::string_view prefix) { return name.starts_with(prefix); }) ||
         std::find(k_names.begin(), k_names.end(), name) != k_names.end() ||
         name.starts_with("linux-image-") || name.starts_with("python-pytorch");
}

std::vector<InstalledPackage> parse_dpkg_status(std::string_view text) {
  DpkgStatusReader reader;
  reader.feed(text);
  return reader.finish();
}

void DpkgStatusReader::feed(std::string_view piece) {
  // Whole stanzas are parsed in the piece itself; only the start of an unfinished one is copied
  // (a blank line "\n\n" always ends a stanza; white-space lines end one too, and parse() finds
  // those inside what it is given).
  if (!m_pending.empty()) {
    const bool straddles = m_pending.back() == '\n' && !piece.empty() && piece.front() == '\n';
    const std::size_t first = straddles ? 0 : piece.find("\n\n");
    if (first == std::string_view::npos) {
      m_pending.append(piece);
      return;
    }
    const std::size_t cut = straddles ? 1 : first + 2;
    m_pending.append(piece.substr(0, cut));
    parse(m_pending);
    m_pending.clear();
    piece.remove_prefix(cut);
  }
  const std::size_t end = piece.rfind("\n\n");
  if (end == std::string_view::npos) {
    m_pending.assign(piece);
    return;
  }
  parse(piece.substr(0, end + 2));
  m_pending.assign(piece.substr(end + 2));
}

std::vector<InstalledPackage> DpkgStatusReader::finish() {
  parse(m_pending);
  m_pending.clear();
  sort_packages(m_packages);
  return std::move(m_packages);
}

void DpkgStatusReader::parse(std::string_view stanzas) {
  std::vector<InstalledPackage>& packages = m_packages;
  for_each_kept_stanza(stanzas, [&](std::string_view stanza) {
    const std::string_view name = field_of(stanza, "Package");
    // Status: <want> <flag> <status>
    const auto status = util::split_whitespace(field_of(stanza, "Status"));
    const std::string_view state = status.size() == 3 ? status[2] : std::string_view("unknown");
    const std::string_view version = field_of(stanza, "Version");
    if (state == "not-installed" || state == "config-files" || version.empty()) {
      return;
    }
    packages.push_back({std::string(name), std::string(version),
                        std::string(field_of(stanza, "Architecture")),
                        state == "installed" ? std::nullopt : std::optional(std::string(state))});
  });
}

std::string dpkg_status_to_record(std::string_view text) {
  std::string kept;
  for_each_kept_stanza(text, [&](std::string_view stanza) {
    kept.append(stanza);
    if (kept.back() != '\n') {
      kept += '\n';
    }
    kept += '\n';
  });
  return kept;
}

std::optional<InstalledPackage> parse_pacman_desc(std::string_view text) {
  InstalledPackage package;
  std::string_view section;
  for (const auto raw : util::lines(text)) {
    const std::string_view line = util::trim(raw);
    if (line.empty()) {
      section = {};
    } else if (line.size() > 2 && line.front() == '%' && line.back() == '%') {
      section = line;
    } else if (section == "%NAME%" && package.name.empty()) {
      package.name = std::string(line);
    } else if (section == "%VERSION%" && package.version.empty()) {
      package.version = std::string(line);
    } else if (section == "%ARCH%" && package.arch.empty()) {
      package.arch = std::string(line);
    }
  }
  if (package.name.empty() || package.version.empty()) {
    return std::nullopt;
  }
  return package;
}

std::optional<InstalledPackage> parse_rpm_header(std::string_view blob) {
  if (blob.size() < 8) {
    return std::nullopt;
  }
  const std::uint32_t entries = big_endian32(blob, 0);
  const std::uint32_t data_length = big_endian32(blob, 4);
  // rpm's own limits (hdrchkTags, hdrchkData): at most 0xffff entries and 256 MiB of data.
  if (entries == 0 || entries > 0xffff || data_length > (std::uint32_t{256} << 20) ||
      8 + std::uint64_t{entries} * 16 + data_length > blob.size()) {
    return std::nullopt;
  }
  const std::string_view data = blob.substr(8 + std::size_t{entries} * 16, data_length);
  std::optional<std::string> name;
  std::optional<std::string> version;
  std::optional<std::string> release;
  std::optional<std::string> arch;
  std::optional<std::uint32_t> epoch;
  for (std::uint32_t i = 0; i < entries; ++i) {
    const std::size_t at = 8 + std::size_t{i} * 16;
    const std::uint32_t tag = big_endian32(blob, at);
    const std::uint32_t type = big_endian32(blob, at + 4);
    const std::uint32_t offset = big_endian32(blob, at + 8);
    if (offset >= data.size()) {
      continue;
    }
    constexpr std::uint32_t k_int32 = 4;
    constexpr std::uint32_t k_string = 6;
    if (tag == 1003 && type == k_int32 && data.size() - offset >= 4) {
      epoch = big_endian32(data, offset);
      continue;
    }
    if (type != k_string || (tag != 1000 && tag != 1001 && tag != 1002 && tag != 1022)) {
      continue;
    }
    const auto end = data.find('\0', offset);
    if (end == std::string_view::npos) {
      return std::nullopt;
    }
    std::string value(data.substr(offset, end - offset));
    (tag == 1000 ? name : tag == 1001 ? version : tag == 1002 ? release : arch) = std::move(value);
  }
  if (!name || !version || !release || name->empty()) {
    return std::nullopt;
  }
  return InstalledPackage{*name,
                          (epoch ? std::to_string(*epoch) + ":" : "") + *version + "-" + *release,
                          arch.value_or(""), std::nullopt};
}

std::vector<InstalledPackage> read_rpmdb_sqlite(std::string_view bytes, std::vector<bool>* pages) {
  util::SqliteFile db(bytes);
  db.track_pages(pages);
  const auto packages_root = db.table_root("Packages");
  if (!packages_root) {
    throw util::SqliteFormatError("no Packages table: not an rpm database");
  }
  std::vector<InstalledPackage> packages;
  const auto keep = [&](const util::SqliteRow& row) {
    for (const auto& column : row.columns) {
      if (column.kind == util::SqliteValue::Kind::blob) {
        auto package = parse_rpm_header(column.bytes);
        if (!package) {
          throw util::SqliteFormatError("header " + std::to_string(row.rowid) +
                                        " of the Packages table is not an rpm header");
        }
        if (is_kept_package(package->name)) {
          packages.push_back(std::move(*package));
        }
        return;
      }
    }
  };
  if (const auto name_root = db.table_root("Name")) {
    // Name (key, hnum, idx): one row per package, its name and its row of Packages.
    std::set<std::int64_t> wanted;
    db.for_each_row(*name_root, [&](const util::SqliteRow& row) {
      const auto& c = row.columns;
      if (c.size() >= 2 && c[1].kind == util::SqliteValue::Kind::integer &&
          (c[0].kind == util::SqliteValue::Kind::text ||
           c[0].kind == util::SqliteValue::Kind::blob) &&
          is_kept_package(c[0].bytes)) {
        wanted.insert(c[1].integer);
      }
      return true;
    });
    for (const std::int64_t number : wanted) {
      if (const auto row = db.find_row(*packages_root, number)) {
        keep(*row);
      }
    }
  } else {
    db.for_each_row(*packages_root, [&](const util::SqliteRow& row) {
      keep(row);
      return true;
    });
  }
  return packages;
}

std::string rpmdb_to_record(std::string_view bytes) {
  try {
    std::vector<bool> pages;
    (void)read_rpmdb_sqlite(bytes, &pages);
    return util::sqlite_pages_keeping(bytes, util::SqliteFile(bytes).page_size(), pages);
  } catch (const util::SqliteFormatError&) {
    return std::string(bytes);
  }
}

PackageFacts probe_packages(const ProbeContext& context) {
  PackageFacts facts;
  for (auto database :
       {read_dpkg(context.host), read_rpm(context.host), read_pacman(context.host)}) {
    if (database) {
      facts.databases.push_back(std::move(*database));
    }
  }
  // rpm keeps its database in WAL mode: changes sit in rpmdb.sqlite-wal until rpm checkpoints
  // them (it does when it closes the database). Say so rather than be silently out of date.
  for (auto& database : facts.databases) {
    if (database.manager == PackageManager::rpm && database.state == PackageDatabase::State::read) {
      if (const auto wal = context.host.stat(database.path + "-wal"); wal && wal->size > 0) {
        database.note = fmt::format(
            "rpmdb.sqlite-wal holds {} not yet written back into the database: packages "
            "changed since rpm last closed it may be missing or out of date",
            util::byte_size_text(wal->size));
      }
    }
  }
  return facts;
}

}  // namespace rocdoc
