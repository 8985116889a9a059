#pragma once

// The link workaround for libarchive before 3.6 (see libarchive_compat.cpp). Where CMake turns it
// on (ROCDOC_LIBARCHIVE_COMPAT), snapshot_archive.cpp names the helper, so the object that defines
// it is taken from librocdoc_core.a before the linker reads libarchive.a.
struct archive;
struct archive_entry;

extern "C" void __archive_write_entry_filetype_unsupported(struct archive* a,
                                                           struct archive_entry* entry,
                                                           const char* format);
