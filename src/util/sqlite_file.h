// A read-only reader of the SQLite database file format (sqlite.org/fileformat.html), for a
// database handed over as bytes: the table b-trees (interior and leaf pages, the cell pointer
// array, varints, overflow chains) and the record format. No SQL, no index b-trees, no
// journal or WAL: what rocdoc needs to read one table's rows out of a file it did not write,
// on a machine that may have no libsqlite3. Every page number, offset and length is checked
// against the bytes; a file that breaks the format throws SqliteFormatError, never reads out
// of bounds and never loops (each table page is visited at most once per walk), and the payload
// it assembles stays within twice the file's size.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rocdoc::util {

class SqliteFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One column of a record.
struct SqliteValue {
  enum class Kind { null, integer, real, text, blob };
  Kind kind = Kind::null;
  std::int64_t integer = 0;
  std::string_view bytes;  ///< text or blob, pointing into the row's payload
};

/// A row of a table: its rowid and its columns. `bytes` of text and blob values point into
/// `payload`, which the row owns.
struct SqliteRow {
  std::int64_t rowid = 0;
  std::string payload;
  std::vector<SqliteValue> columns;
};

class SqliteFile {
 public:
  /// Reads the 100-byte header (magic, page size, reserved bytes); throws SqliteFormatError.
  /// `bytes` must outlive the reader.
  explicit SqliteFile(std::string_view bytes);

  /// The root page of the table named `name` in sqlite_schema (page 1); nullopt when absent.
  std::optional<std::uint32_t> table_root(std::string_view name) const;

  /// Calls `visit` for each row of the table b-tree at `root`, in rowid order; `visit` returns
  /// false to stop.
  void for_each_row(std::uint32_t root, const std::function<bool(const SqliteRow&)>& visit) const;

  /// The row with this rowid in the table b-tree at `root` (a search down the interior pages).
  std::optional<SqliteRow> find_row(std::uint32_t root, std::int64_t rowid) const;

  /// Marks every page read from now on in `pages` (index = page number; resized as needed):
  /// what a copy of the file must keep to give the same answers (sqlite_pages_keeping).
  void track_pages(std::vector<bool>* pages) { m_touched = pages; }

  std::uint32_t page_size() const { return m_page_size; }

 private:
  /// A table b-tree page, its header checked: leaf or interior, where its cell pointers start
  /// and how many there are (all within the page).
  struct TablePage {
    std::string_view data;
    std::size_t header = 0;  ///< 100 on page 1 (the file header comes first), else 0
    bool leaf = false;
    std::size_t pointers = 0;
    std::uint32_t cells = 0;
    /// The offset of cell `i`, within the page.
    std::uint32_t cell(std::uint32_t i, std::uint32_t number) const;
  };
  TablePage table_page(std::uint32_t number) const;
  std::string_view page_of(std::uint32_t number) const;
  SqliteRow read_cell(std::string_view page, std::size_t offset, std::uint32_t number) const;
  bool walk(std::uint32_t number, int depth, std::vector<bool>& seen,
            const std::function<bool(const SqliteRow&)>& visit) const;

  std::string_view m_bytes;
  std::uint32_t m_page_size = 0;
  std::uint32_t m_usable = 0;  ///< page size less the reserved bytes at each page's end
  std::uint32_t m_page_count = 0;
  std::vector<bool>* m_touched = nullptr;
  mutable std::uint64_t m_payload_read = 0;  ///< bytes of payload assembled so far
};

/// `bytes` with every page that `pages` does not mark set to zeros (same size): a database
/// that answers the same reads as far as they stay on the marked pages.
std::string sqlite_pages_keeping(std::string_view bytes, std::uint32_t page_size,
                                 const std::vector<bool>& pages);

}  // namespace rocdoc::util
