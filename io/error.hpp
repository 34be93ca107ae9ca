#pragma once
// The one error type io raises. The CLI catches it at the command boundary and prints
// `what()` as a single line, so messages name the file and, where known, the line or joint.
#include <stdexcept>
#include <string>

namespace ikfix::io {

class InputError : public std::runtime_error {
 public:
  // `file`: path as the user gave it; `line`: 1-based, 0 when unknown; `cause`: what is wrong.
  InputError(const std::string& file, int line, const std::string& cause)
      : std::runtime_error(format(file, line, cause)), file_(file), line_(line), cause_(cause) {}
  InputError(const std::string& file, const std::string& cause) : InputError(file, 0, cause) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& cause() const { return cause_; }

 private:
  static std::string format(const std::string& file, int line, const std::string& cause) {
    return line > 0 ? file + ":" + std::to_string(line) + ": " + cause : file + ": " + cause;
  }
  std::string file_;
  int line_;
  std::string cause_;
};

// A third-party error text (Assimp's) as one line: line breaks and tabs become spaces,
// trailing spaces go, and an empty text reads "unknown error".
inline std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text.empty() ? "unknown error" : text;
}

}  // namespace ikfix::io
