#include "src/util/sqlite_file.h"

#include <algorithm>
#include <string>

namespace rocdoc::util {

namespace {

constexpr std::string_view k_magic{"SQLite format 3\0", 16};
constexpr int k_max_depth = 64;  ///< a b-tree of 64 levels holds more rows than any file can

std::uint32_t big_endian(std::string_view bytes, std::size_t at, std::size_t width) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  }
  return value;
}

[[noreturn]] void bad(const std::string& what) { throw SqliteFormatError(what); }

/// A varint at `at` (1 to 9 bytes, big-endian, 7 bits per byte and 8 in the ninth); advances
/// `at`.
std::uint64_t varint(std::string_view bytes, std::size_t& at) {
  std::uint64_t value = 0;
  for (int i = 0; i < 9; ++i) {
    if (at >= bytes.size()) {
      bad("a varint runs past its page");
    }
    const auto byte = static_cast<unsigned char>(bytes[at++]);
    if (i == 8) {
      return (value << 8) | byte;
    }
    value = (value << 7) | (byte & 0x7f);
    if ((byte & 0x80) == 0) {
      return value;
    }
  }
  return value;
}

/// The columns of a record (header size, serial types, then the values), over `payload`.
std::vector<SqliteValue> record_columns(std::string_view payload) {
  std::size_t at = 0;
  const std::uint64_t header_size = varint(payload, at);
  if (header_size > payload.size() || header_size < at) {
    bad("a record header is larger than its payload");
  }
  std::vector<std::uint64_t> types;
  while (at < header_size) {
    types.push_back(varint(payload.substr(0, header_size), at));
  }
  std::vector<SqliteValue> columns;
  std::size_t body = header_size;
  for (const std::uint64_t type : types) {
    SqliteValue value;
    std::uint64_t length = 0;
    if (type == 0 || type == 8 || type == 9) {
      value.kind = type == 0 ? SqliteValue::Kind::null : SqliteValue::Kind::integer;
      value.integer = type == 9 ? 1 : 0;
    } else if (type <= 6) {
      static constexpr std::uint64_t widths[] = {0, 1, 2, 3, 4, 6, 8};
      length = widths[type];
      value.kind = SqliteValue::Kind::integer;
    } else if (type == 7) {
      length = 8;
      value.kind = SqliteValue::Kind::real;
    } else if (type >= 12) {
      length = (type - 12) / 2;
      value.kind = type % 2 == 0 ? SqliteValue::Kind::blob : SqliteValue::Kind::text;
    } else {
      bad("a record uses the reserved serial type " + std::to_string(type));
    }
    if (length > payload.size() - body) {
      bad("a record value runs past its payload");
    }
    if (value.kind == SqliteValue::Kind::integer && length > 0) {
      std::uint64_t bits = 0;
      for (std::uint64_t i = 0; i < length; ++i) {
        bits = (bits << 8) | static_cast<unsigned char>(payload[body + i]);
      }
      const unsigned shift = static_cast<unsigned>(64 - 8 * length);
      // Sign-extend from the value's width (a two's-complement integer of `length` bytes).
      value.integer = shift == 0 ? static_cast<std::int64_t>(bits)
                                 : static_cast<std::int64_t>(bits << shift) >> shift;
    } else if (value.kind == SqliteValue::Kind::text || value.kind == SqliteValue::Kind::blob) {
      value.bytes = payload.substr(body, length);
    }
    body += length;
    columns.push_back(value);
  }
  return columns;
}

}  // namespace

SqliteFile::SqliteFile(std::string_view bytes) : m_bytes(bytes) {
  if (bytes.size() < 100 || bytes.substr(0, 16) != k_magic) {
    bad("not an SQLite 3 database (no \"SQLite format 3\" header)");
  }
  const std::uint32_t size = big_endian(bytes, 16, 2);
  m_page_size = size == 1 ? 65536 : size;
  if (m_page_size < 512 || (m_page_size & (m_page_size - 1)) != 0) {
    bad("the page size " + std::to_string(m_page_size) + " is not a power of two from 512");
  }
  const auto reserved = static_cast<unsigned char>(bytes[20]);
  m_usable = m_page_size - reserved;
  if (m_usable < 480) {
    bad("the usable page size is below 480 bytes");
  }
  if (bytes[56] != 0 && big_endian(bytes, 56, 4) != 1) {
    bad("the text encoding is not UTF-8");
  }
  m_page_count = static_cast<std::uint32_t>(bytes.size() / m_page_size);
}

