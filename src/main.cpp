// rocdoc: the ROCm environment doctor. main() only wires the real streams to the CLI.
#include <unistd.h>

#include <iostream>

#include "src/cli.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const auto terminal =
      ::isatty(STDOUT_FILENO) == 1 ? rocdoc::OutputIsTerminal::yes : rocdoc::OutputIsTerminal::no;
  const int code = rocdoc::run_cli(argc, argv, std::cout, std::cerr, terminal);
  std::cout.flush();
  return code;
}
