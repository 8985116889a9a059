// The replay driver: a harness built without libFuzzer. Runs every file named on the command
// line (every regular file of a named directory, in name order) through LLVMFuzzerTestOneInput
// once. ctest runs it on tests/fuzz/regressions/<harness>/ and the seed corpus, so a crash
// found once stays fixed with every compiler and in the sanitizer build.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "tests/fuzz/fuzz.h"

namespace {

std::vector<std::uint8_t> read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE|DIR...  (runs each input through the harness)\n", argv[0]);
    return 2;
  }
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    std::error_code error;
    if (std::filesystem::is_directory(arg, error)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) {
          files.push_back(entry.path());
        }
      }
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (std::filesystem::is_regular_file(arg, error)) {
      inputs.push_back(arg);
    } else {
      // A harness with no regression yet has no directory (git keeps no empty ones).
      std::fprintf(stderr, "note: %s does not exist; nothing to replay there\n", argv[i]);
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "no input to replay: is the seed corpus missing?\n");
    return 2;
  }
  for (const auto& input : inputs) {
    std::fprintf(stderr, "replaying %s\n", input.c_str());
    const auto data = read_all(input);
    // Copied to an exact-size buffer, as libFuzzer does, so ASan sees reads past the end.
    const std::unique_ptr<std::uint8_t[]> copy(new std::uint8_t[data.size()]);
    std::copy(data.begin(), data.end(), copy.get());
    LLVMFuzzerTestOneInput(copy.get(), data.size());
  }
  std::fprintf(stderr, "replayed %zu inputs without a crash\n", inputs.size());
  return 0;
}