std::string_view SqliteFile::page_of(std::uint32_t number) const {
  if (number == 0 || number > m_page_count) {
    bad("page " + std::to_string(number) + " is outside the file (" + std::to_string(m_page_count) +
        " pages)");
  }
  if (m_touched != nullptr) {
    if (m_touched->size() <= number) {
      m_touched->resize(number + 1);
    }
    (*m_touched)[number] = true;
  }
  return m_bytes.substr(std::size_t{number - 1} * m_page_size, m_usable);
}

SqliteRow SqliteFile::read_cell(std::string_view page, std::size_t offset,
                                std::uint32_t number) const {
  std::size_t at = offset;
  const std::uint64_t size = varint(page, at);
  SqliteRow row;
  row.rowid = static_cast<std::int64_t>(varint(page, at));
  // How much of the payload stays on the leaf page (fileformat.html, "Cell Payload Overflow
  // Pages", for table b-tree leaf cells).
  const std::uint64_t usable = m_usable;
  const std::uint64_t most = usable - 35;
  std::uint64_t local = size;
  if (size > most) {
    const std::uint64_t least = (usable - 12) * 32 / 255 - 23;
    const std::uint64_t spread = least + (size - least) % (usable - 4);
    local = spread <= most ? spread : least;
  }
  if (local > page.size() - at) {
    bad("a cell of page " + std::to_string(number) + " runs past the page");
  }
  if (size > m_bytes.size()) {
    bad("a cell's payload is larger than the file");
  }
  // In a well-formed file every overflow page belongs to one cell, so the payloads read add up
  // to less than the file; cells that share a chain would make the work quadratic.
  m_payload_read += size;
  if (m_payload_read > 2 * std::uint64_t{m_bytes.size()} + (std::uint64_t{1} << 20)) {
    bad("the cells read hold more payload than the file: overflow pages are shared");
  }
  row.payload.reserve(size);
  row.payload.append(page.substr(at, local));
  if (local < size) {
    if (page.size() - at - local < 4) {
      bad("a cell's overflow page number runs past the page");
    }
    std::uint32_t next = big_endian(page, at + local, 4);
    // A chain never needs more pages than the payload fills; that bound also ends a loop.
    std::uint64_t pages_left = (size - local) / (usable - 4) + 1;
    while (row.payload.size() < size) {
      if (next == 0 || pages_left-- == 0) {
        bad("an overflow chain ends before its payload");
      }
      const std::string_view overflow = page_of(next);
      const std::size_t take = static_cast<std::size_t>(
          std::min<std::uint64_t>(size - row.payload.size(), overflow.size() - 4));
      row.payload.append(overflow.substr(4, take));
      next = big_endian(overflow, 0, 4);
    }
  }
  row.columns = record_columns(row.payload);
  return row;
}

SqliteFile::TablePage SqliteFile::table_page(std::uint32_t number) const {
  TablePage page;
  page.data = page_of(number);
  page.header = number == 1 ? 100 : 0;
  if (page.data.size() < page.header + 8) {
    bad("page " + std::to_string(number) + " is too short for its header");
  }
  const auto type = static_cast<unsigned char>(page.data[page.header]);
  if (type != 0x05 && type != 0x0d) {
    bad("page " + std::to_string(number) + " is not a table b-tree page");
  }
  page.leaf = type == 0x0d;
  page.pointers = page.header + (page.leaf ? 8 : 12);  // an interior page's right child: 4 more
  page.cells = big_endian(page.data, page.header + 3, 2);
  if (page.pointers + std::size_t{page.cells} * 2 > page.data.size()) {
    bad("page " + std::to_string(number) + "'s cell pointers run past the page");
  }
  return page;
}

std::uint32_t SqliteFile::TablePage::cell(std::uint32_t i, std::uint32_t number) const {
  const std::uint32_t offset = big_endian(data, pointers + i * 2, 2);
  if (offset >= data.size()) {
    bad("a cell pointer of page " + std::to_string(number) + " points past the page");
  }
  return offset;
}

