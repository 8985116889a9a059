// rocdoc_manc: the build step that turns docs/rocdoc.1.md into the man page rocdoc.1.
//   rocdoc_manc OUT IN VERSION DATE
// Markdown outside the page's subset fails the build with the line (src/man/roff.h).
#include <fstream>
#include <iostream>
#include <sstream>

#include "src/man/roff.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: rocdoc_manc OUT IN VERSION DATE\n";
    return 2;
  }
  std::ifstream in(argv[2], std::ios::binary);
  std::ostringstream markdown;
  markdown << in.rdbuf();
  if (!in) {
    std::cerr << argv[2] << ": cannot be read\n";
    return 2;
  }
  std::string roff;
  try {
    roff = rocdoc::markdown_to_roff(markdown.str(), argv[3], argv[4]);
  } catch (const rocdoc::ManPageError& error) {
    std::cerr << argv[2] << ": " << error.what() << "\n";
    return 1;
  }
  const std::string temporary = std::string(argv[1]) + ".tmp";
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  out << roff;
  out.close();
  if (!out || std::rename(temporary.c_str(), argv[1]) != 0) {
    std::cerr << argv[1] << ": cannot be written\n";
    return 2;
  }
  return 0;
}
