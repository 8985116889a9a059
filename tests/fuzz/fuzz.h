// Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp): the entry point's declaration,
// invariant checks that stop the run, and the embedded knowledge base.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "rocdoc/host.h"
#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace rocdoc::fuzz {

/// The input as text (any bytes, NULs included).
inline std::string_view text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// An invariant of the code under test was broken: print it and abort, which libFuzzer and
/// the replay driver report as a crash with this input.
[[noreturn]] inline void invariant_failed(const char* what, const char* file, int line,
                                          const std::string& detail) {
  std::fprintf(stderr, "%s:%d: invariant broken: %s\n  %s\n", file, line, what, detail.c_str());
  std::abort();
}

#define ROCDOC_FUZZ_CHECK(condition, detail)                                    \
  do {                                                                          \
    if (!(condition)) {                                                         \
      ::rocdoc::fuzz::invariant_failed(#condition, __FILE__, __LINE__, detail); \
    }                                                                           \
  } while (false)

/// The knowledge base built into the binary (no YAML parsing: built once per process).
inline const Knowledge& knowledge() {
  static const Knowledge& embedded = embedded_knowledge();
  return embedded;
}

/// An error message about hostile input is one short printable line (it quotes the input only
/// in excerpts): no newline, no terminal control byte, at most 4 KiB.
inline void check_error_message(std::string_view what) {
  ROCDOC_FUZZ_CHECK(what.size() <= 4096,
                    "the error message is short: " + std::to_string(what.size()) + " bytes");
  for (const char c : what) {
    ROCDOC_FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f,
                      "the error message has no control byte: " + std::string(what));
  }
}

/// The whole pipeline over `host`: every probe, every check, both renderers.
void report_on(const Host& host);

}  // namespace rocdoc::fuzz