bool SqliteFile::walk(std::uint32_t number, int depth, std::vector<bool>& seen,
                      const std::function<bool(const SqliteRow&)>& visit) const {
  if (depth > k_max_depth) {
    bad("a b-tree deeper than " + std::to_string(k_max_depth) + " levels");
  }
  if (seen.size() <= number) {
    seen.resize(number + 1);
  }
  if (seen[number]) {
    bad("page " + std::to_string(number) + " appears twice in one b-tree");
  }
  seen[number] = true;
  const TablePage page = table_page(number);
  for (std::uint32_t i = 0; i < page.cells; ++i) {
    const std::uint32_t offset = page.cell(i, number);
    if (page.leaf) {
      if (!visit(read_cell(page.data, offset, number))) {
        return false;
      }
    } else {
      if (page.data.size() - offset < 4) {
        bad("an interior cell of page " + std::to_string(number) + " runs past the page");
      }
      if (!walk(big_endian(page.data, offset, 4), depth + 1, seen, visit)) {
        return false;
      }
    }
  }
  if (!page.leaf) {
    return walk(big_endian(page.data, page.header + 8, 4), depth + 1, seen, visit);
  }
  return true;
}

void SqliteFile::for_each_row(std::uint32_t root,
                              const std::function<bool(const SqliteRow&)>& visit) const {
  std::vector<bool> seen;
  walk(root, 0, seen, visit);
}

std::optional<SqliteRow> SqliteFile::find_row(std::uint32_t root, std::int64_t rowid) const {
  std::uint32_t number = root;
  for (int depth = 0; depth <= k_max_depth; ++depth) {
    const TablePage page = table_page(number);
    if (page.leaf) {
      for (std::uint32_t i = 0; i < page.cells; ++i) {
        const std::uint32_t offset = page.cell(i, number);
        std::size_t at = offset;
        (void)varint(page.data, at);
        if (static_cast<std::int64_t>(varint(page.data, at)) == rowid) {
          return read_cell(page.data, offset, number);
        }
      }
      return std::nullopt;
    }
    // Interior cells: (left child, key) in key order; the left child holds rowids <= key.
    std::uint32_t next = big_endian(page.data, page.header + 8, 4);
    for (std::uint32_t i = 0; i < page.cells; ++i) {
      const std::uint32_t offset = page.cell(i, number);
      if (page.data.size() - offset < 5) {
        bad("an interior cell of page " + std::to_string(number) + " runs past the page");
      }
      std::size_t at = offset + 4;
      if (rowid <= static_cast<std::int64_t>(varint(page.data, at))) {
        next = big_endian(page.data, offset, 4);
        break;
      }
    }
    number = next;
  }
  bad("a b-tree deeper than " + std::to_string(k_max_depth) + " levels");
}

std::optional<std::uint32_t> SqliteFile::table_root(std::string_view name) const {
  std::optional<std::uint32_t> root;
  for_each_row(1, [&](const SqliteRow& row) {
    // sqlite_schema: type, name, tbl_name, rootpage, sql
    const auto& c = row.columns;
    if (c.size() >= 4 && c[0].kind == SqliteValue::Kind::text && c[0].bytes == "table" &&
        c[1].kind == SqliteValue::Kind::text && c[1].bytes == name &&
        c[3].kind == SqliteValue::Kind::integer && c[3].integer > 0 &&
        c[3].integer <= static_cast<std::int64_t>(m_page_count)) {
      root = static_cast<std::uint32_t>(c[3].integer);
      return false;
    }
    return true;
  });
  return root;
}

std::string sqlite_pages_keeping(std::string_view bytes, std::uint32_t page_size,
                                 const std::vector<bool>& pages) {
  std::string kept(bytes.size(), '\0');
  for (std::size_t number = 1; number < pages.size(); ++number) {
    const std::size_t start = (number - 1) * page_size;
    if (pages[number] && start < bytes.size()) {
      kept.replace(start, std::min<std::size_t>(page_size, bytes.size() - start),
                   bytes.substr(start, page_size));
    }
  }
  return kept;
}

}  // namespace rocdoc::util
