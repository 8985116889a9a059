#include "src/scan/comments.h"

#include <cctype>

namespace rocdoc {

namespace {

bool is_word_byte(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

/// C, C++, CUDA and HIP: a small lexer of comments and literals. A literal that reaches the
/// line's end without an escaped newline ends there, so one stray quote costs one line only.
std::string without_c_comments(std::string_view text) {
  std::string out(text);
  enum class State { code, line_comment, block_comment, string, character };
  State state = State::code;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    const char next = i + 1 < out.size() ? out[i + 1] : '\0';
    switch (state) {
      case State::code:
        if (c == '/' && next == '/') {
          state = State::line_comment;
          out[i] = ' ';
        } else if (c == '/' && next == '*') {
          state = State::block_comment;
          out[i] = ' ';
          out[++i] = ' ';
        } else if (c == '"') {
          state = State::string;
        } else if (c == '\'' && !(i > 0 && is_word_byte(out[i - 1]))) {
          state = State::character;  // not a digit separator (1'000'000) nor a u8'x' prefix
        }
        break;
      case State::line_comment:
        if (c == '\n') {
          state = State::code;
        } else if (c != '\r') {
          out[i] = ' ';
        }
        break;
      case State::block_comment:
        if (c == '*' && next == '/') {
          out[i] = ' ';
          out[++i] = ' ';
          state = State::code;
        } else if (c != '\n' && c != '\r') {
          out[i] = ' ';
        }
        break;
      case State::string:
      case State::character:
        if (c == '\\' && next != '\0') {
          ++i;  // an escaped byte, an escaped newline included
        } else if (c == '\n' || (state == State::string && c == '"') ||
                   (state == State::character && c == '\'')) {
          state = State::code;
        }
        break;
    }
  }
  return out;
}

/// Python, shell, CMake, Make, Dockerfiles, YAML, TOML: `#` at a line's start or after a
/// space or tab starts a comment, unless a quote of that line is open (${#x} and $# are not
/// comments; a # inside "…" is not either).
std::string without_hash_comments(std::string_view text) {
  std::string out(text);
  char quote = '\0';
  bool after_space = true;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (c == '\n') {
      quote = '\0';
      after_space = true;
      continue;
    }
    if (quote != '\0') {
      if (c == '\\' && quote == '"' && i + 1 < out.size() && out[i + 1] != '\n') {
        ++i;
      } else if (c == quote) {
        quote = '\0';
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && after_space) {
      for (; i < out.size() && out[i] != '\n'; ++i) {
        if (out[i] != '\r') {
          out[i] = ' ';
        }
      }
      --i;
      continue;
    }
    after_space = c == ' ' || c == '\t';
  }
  return out;
}

}  // namespace

std::string without_comments(std::string_view text, CommentSyntax syntax) {
  return syntax == CommentSyntax::c_like ? without_c_comments(text) : without_hash_comments(text);
}

}  // namespace rocdoc
