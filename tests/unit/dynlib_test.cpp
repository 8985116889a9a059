// util::DynLib against real libraries of the system: what it loaded and the file's own soname.
#include <catch2/catch.hpp>

#include "src/util/dynlib.h"

using rocdoc::util::DynLib;

TEST_CASE("a library's DT_SONAME is read from the loaded file, not from the name it was opened by",
          "[dynlib]") {
  const DynLib by_soname({"libpci.so.3"});
  REQUIRE(by_soname.loaded());
  CHECK(by_soname.elf_soname() == "libpci.so.3");
  const auto file = by_soname.real_path();
  REQUIRE(file.has_value());
  CHECK(file->find("libpci.so.3.") != std::string::npos);  // libpci.so.3.9.0 on Debian 12

  const DynLib by_path({file->c_str()});
  REQUIRE(by_path.loaded());
  CHECK(by_path.soname() == *file);
  CHECK(by_path.elf_soname() == "libpci.so.3");

  const DynLib libc({"libc.so.6"});
  REQUIRE(libc.loaded());
  CHECK(libc.elf_soname() == "libc.so.6");
}

TEST_CASE("a library that did not load has no soname", "[dynlib]") {
  const DynLib missing({"librocdoc-no-such-library.so.1"});
  CHECK_FALSE(missing.loaded());
  CHECK_FALSE(missing.elf_soname().has_value());
  CHECK(missing.error().find("librocdoc-no-such-library.so.1") != std::string::npos);
}
