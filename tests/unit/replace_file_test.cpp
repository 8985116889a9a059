#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "src/util/replace_file.h"
#include "tests/unit/test_support.h"

namespace {

std::string read(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

}  // namespace

TEST_CASE("replace_file writes a new file whole, with the mode a new file gets", "[util]") {
  const rocdoc::test::TempSnapshot scratch;
  const std::string path = scratch.root() + "/rocdoc.prom";
  const mode_t mask = ::umask(027);
  CHECK_FALSE(rocdoc::util::replace_file(path, "rocdoc_up 1\n"));
  ::umask(mask);
  CHECK(read(path) == "rocdoc_up 1\n");
  struct ::stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  CHECK(names_in(scratch.root()) == std::vector<std::string>{"rocdoc.prom"});
}

TEST_CASE("replace_file replaces an existing file and leaves no temporary name", "[util]") {
  const rocdoc::test::TempSnapshot scratch;
  const std::string path = scratch.root() + "/report.json";
  scratch.file("/report.json", "old, and longer than the new one\n");
  for (int i = 0; i < 3; ++i) {
    CHECK_FALSE(rocdoc::util::replace_file(path, "new " + std::to_string(i) + "\n"));
  }
  CHECK(read(path) == "new 2\n");
  CHECK(names_in(scratch.root()) == std::vector<std::string>{"report.json"});
}

TEST_CASE("replace_file says why it cannot write, and creates nothing", "[util]") {
  const rocdoc::test::TempSnapshot scratch;
  const auto problem = rocdoc::util::replace_file(scratch.root() + "/missing/report.json", "x");
  REQUIRE(problem);
  CHECK(*problem == "No such file or directory");
  CHECK(names_in(scratch.root()).empty());
}
