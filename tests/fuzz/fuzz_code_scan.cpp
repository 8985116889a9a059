// One file of a scanned tree judged with the embedded rules/code_patterns.yaml
// (src/scan/code_scanner.h): comments blanked, #if branches followed, suppressions read. The
// first byte picks the file kind, the rest is the file. Whatever it holds, every finding lies
// on a line of the text, at a column inside that line, once per line and check, in order.
#include <set>
#include <utility>

#include "rocdoc/knowledge_loader.h"
#include "src/scan/code_scanner.h"
#include "tests/fuzz/fuzz.h"

namespace {

const rocdoc::CodeRules& rules() {
  static const rocdoc::Knowledge knowledge = rocdoc::load_embedded_knowledge();
  static const rocdoc::CodeRules compiled(knowledge);
  return compiled;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  if (size == 0) {
    return 0;
  }
  const auto kinds = source_kinds();
  const SourceKind kind = kinds[data[0] % kinds.size()];
  const std::string_view text = fuzz::text(data + 1, size - 1);
  const FileScan scan = scan_file_text("fuzz/input", text, kind, rules());
  std::size_t lines = 1;
  for (const char c : text) {
    lines += c == '\n' ? 1 : 0;
  }
  std::set<std::pair<std::size_t, std::string>> seen;
  std::size_t previous = 0;
  for (const CodeFinding& finding : scan.findings) {
    ROCDOC_FUZZ_CHECK(finding.line >= 1 && finding.line <= lines, "a finding is on a line");
    ROCDOC_FUZZ_CHECK(finding.line >= previous, "findings in line order");
    previous = finding.line;
    ROCDOC_FUZZ_CHECK(finding.column >= 1 && finding.end_column >= finding.column,
                      "a finding's columns are in order");
    ROCDOC_FUZZ_CHECK(seen.insert({finding.line, finding.id}).second,
                      "one finding per line and check");
    ROCDOC_FUZZ_CHECK(finding.fingerprint.size() == 16, "a fingerprint of 16 hex digits");
    ROCDOC_FUZZ_CHECK(finding.id.rfind("code.", 0) == 0, "a code check's id");
  }
  return 0;
}
