// run_capture against hostile programs: each must end within its limits, with its whole
// process group gone and no more output kept than allowed.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "src/util/subprocess.h"

using namespace rocdoc;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

const std::vector<std::string> k_environment = {"PATH=/usr/bin:/bin"};

struct Timed {
  std::optional<util::ProcessOutput> output;
  std::string error;
  std::chrono::milliseconds elapsed;
};

Timed run_program(const std::vector<std::string>& argv, const util::CaptureLimits& limits) {
  Timed timed;
  const auto start = Clock::now();
  timed.output = util::run_capture(argv, k_environment, limits, timed.error);
  timed.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  return timed;
}

Timed run_shell(const std::string& script, const util::CaptureLimits& limits) {
  return run_program({"/bin/sh", "-c", script}, limits);
}

/// A file name in a fresh temporary directory, removed with it.
class TempFile {
 public:
  TempFile() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "rocdoc-subprocess-XXXXXX").string();
    m_dir = ::mkdtemp(pattern.data());
  }
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove_all(m_dir, ignored);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  std::string path() const { return m_dir + "/file"; }
  pid_t read_pid() const {
    std::ifstream in(path());
    pid_t pid = 0;
    in >> pid;
    return pid;
  }

 private:
  std::string m_dir;
};

/// Gone: no such process, or a zombie (killed) that init has not reaped yet.
bool process_gone(pid_t pid) {
  const auto until = Clock::now() + 2s;
  while (Clock::now() < until) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) {
      return true;
    }
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z') {
      return true;
    }
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

}  // namespace

TEST_CASE("run_capture returns what a program printed and its exit status", "[subprocess]") {
  const auto run = run_shell("echo hello; exit 3", {5000ms, 1024});
  REQUIRE(run.output);
  CHECK(run.output->ending == util::Ending::finished);
  CHECK(run.output->exit_status == 3);
  CHECK_FALSE(run.output->signal);
  CHECK(run.output->out == "hello\n");
}

TEST_CASE("the exit status is kept though SIGCHLD was ignored", "[subprocess]") {
  // An ignored SIGCHLD, inherited from whoever started rocdoc, makes the kernel reap children.
  struct sigaction ignore {};
  struct sigaction previous {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGCHLD, &ignore, &previous);
  const auto run = run_shell("exit 3", {5000ms, 1024});
  struct sigaction after {};
  ::sigaction(SIGCHLD, &previous, &after);
  REQUIRE(run.output);
  CHECK(run.output->ending == util::Ending::finished);
  CHECK(run.output->exit_status == 3);
  CHECK(after.sa_handler == SIG_IGN);  // restored after the run
}

TEST_CASE("a program that cannot be started is an error naming it", "[subprocess]") {
  std::string error;
  CHECK_FALSE(util::run_capture({"/nonexistent/python"}, k_environment, {1000ms, 1024}, error));
  CHECK(error == "/nonexistent/python: No such file or directory");
}

TEST_CASE("a program that closes its output and keeps running is killed at the deadline",
          "[subprocess]") {
  const auto run = run_shell("exec >&-; sleep 1000", {500ms, 1024});
  REQUIRE(run.output);
  CHECK(run.output->ending == util::Ending::timed_out);
  CHECK(run.elapsed >= 500ms);
  CHECK(run.elapsed < 1500ms);
}

TEST_CASE("the whole process group of a timed-out program is killed", "[subprocess]") {
  const TempFile pid_file;
  const auto run =
      run_shell("sleep 1000 & echo $! > " + pid_file.path() + "; sleep 1000", {500ms, 1024});
  REQUIRE(run.output);
  CHECK(run.output->ending == util::Ending::timed_out);
  CHECK(run.elapsed < 1500ms);
  const pid_t grandchild = pid_file.read_pid();
  REQUIRE(grandchild > 0);
  CHECK(process_gone(grandchild));
}

TEST_CASE("endless output is cut at the limit and the program killed", "[subprocess]") {
  const auto run = run_program({"/bin/cat", "/dev/zero"}, {10000ms, 1024 * 1024});
  REQUIRE(run.output);
  CHECK(run.output->ending == util::Ending::output_over_limit);
  CHECK(run.output->out.size() == 1024 * 1024);
  CHECK(run.elapsed < 2000ms);
}

TEST_CASE("output of exactly the limit is kept whole", "[subprocess]") {
  const auto exact = run_shell("head -c 1024 /dev/zero", {5000ms, 1024});
  REQUIRE(exact.output);
  CHECK(exact.output->ending == util::Ending::finished);
  CHECK(exact.output->exit_status == 0);
  CHECK(exact.output->out.size() == 1024);
  const auto over = run_shell("head -c 1025 /dev/zero", {5000ms, 1024});
  REQUIRE(over.output);
  CHECK(over.output->ending == util::Ending::output_over_limit);
}

TEST_CASE("a program killed by a signal is reported with the signal", "[subprocess]") {
  const auto run = run_shell("kill -SEGV $$", {5000ms, 1024});
  REQUIRE(run.output);
  CHECK(run.output->ending == util::Ending::finished);
  CHECK_FALSE(run.output->exit_status);
  REQUIRE(run.output->signal);
  CHECK(*run.output->signal == SIGSEGV);
  CHECK(util::signal_name(*run.output->signal) == "SIGSEGV");
  CHECK(util::signal_name(SIGKILL) == "SIGKILL");
  CHECK(util::signal_name(SIGRTMIN + 3) == std::to_string(SIGRTMIN + 3));
}

TEST_CASE("an answer is used soon after the program exits while a child holds its output",
          "[subprocess]") {
  const TempFile pid_file;
  const auto run = run_shell(
      "echo '[\"/x\"]'; sleep 1000 & echo $! > " + pid_file.path() + "; exit 0", {5000ms, 1024});
  REQUIRE(run.output);
  CHECK(run.output->ending == util::Ending::finished);
  CHECK(run.output->exit_status == 0);
  CHECK(run.output->out == "[\"/x\"]\n");
  CHECK(run.elapsed < 1500ms);
  const pid_t grandchild = pid_file.read_pid();
  REQUIRE(grandchild > 0);
  CHECK(process_gone(grandchild));
}

TEST_CASE("the program gets exactly the environment it is given", "[subprocess]") {
  ::setenv("ROCDOC_TEST_SECRET", "hunter2", 1);
  std::string error;
  const auto output =
      util::run_capture({"/usr/bin/env"}, {"A=1", "B=two words"}, {5000ms, 1024}, error);
  ::unsetenv("ROCDOC_TEST_SECRET");
  REQUIRE(output);
  CHECK(output->exit_status == 0);
  // Not CHECK(out == ...): its expansion would print this process's environment into the log.
  const bool only_what_was_given = output->out == "A=1\nB=two words\n";
  CHECK(only_what_was_given);
}

TEST_CASE("the program inherits no descriptor but stdin and stdout and stderr", "[subprocess]") {
  const int leaked = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC, as if inherited
  REQUIRE(leaked > 2);
  // ls opens /proc/self/fd itself, as the lowest free descriptor: 3.
  const auto run = run_program({"/bin/ls", "/proc/self/fd"}, {5000ms, 1024});
  ::close(leaked);
  REQUIRE(run.output);
  CHECK(run.output->out == "0\n1\n2\n3\n");
}
