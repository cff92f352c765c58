#pragma once
// Internal to the case generator (case_generator.cpp and its case_* / expr_* / stmt_* pieces): the
// mutable state one generate_case call threads through every piece, and the small records it holds.
// Not part of the props API; nothing outside props/gen/ includes this.
//
// Contract: exactly one GeneratorState exists per generated case. Every piece takes it by
// reference and draws all its decisions from `c`, in program order; the order of draws is part of
// the generator's behaviour (recorded choices and saved corpus cases replay through it), so a
// refactor must never reorder, add or drop a draw.
//
// Rule: every draw is sequenced; never two draws in one unsequenced expression. C++ leaves the
// order of function arguments and of the operands of most operators (built-in `+ | <`, and every
// ir::Builder operator on E) unspecified, and compilers differ (GCC and clang do), so two calls that
// draw (c.below / word / chance / between, or a helper that draws: expr, literal, draw_element, ...)
// in one such expression would decode a seed or a saved choice sequence to different cases. Draw
// into named locals, one statement each, in the intended order. (`&&`, `||`, `?:`, the comma
// operator, braced init-lists and separate declarators are sequenced left to right.) The same rule
// holds for dag_generator.cpp.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "ir/builder.hpp"
#include "ir/ice.hpp"
#include "props/gen/case_generator.hpp"

namespace gridcheck::props::casegen {

/// What a declared buffer is for; decides how it is declared, written, read and given inputs.
enum class Role : std::uint8_t {
  Input,         ///< read-only, caller bytes
  ReadWrite,     ///< read_write, not an output, caller bytes
  Output,        ///< is_output (+ live_out) or read_write + live_out
  WriteOnly,     ///< write_only access
  Uniform,       ///< uniform access, caller bytes
  Counter,       ///< output updated only by atomics
  Workgroup,     ///< workgroup memory
  Unreferenced,  ///< an output no statement touches (B1)
  RuntimeSized,  ///< read_write with count 0 (A5)
  Converging,    ///< LongFixpoint: an output only the converging statement writes (counter + flip slots)
};

struct BufferInfo {
  ir::Buf buf;
  std::string name;
  Role role = Role::Input;
  ir::ScalarType element = ir::ScalarType::U32;
  std::uint32_t slots = 1;  ///< own slots per invocation (count = slots · N, or · wg for workgroup)
  /// Declared element count: slots · N (storage) or slots · wg (workgroup memory); with WorkgroupTail a
  /// workgroup buffer may hold fewer, (slots - 1) · wg < count ≤ slots · wg, and its last own slot
  /// lid + (slots - 1) · wg exists only for lanes below the tail.
  std::uint32_t count = 0;
  bool several_segments = false;  ///< written in more than one segment (write-only, F1)
};

struct LocalInfo {
  std::string name;
  ir::ScalarType type = ir::ScalarType::U32;
  std::uint32_t segment = 0;
  bool pure = false;        ///< a function of ids and literals only
  bool assignable = false;  ///< may be the target of an assignment
  bool loop_var = false;
};

/// A generated expression and whether it is pure (a function of ids and literals only).
struct Typed {
  ir::E e;
  bool pure = true;
};

/// Where the statement being generated sits.
struct Context {
  bool divergent = false;  ///< under per-invocation control flow: no barriers
  bool in_loop = false;    ///< no returns inside loops (V055)
  bool in_exchange = false;
  std::uint32_t depth = 0;
};

inline constexpr std::array<ir::ScalarType, 4> kTypes = {ir::ScalarType::U32, ir::ScalarType::I32,
                                                         ir::ScalarType::F32, ir::ScalarType::Bool};

struct GeneratorState {
  GeneratorState(ChoiceSource& choices, const GeneratorConfig& cfg) : c(choices), config(cfg) {}

  ChoiceSource& c;
  const GeneratorConfig& config;
  ir::Builder b;

  // Case shape (case_shape): features switched on, workgroup size, workgroups, N = invocations,
  // fence segments and fixpoint passes.
  FeatureMask features = 0;
  std::uint32_t wg = 1, groups = 1, invocations = 1, segments = 1, fixpoint = 1;
  /// The workgroup size and the grid per axis (wg = product of wg_size, groups = product of grid);
  /// y and z exceed 1 only with MultiDimGrid (without GridAuto).
  std::array<std::uint32_t, 3> wg_size{1, 1, 1}, grid{1, 1, 1};
  /// LongFixpoint: the segment holding the converging statement and its saturation bound K ≥ 3.
  std::uint32_t converging_segment = 0, converge_bound = 0;

  // Storage plan (case_storage): the buffers in declaration order and, per segment × buffer,
  // whether it is written plainly, updated atomically, and must be written at least once.
  std::uint32_t binding = 0;
  std::vector<BufferInfo> buffers;
  std::vector<std::vector<bool>> written, atomic, must_write;

  // Progress of the segment being generated (stmt_segment): per buffer, loaded / stored so far.
  std::uint32_t segment = 0;
  std::vector<bool> loaded, stored;
  bool workgroup_written = false;

  // Locals: open scopes of the segment being generated, and the locals of earlier segments.
  std::vector<std::vector<LocalInfo>> scopes;
  std::vector<LocalInfo> root_locals;
  std::uint32_t next_name = 0;

  bool on(Feature f) const { return has(features, f); }

  /// A fresh local name `prefix<n>`; the counter is shared by all prefixes.
  std::string fresh(std::string_view prefix) { return fmt::format("{}{}", prefix, next_name++); }

  bool has_role(Role role) const {
    return std::any_of(buffers.begin(), buffers.end(), [&](const BufferInfo& b) { return b.role == role; });
  }

  /// The first buffer with `role`; an internal error when there is none.
  std::size_t index_of_role(Role role) const {
    for (std::size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i].role == role) return i;
    GC_ICE("no buffer with the requested role");
  }
};

}  // namespace gridcheck::props::casegen
