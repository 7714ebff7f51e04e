// Errors are values until the CLI (STYLE.md 7). A Status carries a one-line
// message that names the offending input and, where possible, the fix.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace sd {

class Status {
 public:
  Status() = default;
  static Status error(std::string msg) { Status s; s.msg_ = std::move(msg); s.ok_ = false; return s; }
  bool ok() const { return ok_; }
  const std::string& message() const { return msg_; }

 private:
  bool ok_ = true;
  std::string msg_;
};

// A value or an error message. Minimal stand-in for std::expected (C++23).
template <class T>
class Result {
 public:
  Result(T v) : v_(std::move(v)) {}                       // NOLINT: implicit on purpose
  Result(Status s) : v_(std::move(s)) {}                  // NOLINT: must be an error
  static Result error(std::string msg) { return Result(Status::error(std::move(msg))); }
  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const { return value(); }
  T& operator*() { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const std::string& message() const { return std::get<Status>(v_).message(); }
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace sd
