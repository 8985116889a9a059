// rocdoc: the ROCm environment doctor. main() only wires the real streams to the CLI.
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>

#include "src/commands/cli.h"

namespace {

extern "C" void ignore_signal(int /*signal*/) {}

/// A write to a pipe whose reader is gone (`rocdoc check | head -1`) fails with EPIPE, which
/// run_cli reports as "cannot write the report: Broken pipe", exit 2, instead of SIGPIPE
/// ending rocdoc without a word. A handler, not SIG_IGN: exec resets a handled signal to its
/// default, so an interpreter run with --python gets SIGPIPE as usual.
void catch_sigpipe() {
  struct sigaction action {};
  action.sa_handler = ignore_signal;
  ::sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGPIPE, &action, nullptr);
}

/// A standard descriptor that rocdoc was started without (`rocdoc check >&-`) is held open
/// read-only on /dev/null, so that no file rocdoc opens becomes "standard output", and a
/// write to it fails (EBADF: "cannot write the report: Bad file descriptor").
void hold_closed_standard_descriptors() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      int held = ::open("/dev/null", O_RDONLY);
      if (held == -1) {
        held = ::open("/", O_RDONLY | O_DIRECTORY);
      }
      if (held != -1 && held != fd) {
        ::close(held);  // not the lowest free descriptor: nothing to hold
      }
    }
  }
}

/// The width of the terminal on standard output (TIOCGWINSZ); nullopt when it tells none (a
/// serial console or a pseudo-terminal whose size was never set says 0).
std::optional<std::size_t> terminal_columns() {
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) {
    return std::nullopt;
  }
  return size.ws_col;
}

/// The probes' threads each get a malloc arena of their own, which glibc grows one mprotect(2)
/// per page (it pads only the main arena's brk(2)); at 1 MiB of padding each arena starts at 1
/// MiB and the main one grows in 1 MiB steps, address space only until a page is written. A live
/// check made 75 mprotect calls, now 7: 12.7 -> 12.0 ms here (3 x 80 interleaved runs; perf stat
/// -r 40: 12.9 -> 11.8 ms, task-clock 15.9 -> 13.8 ms).
void pad_malloc_arenas() { ::mallopt(M_TOP_PAD, 1 << 20); }

}  // namespace

int main(int argc, char** argv) {
  pad_malloc_arenas();
  hold_closed_standard_descriptors();
  catch_sigpipe();
  std::ios::sync_with_stdio(false);
  const auto terminal =
      ::isatty(STDOUT_FILENO) == 1 ? rocdoc::OutputIsTerminal::yes : rocdoc::OutputIsTerminal::no;
  // run_cli writes the report and flushes std::cout itself: a failed write is its exit 2.
  return rocdoc::run_cli(
      argc, argv, std::cout, std::cerr, terminal,
      terminal == rocdoc::OutputIsTerminal::yes ? terminal_columns() : std::nullopt);
}
