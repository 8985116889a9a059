// Writing a file so that a reader sees the old content or the new, never a part: a temporary
// file beside it, synced, then renamed over it (what node_exporter's textfile collector needs).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rocdoc::util {

/// Replaces `path` with `text` atomically: writes it as an unnamed file (O_TMPFILE) in the same
/// directory, or where there is none as ".NAME.tmp.XXXXXX" (a name that does not end in NAME's
/// suffix, so a collector reading *.prom never sees it), with mode 0666 less the umask, fsyncs
/// it, names it ".NAME.tmp.XXXXXX" only then, renames it over `path` and fsyncs the directory:
/// a SIGKILL while the bytes are written leaves nothing. Returns what failed (strerror text),
/// with the temporary file removed; nullopt on success.
std::optional<std::string> replace_file(const std::string& path, std::string_view text);

}  // namespace rocdoc::util
