#pragma once
// User-facing diagnostics (docs/engineering.md#lesson-2): anything the user can cause is a Diagnostic returned in a
// Result, never an exception or an abort. Messages are lower-case, one sentence, no trailing period.

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/ice.hpp"
#include "ir/source_loc.hpp"

namespace gridcheck::ir {

enum class Severity : std::uint8_t { Error, Warning, Note };
/// "error", "warning", "note".
std::string_view name_of(Severity s);

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string code;     ///< stable code: "P..." parse, "V..." validator (docs/semantics.md §4 numbering), "G..." ours
  std::string file;     ///< file name as the user gave it; empty when there is none
  SourceLoc loc;        ///< unknown (line 0) when the construct has no text position
  std::string message;  ///< one sentence, lower case, no trailing period
  std::vector<Diagnostic> notes;  ///< secondary locations ("note: first declared here")
};

/// An ordered list of diagnostics.
class Diagnostics {
 public:
  void add(Diagnostic d) { list_.push_back(std::move(d)); }
  Diagnostic& error(std::string code, std::string file, SourceLoc loc, std::string message) {
    list_.push_back(Diagnostic{Severity::Error, std::move(code), std::move(file), loc, std::move(message), {}});
    return list_.back();
  }
  void append(const Diagnostics& other) { list_.insert(list_.end(), other.list_.begin(), other.list_.end()); }
  bool has_errors() const;
  bool empty() const { return list_.empty(); }
  std::size_t size() const { return list_.size(); }
  const std::vector<Diagnostic>& all() const { return list_; }
  auto begin() const { return list_.begin(); }
  auto end() const { return list_.end(); }

 private:
  std::vector<Diagnostic> list_;
};

/// Renders `file:line:col: error[CODE]: message`, then the source line and a caret under the column
/// when `source_text` (the whole file) is given and the location is known. Notes follow as `note:` lines.
std::string render(const Diagnostic& d, std::string_view source_text = {});
std::string render(const Diagnostics& ds, std::string_view source_text = {});

/// Renders diagnostics of one source text one at a time, as render() does, indexing the text's
/// lines once: a caller printing many diagnostics pays one pass over the text, not one per
/// diagnostic. The text must outlive the renderer.
class DiagnosticRenderer {
 public:
  explicit DiagnosticRenderer(std::string_view source_text) : text_(source_text) {}
  std::string operator()(const Diagnostic& d);
  /// Line `number` (1-based) without its line break; empty when there is none.
  std::string_view line(std::uint32_t number);

 private:
  void render_one(std::string& out, const Diagnostic& d);
  std::string_view text_;
  std::vector<std::size_t> starts_;  ///< offsets of the line starts, built on first use
};

/// A value or the diagnostics that explain why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Diagnostics diagnostics) : state_(std::move(diagnostics)) {  // NOLINT
    GC_ASSERT(std::get<Diagnostics>(state_).has_errors());
  }
  Result(Diagnostic diagnostic) : Result(single(std::move(diagnostic))) {}  // NOLINT

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { GC_ASSERT(ok()); return std::get<T>(state_); }
  T& value() & { GC_ASSERT(ok()); return std::get<T>(state_); }
  T&& value() && { GC_ASSERT(ok()); return std::get<T>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const Diagnostics& diagnostics() const { GC_ASSERT(!ok()); return std::get<Diagnostics>(state_); }

 private:
  static Diagnostics single(Diagnostic d) {
    Diagnostics ds;
    ds.add(std::move(d));
    return ds;
  }
  std::variant<T, Diagnostics> state_;
};

}  // namespace gridcheck::ir
