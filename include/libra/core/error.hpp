#pragma once
// Exceptions Libra throws at its API boundary. Everything derives from
// libra::Error so a caller can catch one type; the CLI maps InputError to exit 3.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace libra {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A malformed or unreadable input file. what() is "FILE:LINE: problem" (LINE is
// omitted when the problem is not tied to one line, e.g. a missing file).
class InputError : public Error {
 public:
  InputError(std::string file, std::size_t line, const std::string& problem)
      : Error(format(file, line, problem)),
        file_(std::move(file)),
        line_(line),
        problem_(problem) {}
  const std::string& file() const noexcept { return file_; }
  std::size_t line() const noexcept { return line_; }  // 0: not tied to a line
  const std::string& problem() const noexcept { return problem_; }

 private:
  static std::string format(const std::string& file, std::size_t line,
                            const std::string& problem) {
    return line ? file + ":" + std::to_string(line) + ": " + problem
                : file + ": " + problem;
  }
  std::string file_;
  std::size_t line_;
  std::string problem_;
};

// Operands whose shapes or extents do not fit together.
class ShapeError : public Error {
 public:
  using Error::Error;
};

// A count that does not fit the offset or ordinal type it must be stored in.
class OverflowError : public Error {
 public:
  using Error::Error;
};

// An argument outside its documented range (a negative width, an unknown option).
class ArgumentError : public Error {
 public:
  using Error::Error;
};

}  // namespace libra
