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
