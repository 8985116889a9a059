#include <catch2/catch.hpp>

#include "src/util/shell.h"
#include "src/util/strings.h"

using namespace rocdoc::util;

TEST_CASE("trim and split handle edges", "[util]") {
  CHECK(trim("  a b \n") == "a b");
  CHECK(trim("") == "");
  CHECK(split("a,,b", ',') == std::vector<std::string_view>{"a", "", "b"});
  CHECK(split_whitespace(" a \t b  ") == std::vector<std::string_view>{"a", "b"});
  CHECK(lines("x\r\ny\n") == std::vector<std::string_view>{"x", "y"});
}

TEST_CASE("parse_unsigned takes decimal and 0x hex, rejects junk", "[util]") {
  CHECK(parse_unsigned("42\n") == 42u);
  CHECK(parse_unsigned("0x1002", 0) == 0x1002u);
  CHECK(parse_unsigned("744c", 16) == 0x744cu);
  CHECK_FALSE(parse_unsigned("12a").has_value());
  CHECK_FALSE(parse_unsigned("").has_value());
  CHECK(parse_signed("-1") == -1);
}

TEST_CASE("shell_quote makes any user name safe to paste", "[util]") {
  CHECK(shell_quote("alice") == "'alice'");
  CHECK(shell_quote("o'brien") == "'o'\\''brien'");
  CHECK(shell_quote("a b;rm -rf /") == "'a b;rm -rf /'");
}

TEST_CASE("edit_distance counts single edits", "[util]") {
  CHECK(edit_distance("perm.kdf", "perm.kfd") == 2);
  CHECK(edit_distance("gpu.non", "gpu.none") == 1);
  CHECK(edit_distance("", "abc") == 3);
}

TEST_CASE("parent_path and version_numbers", "[util]") {
  CHECK(parent_path("/opt/rocm-6.2.0/lib/") == "/opt/rocm-6.2.0");
  CHECK(parent_path("/opt") == "/");
  CHECK(parent_path("/") == "/");
  CHECK(version_numbers("2.10.0") == std::vector<int>{2, 10, 0});
  CHECK(version_numbers("1.13.0a0") == std::vector<int>{1, 13, 0});
  CHECK(version_numbers("2.6.0+rocm6.2.4") == std::vector<int>{2, 6, 0});
  CHECK(version_numbers("2.9.1") < version_numbers("2.10.0"));
  CHECK(version_within("6.4.1", "6.4"));
  CHECK(version_within("6.4", "6.4"));
  CHECK(version_within("rocm6.2.4", "rocm6.2"));
  CHECK_FALSE(version_within("6.40", "6.4"));
  CHECK_FALSE(version_within("6", "6.4"));
  CHECK_FALSE(version_numbers("2.x").has_value());
  CHECK(version_numbers("2.15.0.dev20260926+rocm10.0") == std::vector<int>{2, 15, 0});
  CHECK_FALSE(version_numbers("dev1").has_value());
}

TEST_CASE("printable escapes what a terminal would act on and keeps the rest", "[util]") {
  using rocdoc::util::printable;
  CHECK(printable("/opt/rocm-6.4.1") == "/opt/rocm-6.4.1");
  CHECK(printable("C:\\dir") == "C:\\dir");  // no other escape: backslashes kept as they are
  CHECK(printable("Ubuntu 24.04 “noble” – ✓") == "Ubuntu 24.04 “noble” – ✓");
  CHECK(printable("a\x1b[2Jb") == "a\\x1b[2Jb");
  CHECK(printable("\x1b]8;;http://evil.example\x07link") ==
        "\\x1b]8;;http://evil.example\\x07link");
  CHECK(printable("render\nFAKE-LINE") == "render\\nFAKE-LINE");
  CHECK(printable("tab\there\r") == "tab\\there\\r");
  CHECK(printable("a\\b\x01") == "a\\\\b\\x01");  // once escaping, a backslash is doubled
  CHECK(printable("\x7f") == "\\x7f");
  CHECK(printable("\xc2\x9b"
                  "31m") == "\\u009b31m");  // C1 CSI encoded as UTF-8
  CHECK(printable("\x9b"
                  "31m") == "\\x9b31m");  // raw 8-bit CSI, not UTF-8
  CHECK(printable("abc\xe2\x80\xae"
                  "def") == "abc\\u202edef");  // right-to-left override
  CHECK(printable("\xff\xfe") == "\\xff\\xfe");
  CHECK(printable("\xe2\x82") == "\\xe2\\x82");  // truncated sequence
  CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");  // overlong '/'
  CHECK(printable(std::string("nul\0byte", 8)) == "nul\\x00byte");
}

TEST_CASE("excerpt cuts long hostile input to a short printable quote", "[util]") {
  using rocdoc::util::excerpt;
  CHECK(excerpt("short") == "short");
  CHECK(excerpt(std::string(100000, '[')) == std::string(60, '[') + "… (100000 bytes)");
  CHECK(excerpt("\x1b\x1b\x1b", 2) == "\\x1b\\x1b… (3 bytes)");
  CHECK(excerpt("aé", 2) == "a… (3 bytes)");  // never splits a UTF-8 sequence
}

TEST_CASE("iso8601_utc computes the civil date without libc's time zones") {
  CHECK(rocdoc::util::iso8601_utc(0) == "1970-01-01T00:00:00Z");
  CHECK(rocdoc::util::iso8601_utc(-1) == "1969-12-31T23:59:59Z");
  CHECK(rocdoc::util::iso8601_utc(951782400) == "2000-02-29T00:00:00Z");
  CHECK(rocdoc::util::iso8601_utc(1796178726) == "2026-12-02T02:32:06Z");
  CHECK(rocdoc::util::iso8601_utc(4102444799) == "2099-12-31T23:59:59Z");
}

TEST_CASE("lower_first lowers an ordinary first word only", "[util]") {
  CHECK(lower_first("Install torch 2.14.0") == "install torch 2.14.0");
  CHECK(lower_first("AMD builds torch per target") == "AMD builds torch per target");
  CHECK(lower_first("ROCm 7 dropped it") == "ROCm 7 dropped it");
  CHECK(lower_first("PyTorch") == "PyTorch");
  CHECK(lower_first("A") == "A");
  CHECK(lower_first("") == "");
}

TEST_CASE("uri_path keeps unreserved bytes and slashes and escapes the rest") {
  CHECK(rocdoc::util::uri_path("csrc/k-1_a.b~c.cu") == "csrc/k-1_a.b~c.cu");
  CHECK(rocdoc::util::uri_path("a b/\xc3\xbc%#?") == "a%20b/%C3%BC%25%23%3F");
  CHECK(rocdoc::util::uri_path("odd\nname") == "odd%0Aname");
}
