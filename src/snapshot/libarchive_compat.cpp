// libarchive before 3.6 (Debian 11 ships 3.4.3, the release build's root) is compiled without
// -ffunction-sections, and its helper __archive_write_entry_filetype_unsupported() lives in the
// same object as archive_write_set_format(), the by-code table of every writer. The pax and
// ustar writers call the helper, so linking them statically pulls that whole table in: the xar
// writer (libxml2), 7-Zip (liblzma, bzip2) and the rest, which --gc-sections cannot drop.
//
// Defining the helper here, in an object the linker takes before it reads libarchive.a, keeps
// the table out. It is built only where cmake/Dependencies.cmake found that a pax writer does
// not link without it, and uses libarchive's public API alone, with the wording of its original.
#include <archive.h>
#include <archive_entry.h>

#include <cerrno>

#include "src/snapshot/libarchive_compat.h"

// libarchive's private archive_private.h: #define ARCHIVE_ERRNO_FILE_FORMAT EILSEQ
constexpr int archive_errno_file_format = EILSEQ;

extern "C" void __archive_write_entry_filetype_unsupported(struct archive* a,
                                                           struct archive_entry* entry,
                                                           const char* format) {
  const char* name = nullptr;
  switch (archive_entry_filetype(entry)) {
    case AE_IFDIR:
      name = "directories";
      break;
    case AE_IFLNK:
      name = "symbolic links";
      break;
    case AE_IFCHR:
      name = "character devices";
      break;
    case AE_IFBLK:
      name = "block devices";
      break;
    case AE_IFIFO:
      name = "named pipes";
      break;
    case AE_IFSOCK:
      name = "sockets";
      break;
    default:
      break;
  }
  if (name != nullptr) {
    archive_set_error(a, archive_errno_file_format, "%s: %s format cannot archive %s",
                      archive_entry_pathname(entry), format, name);
  } else {
    archive_set_error(a, archive_errno_file_format,
                      "%s: %s format cannot archive files with mode 0%lo",
                      archive_entry_pathname(entry), format,
                      static_cast<unsigned long>(archive_entry_mode(entry)));
  }
}
