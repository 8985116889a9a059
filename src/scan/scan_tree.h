// `rocdoc scan DIR`'s work: the tree walked (src/scan/source_tree.h), each file read (mmap for
// large files, one read for small ones) and judged (src/scan/code_scanner.h) on a few threads,
// and the findings gathered in path order, so the result is the same whatever the threads.
#pragma once

#include <string>

#include "rocdoc/code_scan.h"
#include "src/scan/code_scanner.h"
#include "src/scan/source_tree.h"

namespace rocdoc {

struct CodeScanOptions {
  SourceTreeLimits limits;
  VendoredDirectories vendored = VendoredDirectories::skip;
  std::size_t threads = 0;  ///< 0: the usable CPUs, at most 8
};

struct CodeScanRun {
  CodeScanFacts facts;
  std::string error;  ///< set when `root` cannot be scanned at all (not a directory)
};

CodeScanRun scan_source_tree(const std::string& root, const CodeRules& rules,
                             const CodeScanOptions& options = {});

}  // namespace rocdoc
