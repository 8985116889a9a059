// rocdoc's own errno and signal names (glibc 2.31 has no strerrorname_np or sigabbrev_np).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>

#include "src/util/system_names.h"

using namespace rocdoc::util;

TEST_CASE("errno and signal names come from rocdoc's tables") {
  CHECK(errno_symbol(EACCES) == "EACCES");
  CHECK(errno_symbol(ENOENT) == "ENOENT");
  CHECK(errno_symbol(ELOOP) == "ELOOP");
  CHECK(errno_symbol(EAGAIN) == "EAGAIN");  // EWOULDBLOCK is the same value
  CHECK(errno_symbol(4095) == "E4095");
  CHECK(signal_symbol(SIGSEGV) == "SIGSEGV");
  CHECK(signal_symbol(SIGABRT) == "SIGABRT");
  CHECK(signal_symbol(SIGKILL) == "SIGKILL");
  CHECK(signal_symbol(200) == "200");
}

TEST_CASE("close_descriptors_from closes every descriptor from the first") {
  // In a child: the test runner's own descriptors above `first` must stay open.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int kept = ::open("/dev/null", O_RDONLY);
    const int first = ::dup2(kept, 200);
    const int second = ::dup2(kept, 300);
    close_descriptors_from(first);
    const bool closed = ::fcntl(first, F_GETFD) == -1 && ::fcntl(second, F_GETFD) == -1;
    const bool open = ::fcntl(kept, F_GETFD) >= 0;
    ::_exit(closed && open ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("user and group names from /etc/passwd and /etc/group where NSS reads them first") {
  const std::string_view debian =
      "# /etc/nsswitch.conf\n\npasswd:         files systemd\ngroup:          files systemd\n"
      "hosts:          files dns\n";
  CHECK(nss_asks_files_first(debian, "passwd"));
  CHECK(nss_asks_files_first(debian, "group"));
  CHECK(nss_asks_files_first("passwd: compat\n", "passwd"));
  CHECK(nss_asks_files_first("group:files [SUCCESS=merge] sss\n", "group"));
  // Another source first, no line (glibc's default), or the line commented out: ask NSS.
  CHECK_FALSE(nss_asks_files_first("passwd: sss files\ngroup: files\n", "passwd"));
  CHECK_FALSE(nss_asks_files_first("group: files\n", "passwd"));
  CHECK_FALSE(nss_asks_files_first("#passwd: files\n", "passwd"));
  CHECK_FALSE(nss_asks_files_first("passwd:\n", "passwd"));
  CHECK_FALSE(nss_asks_files_first("", "group"));

  const std::string_view passwd =
      "root:x:0:0:root:/root:/bin/bash\n# a comment\n\nrender-user:x:1000:1000::/home/r:/bin/sh\n"
      "second:x:1000:1000::/home/s:/bin/sh\nbad:x:12a:0::/:/bin/sh\n+nisuser::::::\n"
      "late:x:2000:2000::/:/bin/sh";
  CHECK(name_of_id(passwd, 0) == "root");
  CHECK(name_of_id(passwd, 1000) == "render-user");  // the first line with the id
  CHECK(name_of_id(passwd, 12) == std::nullopt);
  CHECK(name_of_id(passwd, 2000) == std::nullopt);  // after a NIS line: NSS decides
  CHECK(name_of_id("video:x:44:alice,bob\nrender:x:105:", 105) == "render");
  CHECK(name_of_id("render:x:4294967296:\n", 0) == std::nullopt);
  CHECK(name_of_id(":x:5:\n", 5) == std::nullopt);
  CHECK(name_of_id("", 0) == std::nullopt);
}
