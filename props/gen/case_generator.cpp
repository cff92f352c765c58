#include "props/gen/case_generator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <string>
#include <vector>

#include "ir/builder.hpp"
#include "ir/equality.hpp"

namespace gridcheck::props {
namespace {

using ir::BinOp;
using ir::Buf;
using ir::E;
using ir::S;
using ir::ScalarType;
using ir::UnOp;

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
};

struct BufferInfo {
  Buf buf;
  std::string name;
  Role role = Role::Input;
  ScalarType element = ScalarType::U32;
  std::uint32_t slots = 1;  ///< own slots per invocation (count = slots · N, or · wg for workgroup)
  bool several_segments = false;  ///< written in more than one segment (write-only, F1)
};

struct LocalInfo {
  std::string name;
  ScalarType type = ScalarType::U32;
  std::uint32_t segment = 0;
  bool pure = false;        ///< a function of ids and literals only
  bool assignable = false;  ///< may be the target of an assignment
  bool loop_var = false;
};

struct Typed {
  E e;
  bool pure = true;
};

/// Where the statement being generated sits.
struct Context {
  bool divergent = false;  ///< under per-invocation control flow: no barriers
  bool in_loop = false;    ///< no returns inside loops (V055)
  bool in_exchange = false;
  std::uint32_t depth = 0;
};

constexpr std::array<ScalarType, 4> kTypes = {ScalarType::U32, ScalarType::I32, ScalarType::F32, ScalarType::Bool};

class CaseGenerator {
 public:
  CaseGenerator(ChoiceSource& c, const GeneratorConfig& config) : c_(c), config_(config) {}

  GeneratedCase run() {
    draw_features();
    draw_shape();
    declare_buffers();
    draw_write_sets();
    std::vector<S> entry;
    for (segment_ = 0; segment_ < segments_; ++segment_) {
      if (segment_ > 0) entry.push_back(b_.grid_sync());
      std::vector<S> ops = generate_segment();
      entry.insert(entry.end(), ops.begin(), ops.end());
    }
    GeneratedCase out;
    out.features = features_;
    ir::Case& tc = out.test_case;
    tc.program = b_.wrapped(entry);
    if (!on(Feature::GridAuto)) tc.grid = std::array<std::uint32_t, 3>{groups_, 1, 1};
    tc.fixpoint = fixpoint_;
    add_inputs(tc);
    tc.name = fmt::format("gen-{:016x}", ir::content_hash(tc.program));
    tc.description = "generated";
    tc.meta.emplace_back("features", describe(features_));
    return out;
  }

 private:
  bool on(Feature f) const { return has(features_, f); }

  // ------------------------------------------------------------------------------------- shape

  void draw_features() {
    std::vector<Feature> divergence;
    for (int i = 0; i < kFeatureCount; ++i) {
      const Feature f = static_cast<Feature>(i);
      if (!has(config_.allowed, f)) continue;
      if (has(config_.forced, f)) {
        features_ |= bit(f);
      } else if (has(kDivergenceFeatures, f) && config_.max_divergence_features != 0) {
        divergence.push_back(f);
      } else if (c_.chance(1, 2)) {
        features_ |= bit(f);
      }
    }
    // Limited divergence features: how many (0..max), then which (distinct, uniformly).
    const std::uint32_t limit = std::min<std::uint32_t>(config_.max_divergence_features,
                                                        static_cast<std::uint32_t>(divergence.size()));
    for (std::uint32_t k = c_.below(limit + 1); k > 0 && !divergence.empty(); --k) {
      const std::uint32_t pick = c_.below(static_cast<std::uint32_t>(divergence.size()));
      features_ |= bit(divergence[pick]);
      divergence.erase(divergence.begin() + pick);
    }
  }

  void draw_shape() {
    const std::uint32_t max_log = static_cast<std::uint32_t>(std::bit_width(std::max(1u, config_.max_workgroup_size)) - 1);
    wg_ = 1u << c_.below(max_log + 1);
    groups_ = on(Feature::SeveralWorkgroups) ? c_.between(2, std::max(2u, config_.max_workgroups)) : 1;
    invocations_ = wg_ * groups_;
    const bool needs_fence = on(Feature::LocalsAcrossFence) || on(Feature::WorkgroupAcrossFence) ||
                             on(Feature::ReturnBeforeFence) || on(Feature::WriteOnlyMultiSegment) ||
                             on(Feature::RwWrittenUnread);
    segments_ = on(Feature::SeveralFences) ? c_.between(2, std::max(2u, config_.max_segments)) : 1;
    if (needs_fence) segments_ = std::max(segments_, 2u);
    fixpoint_ = on(Feature::Fixpoint) || on(Feature::FixpointPartialOutputs) ? c_.between(2, 3) : 1;
    b_.program().set_workgroup_size({wg_, 1, 1});
  }

  ScalarType draw_element() { return on(Feature::ScalarTypes) ? kTypes[c_.below(4)] : ScalarType::U32; }

  BufferInfo& add(Role role, std::string name, ScalarType element, std::uint32_t slots) {
    BufferInfo info;
    info.role = role;
    info.name = std::move(name);
    info.element = element;
    info.slots = slots;
    const std::uint32_t count = slots * (role == Role::Workgroup ? wg_ : invocations_);
    switch (role) {
      case Role::Input: info.buf = b_.read(info.name, binding_++, element, count); break;
      case Role::ReadWrite: info.buf = b_.read_write(info.name, binding_++, element, count); break;
      case Role::Output:
      case Role::Counter:
      case Role::Unreferenced: info.buf = b_.output(info.name, binding_++, element, count); break;
      case Role::WriteOnly: info.buf = b_.write_only(info.name, binding_++, element, count); break;
      case Role::Uniform: info.buf = b_.uniform(info.name, binding_++, element, count); break;
      case Role::Workgroup: info.buf = b_.workgroup(info.name, count, element); break;
      case Role::RuntimeSized: info.buf = b_.read_write(info.name, binding_++, element, 0); break;
    }
    buffers_.push_back(info);
    return buffers_.back();
  }

  void declare_buffers() {
    add(Role::Input, "in", draw_element(), 1 + c_.below(2));
    if (on(Feature::ReadWriteBuffers))
      for (std::uint32_t i = 0, n = 1 + c_.below(2); i < n; ++i)
        add(Role::ReadWrite, fmt::format("rw{}", i), draw_element(), 1 + c_.below(2));
    for (std::uint32_t i = 0, n = 1 + c_.below(2); i < n; ++i) {
      BufferInfo& out = add(Role::Output, fmt::format("out{}", i), draw_element(), 1 + c_.below(2));
      if (c_.chance(1, 4)) {  // read_write + pipeline_live_out: backend-allocated without is_output
        b_.decl(out.buf).is_output = false;
      }
    }
    // A write_only buffer under a fixpoint is the A4 mechanism; keep it out of benign cases.
    if (on(Feature::WriteOnlyBuffers) && (fixpoint_ == 1 || on(Feature::FixpointPartialOutputs)))
      add(Role::WriteOnly, "wo", draw_element(), 1 + c_.below(2));
    if (on(Feature::WriteOnlyMultiSegment)) add(Role::WriteOnly, "wo_multi", draw_element(), 1).several_segments = true;
    if (on(Feature::UniformBuffers)) add(Role::Uniform, "uni", draw_element(), 1);
    if (on(Feature::Atomics)) add(Role::Counter, "ctr", ScalarType::U32, 1);
    if (on(Feature::WorkgroupMemory) || on(Feature::WorkgroupAcrossFence))
      add(Role::Workgroup, "sh", draw_element(), 1 + c_.below(2));
    if (on(Feature::UnreferencedOutput)) add(Role::Unreferenced, "unused", ScalarType::U32, 1);
    if (on(Feature::RuntimeSizedRw)) add(Role::RuntimeSized, "dyn", ScalarType::U32, 1);
    if (on(Feature::OutputByteRange)) {
      BufferInfo& out = buffers_[index_of_role(Role::Output)];
      const std::uint64_t count = std::uint64_t{out.slots} * invocations_;
      const std::uint64_t begin = c_.below(static_cast<std::uint32_t>(count));
      const std::uint64_t end = begin + 1 + c_.below(static_cast<std::uint32_t>(count - begin));
      b_.decl(out.buf).output_byte_range = ir::ByteRange{begin * 4, end * 4};
    }
  }

  std::size_t index_of_role(Role role) const {
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (buffers_[i].role == role) return i;
    GC_ICE("no buffer with the requested role");
  }

  // ------------------------------------------------------------------------------- write sets

  void draw_write_sets() {
    written_.assign(segments_, std::vector<bool>(buffers_.size(), false));
    atomic_.assign(segments_, std::vector<bool>(buffers_.size(), false));
    must_write_.assign(segments_, std::vector<bool>(buffers_.size(), false));
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const BufferInfo& info = buffers_[i];
      switch (info.role) {
        case Role::ReadWrite:
          for (std::uint32_t s = 0; s < segments_; ++s) written_[s][i] = c_.chance(1, 2);
          break;
        case Role::Output:
        case Role::RuntimeSized:
        case Role::WriteOnly: {
          const bool several = (info.role == Role::Output && on(Feature::MultiSegmentOutputs)) || info.several_segments;
          const std::uint32_t first = c_.below(segments_);
          written_[first][i] = must_write_[first][i] = true;
          if (several) {
            for (std::uint32_t s = 0; s < segments_; ++s)
              if (s != first && c_.chance(1, 2)) written_[s][i] = must_write_[s][i] = true;
            if (info.several_segments && segments_ > 1) {
              const std::uint32_t second = (first + 1) % segments_;
              written_[second][i] = must_write_[second][i] = true;
            }
          }
          break;
        }
        case Role::Counter: {
          const std::uint32_t first = c_.below(segments_);
          atomic_[first][i] = must_write_[first][i] = true;
          for (std::uint32_t s = 0; s < segments_; ++s)
            if (s != first && c_.chance(1, 3)) atomic_[s][i] = true;
          break;
        }
        default: break;
      }
    }
  }

  /// True when this segment must also read buffer `i` because it writes it (keeps benign cases
  /// out of the write-only role traps of spec §10(a)).
  bool needs_read(std::size_t i) const {
    const Role role = buffers_[i].role;
    if (role == Role::ReadWrite) return !on(Feature::RwWrittenUnread);
    if (fixpoint_ > 1 && (role == Role::Output || role == Role::WriteOnly))
      return !on(Feature::FixpointPartialOutputs);
    return false;
  }

  // --------------------------------------------------------------------------------- segments

  std::vector<S> generate_segment() {
    loaded_.assign(buffers_.size(), false);
    stored_.assign(buffers_.size(), false);
    workgroup_written_ = false;
    std::vector<S> ops;
    scopes_.emplace_back();  // segment-level lets live in the root region scope (popped at the end)
    if (has_role(Role::Workgroup) && !(on(Feature::WorkgroupAcrossFence) && segment_ > 0 && c_.chance(2, 3)))
      initialise_workgroup_memory(ops);
    const std::uint32_t count = c_.below(config_.max_ops_per_segment + 1);
    const bool fenced_construct_here = on(Feature::FenceUnderControlFlow) && segment_ == segments_ - 1;
    for (std::uint32_t i = 0; i < count; ++i) generate_op(Context{}, ops);
    if (fenced_construct_here) ops.push_back(fenced_construct());
    fulfil_obligations(ops);
    // Locals of this segment stay visible to later segments (they share the root region scope).
    root_locals_.insert(root_locals_.end(), scopes_.back().begin(), scopes_.back().end());
    scopes_.pop_back();
    return ops;
  }

  bool has_role(Role role) const {
    return std::any_of(buffers_.begin(), buffers_.end(), [&](const BufferInfo& b) { return b.role == role; });
  }

  void initialise_workgroup_memory(std::vector<S>& ops) {
    const BufferInfo& sh = buffers_[index_of_role(Role::Workgroup)];
    for (std::uint32_t k = 0; k < sh.slots; ++k) ops.push_back(b_.store(sh.buf, own_workgroup_slot(k), zero(sh.element)));
    workgroup_written_ = true;
  }

  void fulfil_obligations(std::vector<S>& ops) {
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const BufferInfo& info = buffers_[i];
      if (must_write_[segment_][i] && !stored_[i]) {
        if (info.role == Role::Counter)
          ops.push_back(atomic_op(i));
        else
          ops.push_back(store_op(i, Context{}));
      }
      if (written_[segment_][i] && stored_[i] && needs_read(i) && !loaded_[i]) {
        loaded_[i] = true;
        ops.push_back(b_.let(fresh("r"), b_.load(info.buf, own_slot(0))));
      }
    }
  }

  // ------------------------------------------------------------------------------- statements

  enum class OpKind { Store, Let, Assign, Atomic, Exchange, UniformIf, InvocationIf, UniformLoop, InvocationLoop,
                      ReturnIf, Barrier };

  std::vector<OpKind> available(const Context& ctx) const {
    std::vector<OpKind> kinds;
    if (any_written()) kinds.push_back(OpKind::Store);
    if (on(Feature::Locals)) kinds.push_back(OpKind::Let);
    if (on(Feature::Locals) && assign_target(ctx).has_value()) kinds.push_back(OpKind::Assign);
    if (any_atomic()) kinds.push_back(OpKind::Atomic);
    const bool nest = ctx.depth < config_.max_nesting;
    if (!ctx.divergent && !ctx.in_exchange && has_role(Role::Workgroup) && on(Feature::WorkgroupMemory))
      kinds.push_back(OpKind::Exchange);
    if (nest && on(Feature::UniformControlFlow)) {
      kinds.push_back(OpKind::UniformIf);
      kinds.push_back(OpKind::UniformLoop);
    }
    if (nest && (on(Feature::InvocationControlFlow) || on(Feature::PartialWrites))) kinds.push_back(OpKind::InvocationIf);
    if (nest && on(Feature::InvocationControlFlow)) kinds.push_back(OpKind::InvocationLoop);
    if (returns_allowed(ctx)) kinds.push_back(OpKind::ReturnIf);
    if (!ctx.divergent && !ctx.in_exchange && on(Feature::UniformControlFlow)) kinds.push_back(OpKind::Barrier);
    return kinds;
  }

  bool returns_allowed(const Context& ctx) const {
    if (ctx.in_loop || ctx.in_exchange) return false;
    if (on(Feature::ReturnBeforeFence)) return true;
    return on(Feature::Returns) && segment_ == segments_ - 1;
  }

  bool any_written() const {
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (written_[segment_][i]) return true;
    return false;
  }
  bool any_atomic() const {
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (atomic_[segment_][i]) return true;
    return false;
  }

  /// Appends one generated operation (one or more statements) to `out`.
  void generate_op(const Context& ctx, std::vector<S>& out) {
    const std::vector<OpKind> kinds = available(ctx);
    if (kinds.empty()) {
      out.push_back(b_.let(fresh("v"), b_.u32(c_.below(4))));
      return;
    }
    switch (kinds[c_.below(static_cast<std::uint32_t>(kinds.size()))]) {
      case OpKind::Store: out.push_back(store_op(pick_written(), ctx)); return;
      case OpKind::Let: out.push_back(let_op(ctx)); return;
      case OpKind::Assign: out.push_back(assign_op(ctx)); return;
      case OpKind::Atomic: out.push_back(atomic_op(pick_atomic())); return;
      case OpKind::Exchange: exchange_op(ctx, out); return;
      case OpKind::UniformIf: out.push_back(uniform_if(ctx)); return;
      case OpKind::InvocationIf: out.push_back(invocation_if(ctx)); return;
      case OpKind::UniformLoop: out.push_back(uniform_loop(ctx)); return;
      case OpKind::InvocationLoop: out.push_back(invocation_loop(ctx)); return;
      case OpKind::ReturnIf: out.push_back(b_.if_(invocation_condition(ctx), {b_.ret()})); return;
      case OpKind::Barrier: out.push_back(b_.barrier()); return;
    }
    GC_ICE("unhandled op kind");
  }

  std::size_t pick_written() {
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (written_[segment_][i]) candidates.push_back(i);
    return candidates[c_.below(static_cast<std::uint32_t>(candidates.size()))];
  }
  std::size_t pick_atomic() {
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (atomic_[segment_][i]) candidates.push_back(i);
    return candidates[c_.below(static_cast<std::uint32_t>(candidates.size()))];
  }

  S store_op(std::size_t i, const Context& ctx) {
    const BufferInfo& info = buffers_[i];
    stored_[i] = true;
    const E index = own_slot(c_.below(info.slots));
    const E value = expr(info.element, ctx, 0).e;
    return b_.store(info.buf, index, value);
  }

  S atomic_op(std::size_t i) {
    static constexpr std::array<ir::AtomicOp, 6> kCommutative = {ir::AtomicOp::Add, ir::AtomicOp::Or,
                                                                 ir::AtomicOp::And, ir::AtomicOp::Xor,
                                                                 ir::AtomicOp::Min, ir::AtomicOp::Max};
    const BufferInfo& info = buffers_[i];
    stored_[i] = true;
    // Different operators on one element do not commute with each other (add then and != and then
    // add), so each element has one fixed operator.
    const std::uint32_t element = c_.below(invocations_ * info.slots + 1);  // may be out of bounds: a no-op
    const ir::AtomicOp op = kCommutative[element % kCommutative.size()];
    const E index = b_.u32(element);
    const E value = expr(ScalarType::U32, Context{}, 1).e;
    // The old value is bound to a local that is never read: its value depends on the schedule.
    return b_.let(fresh("old"), b_.atomic(op, info.buf, index, value));
  }

  S let_op(const Context& ctx) {
    const ScalarType type = draw_value_type();
    Typed value = expr(type, ctx, 0);
    LocalInfo local;
    local.name = fresh("v");
    local.type = type;
    local.segment = segment_;
    local.pure = value.pure;
    local.assignable = c_.chance(1, 3);
    S s = b_.let(local.name, value.e);
    scopes_.back().push_back(local);
    return s;
  }

  std::optional<LocalInfo> assign_target(const Context& ctx) const {
    (void)ctx;
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope)
      for (const LocalInfo& l : *scope)
        if (l.assignable && !l.loop_var) return l;
    if (on(Feature::LocalsAcrossFence))
      for (const LocalInfo& l : root_locals_)
        if (l.assignable) return l;
    return std::nullopt;
  }

  S assign_op(const Context& ctx) {
    std::vector<LocalInfo> targets;
    for (const auto& scope : scopes_)
      for (const LocalInfo& l : scope)
        if (l.assignable && !l.loop_var) targets.push_back(l);
    if (on(Feature::LocalsAcrossFence))
      for (const LocalInfo& l : root_locals_)
        if (l.assignable) targets.push_back(l);
    const LocalInfo target = targets[c_.below(static_cast<std::uint32_t>(targets.size()))];
    return b_.assign(target.name, expr(target.type, ctx, 0).e);
  }

  /// `let v = 0; sh[own] = e; barrier; v = sh[any lane]; barrier` in workgroup-uniform control
  /// flow: the only place where an invocation reads another lane's workgroup memory.
  void exchange_op(const Context& ctx, std::vector<S>& out) {
    const BufferInfo& sh = buffers_[index_of_role(Role::Workgroup)];
    LocalInfo result;
    result.name = fresh("x");
    result.type = sh.element;
    result.segment = segment_;
    result.assignable = true;  // assigned below, so never re-executable across a fence
    out.push_back(b_.let(result.name, zero(sh.element)));
    out.push_back(b_.store(sh.buf, own_workgroup_slot(c_.below(sh.slots)), expr(sh.element, ctx, 1).e));
    workgroup_written_ = true;
    out.push_back(b_.barrier());
    Context inner = ctx;
    inner.in_exchange = true;
    const E any_lane = b_.bin(BinOp::Mod, expr(ScalarType::U32, inner, 1).e, b_.u32(sh.slots * wg_));
    out.push_back(b_.assign(result.name, b_.load(sh.buf, any_lane)));
    out.push_back(b_.barrier());
    scopes_.back().push_back(result);
  }

  std::vector<S> nested_body(const Context& ctx) {
    scopes_.emplace_back();
    std::vector<S> body;
    for (std::uint32_t i = 0, n = 1 + c_.below(3); i < n; ++i) generate_op(ctx, body);
    scopes_.pop_back();
    return body;
  }

  S uniform_if(const Context& ctx) {
    Context inner = ctx;
    inner.depth++;
    const E cond = uniform_condition(/*grid_uniform=*/false);
    std::vector<S> then_body = nested_body(inner);
    std::vector<S> else_body = c_.chance(1, 3) ? nested_body(inner) : std::vector<S>{};
    return b_.if_(cond, then_body, else_body);
  }

  S invocation_if(const Context& ctx) {
    Context inner = ctx;
    inner.depth++;
    inner.divergent = true;
    const E cond = invocation_condition(ctx);
    std::vector<S> then_body = nested_body(inner);
    return b_.if_(cond, then_body);
  }

  S uniform_loop(const Context& ctx) {
    Context inner = ctx;
    inner.depth++;
    inner.in_loop = true;
    const std::string var = fresh("i");
    const E to = b_.u32(c_.below(4));
    scopes_.emplace_back();
    scopes_.back().push_back(LocalInfo{var, ScalarType::U32, segment_, false, false, true});
    std::vector<S> body = nested_body(inner);
    scopes_.pop_back();
    return b_.loop(var, b_.u32(0), to, body);
  }

  S invocation_loop(const Context& ctx) {
    Context inner = ctx;
    inner.depth++;
    inner.in_loop = true;
    inner.divergent = true;
    const std::string var = fresh("i");
    const E to = b_.bin(BinOp::Mod, expr(ScalarType::U32, ctx, 1).e, b_.u32(4));
    scopes_.emplace_back();
    scopes_.back().push_back(LocalInfo{var, ScalarType::U32, segment_, false, false, true});
    std::vector<S> body = nested_body(inner);
    scopes_.pop_back();
    return b_.loop(var, b_.u32(0), to, body);
  }

  /// A fence under grid-uniform control flow (spec G5): `if true-ish { a; grid_sync; b }` or a
  /// counted loop around a fence.
  S fenced_construct() {
    const bool as_loop = c_.chance(1, 2);
    Context inner;
    inner.depth = 1;
    inner.in_loop = as_loop;
    std::vector<S> body = nested_body(inner);
    body.push_back(b_.grid_sync());
    std::vector<S> tail = nested_body(inner);
    body.insert(body.end(), tail.begin(), tail.end());
    if (!as_loop) return b_.if_(uniform_condition(/*grid_uniform=*/true), body);
    return b_.loop(fresh("i"), b_.u32(0), b_.u32(1 + c_.below(2)), body);
  }

  // ------------------------------------------------------------------------------ expressions

  ScalarType draw_value_type() { return on(Feature::ScalarTypes) ? kTypes[c_.below(4)] : ScalarType::U32; }

  std::string fresh(std::string_view prefix) { return fmt::format("{}{}", prefix, next_name_++); }

  E zero(ScalarType t) {
    switch (t) {
      case ScalarType::U32: return b_.u32(0);
      case ScalarType::I32: return b_.i32(0);
      case ScalarType::F32: return b_.f32(0.0f);
      case ScalarType::Bool: return b_.boolean(false);
    }
    GC_ICE("unknown scalar type");
  }

  /// Total invocations N: a literal with an explicit grid, the dispatch size with `grid auto`.
  E invocation_count() {
    if (!on(Feature::GridAuto)) return b_.u32(invocations_);
    return b_.num_workgroups(0) * b_.workgroup_size(0);
  }

  E own_slot(std::uint32_t k) {
    if (k == 0) return b_.gid(0);
    return b_.gid(0) + (on(Feature::GridAuto) ? invocation_count() * b_.u32(k) : b_.u32(k * invocations_));
  }
  E own_workgroup_slot(std::uint32_t k) { return k == 0 ? b_.lid(0) : b_.lid(0) + b_.u32(k * wg_); }

  /// Grid-uniform (literals, counts, buffer lengths) or, when allowed, workgroup-uniform (+ wgid).
  E uniform_condition(bool grid_uniform) {
    switch (c_.below(grid_uniform ? 3 : 4)) {
      case 0: return b_.u32(c_.below(3)) < b_.u32(c_.below(3));
      case 1: return b_.num_workgroups(0) > b_.u32(c_.below(3));
      case 2: {
        const std::size_t i = c_.below(static_cast<std::uint32_t>(buffers_.size()));
        if (buffers_[i].role == Role::Unreferenced || buffers_[i].role == Role::Counter) return b_.boolean(true);
        loaded_[i] = true;
        return b_.buf_len(buffers_[i].buf) > b_.u32(c_.below(8));
      }
      default: return b_.bin(BinOp::Mod, b_.wgid(0), b_.u32(2)) == b_.u32(c_.below(2));
    }
  }

  E invocation_condition(const Context& ctx) {
    switch (c_.below(3)) {
      case 0: return b_.bin(BinOp::Mod, b_.gid(0), b_.u32(2 + c_.below(3))) == b_.u32(c_.below(2));
      case 1: return b_.lid(0) < b_.u32(c_.below(wg_ + 1));
      default: return expr(ScalarType::Bool, ctx, 1).e;
    }
  }

  Typed literal(ScalarType t) {
    static constexpr std::array<std::uint32_t, 8> kSmall = {0, 1, 2, 3, 5, 7, 255, 0x80000000u};
    switch (t) {
      case ScalarType::U32: {
        const std::uint32_t pick = c_.below(9);
        return {b_.u32(pick < kSmall.size() ? kSmall[pick] : c_.word())};
      }
      case ScalarType::I32: {
        static constexpr std::array<std::int32_t, 6> kInts = {0, 1, -1, 7, -100, 2147483647};
        return {b_.i32(kInts[c_.below(kInts.size())])};
      }
      case ScalarType::F32: {
        static constexpr std::array<float, 6> kFloats = {0.0f, 1.0f, -2.5f, 0.5f, 1024.0f, -0.0f};
        return {b_.f32(kFloats[c_.below(kFloats.size())])};
      }
      case ScalarType::Bool: return {b_.boolean(c_.chance(1, 2))};
    }
    GC_ICE("unknown scalar type");
  }

  /// Locals of type `t` visible here that this segment may read.
  std::vector<LocalInfo> readable_locals(ScalarType t) const {
    std::vector<LocalInfo> out;
    for (const auto& scope : scopes_)
      for (const LocalInfo& l : scope)
        if (l.type == t) out.push_back(l);
    for (const LocalInfo& l : root_locals_) {
      if (l.type != t) continue;
      // Crossing a fence: vyre re-executes the initialiser, which is exact only for pure,
      // never-assigned locals (spec §6.6, §10(d)).
      if (on(Feature::LocalsAcrossFence) || (l.pure && !l.assignable)) out.push_back(l);
    }
    return out;
  }

  /// Readable storage/workgroup buffers with element type `t` (not atomically updated here).
  std::vector<std::size_t> loadable(ScalarType t, const Context& ctx) const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const BufferInfo& info = buffers_[i];
      if (info.element != t || atomic_[segment_][i] || info.role == Role::Unreferenced) continue;
      if (info.role == Role::Counter) continue;
      if (info.role == Role::Workgroup && !workgroup_written_ && !on(Feature::WorkgroupAcrossFence)) continue;
      (void)ctx;
      out.push_back(i);
    }
    return out;
  }

  Typed load(std::size_t i, const Context& ctx) {
    const BufferInfo& info = buffers_[i];
    loaded_[i] = true;
    E index;
    if (info.role == Role::Workgroup) {
      index = own_workgroup_slot(c_.below(info.slots));
    } else if (written_[segment_][i]) {
      index = own_slot(c_.below(info.slots));
    } else {
      index = expr(ScalarType::U32, ctx, config_.max_expr_depth).e;  // any index; out of bounds reads 0
    }
    return {b_.load(info.buf, index), false};
  }

  Typed leaf(ScalarType t, const Context& ctx) {
    enum { Literal, Builtin, Local, Load, Length };
    std::vector<int> options = {Literal};
    if (t == ScalarType::U32) options.push_back(Builtin), options.push_back(Length);
    const auto locals = readable_locals(t);
    if (!locals.empty()) options.push_back(Local);
    const auto buffers = loadable(t, ctx);
    if (!buffers.empty()) options.push_back(Load);
    switch (options[c_.below(static_cast<std::uint32_t>(options.size()))]) {
      case Builtin:
        switch (c_.below(4)) {
          case 0: return {b_.gid(0)};
          case 1: return {b_.lid(0)};
          case 2: return {b_.wgid(0)};
          default: return {b_.num_workgroups(0)};
        }
      case Length: {
        const std::size_t i = c_.below(static_cast<std::uint32_t>(buffers_.size()));
        if (buffers_[i].role == Role::Unreferenced || buffers_[i].role == Role::Counter) return literal(t);
        loaded_[i] = true;
        return {b_.buf_len(buffers_[i].buf)};
      }
      case Local: {
        const LocalInfo& l = locals[c_.below(static_cast<std::uint32_t>(locals.size()))];
        return {b_.var(l.name), l.pure && !l.assignable};
      }
      case Load: return load(buffers[c_.below(static_cast<std::uint32_t>(buffers.size()))], ctx);
      default: return literal(t);
    }
  }

  Typed combine(Typed a, Typed b_typed, BinOp op) { return {b_.bin(op, a.e, b_typed.e), a.pure && b_typed.pure}; }

  Typed expr(ScalarType t, const Context& ctx, std::uint32_t depth) {
    if (depth >= config_.max_expr_depth || c_.below(3) == 0) return leaf(t, ctx);
    const std::uint32_t d = depth + 1;
    switch (t) {
      case ScalarType::U32: {
        static constexpr std::array<BinOp, 16> kOps = {
            BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod, BinOp::BitAnd, BinOp::BitOr, BinOp::BitXor,
            BinOp::Shl, BinOp::Shr, BinOp::Min, BinOp::Max, BinOp::SaturatingAdd, BinOp::RotateLeft,
            BinOp::MulHigh, BinOp::WrappingSub};
        switch (c_.below(5)) {
          case 0: {
            static constexpr std::array<UnOp, 5> kUn = {UnOp::BitNot, UnOp::Popcount, UnOp::Clz, UnOp::Ctz,
                                                        UnOp::ReverseBits};
            Typed x = expr(t, ctx, d);
            return {b_.un(kUn[c_.below(kUn.size())], x.e), x.pure};
          }
          case 1: {
            const ScalarType from = draw_value_type();
            Typed x = expr(from, ctx, d);
            return {b_.cast(ScalarType::U32, x.e), x.pure};
          }
          case 2: return select(t, ctx, d);
          default: return combine(expr(t, ctx, d), expr(t, ctx, d), kOps[c_.below(kOps.size())]);
        }
      }
      case ScalarType::I32: {
        static constexpr std::array<BinOp, 9> kOps = {BinOp::Add, BinOp::Sub,    BinOp::Mul, BinOp::BitAnd, BinOp::BitXor,
                                                      BinOp::Shr, BinOp::Min,    BinOp::Max, BinOp::SaturatingSub};
        switch (c_.below(5)) {
          case 0: {
            Typed x = expr(t, ctx, d);
            return {b_.un(c_.chance(1, 2) ? UnOp::Negate : UnOp::Abs, x.e), x.pure};
          }
          case 1: {
            // Division by a literal that is neither 0 nor -1 cannot trap.
            static constexpr std::array<std::int32_t, 4> kDivisors = {2, 3, -7, 16};
            Typed x = expr(t, ctx, d);
            const BinOp op = c_.chance(1, 2) ? BinOp::Div : BinOp::Mod;
            return {b_.bin(op, x.e, b_.i32(kDivisors[c_.below(kDivisors.size())])), x.pure};
          }
          case 2: {
            Typed x = expr(ScalarType::U32, ctx, d);
            return {b_.cast(ScalarType::I32, x.e), x.pure};
          }
          case 3: return select(t, ctx, d);
          default: return combine(expr(t, ctx, d), expr(t, ctx, d), kOps[c_.below(kOps.size())]);
        }
      }
      case ScalarType::F32: {
        // Only operations Vulkan computes exactly, so GPU comparisons stay bit-exact.
        static constexpr std::array<BinOp, 5> kOps = {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Min, BinOp::Max};
        switch (c_.below(5)) {
          case 0: {
            static constexpr std::array<UnOp, 5> kUn = {UnOp::Negate, UnOp::Abs, UnOp::Floor, UnOp::Ceil, UnOp::Trunc};
            Typed x = expr(t, ctx, d);
            return {b_.un(kUn[c_.below(kUn.size())], x.e), x.pure};
          }
          case 1: {
            Typed a = expr(t, ctx, d), b = expr(t, ctx, d), c = expr(t, ctx, d);
            return {b_.fma(a.e, b.e, c.e), a.pure && b.pure && c.pure};
          }
          case 2: {
            Typed x = expr(ScalarType::I32, ctx, d);
            return {b_.cast(ScalarType::F32, x.e), x.pure};
          }
          case 3: return select(t, ctx, d);
          default: return combine(expr(t, ctx, d), expr(t, ctx, d), kOps[c_.below(kOps.size())]);
        }
      }
      case ScalarType::Bool: {
        static constexpr std::array<BinOp, 6> kCmp = {BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Gt, BinOp::Le, BinOp::Ge};
        switch (c_.below(4)) {
          case 0: {
            const ScalarType from = on(Feature::ScalarTypes) ? kTypes[c_.below(3)] : ScalarType::U32;
            return combine(expr(from, ctx, d), expr(from, ctx, d), kCmp[c_.below(kCmp.size())]);
          }
          case 1: {
            Typed x = expr(t, ctx, d);
            return {b_.un(UnOp::LogicalNot, x.e), x.pure};
          }
          case 2: return combine(expr(t, ctx, d), expr(t, ctx, d), c_.chance(1, 2) ? BinOp::And : BinOp::Or);
          default: {
            Typed x = expr(ScalarType::U32, ctx, d);
            return {b_.cast(ScalarType::Bool, x.e), x.pure};
          }
        }
      }
    }
    GC_ICE("unknown scalar type");
  }

  Typed select(ScalarType t, const Context& ctx, std::uint32_t d) {
    Typed c = expr(ScalarType::Bool, ctx, d), a = expr(t, ctx, d), b = expr(t, ctx, d);
    return {b_.select(c.e, a.e, b.e), c.pure && a.pure && b.pure};
  }

  // ----------------------------------------------------------------------------------- inputs

  void add_inputs(ir::Case& tc) {
    for (const BufferInfo& info : buffers_) {
      const bool caller_bytes = info.role == Role::Input || info.role == Role::ReadWrite ||
                                info.role == Role::Uniform || info.role == Role::RuntimeSized;
      if (!caller_bytes) continue;
      ir::InputData in;
      in.buffer = info.name;
      in.kind = ir::InputData::Kind::Random;
      in.seed = (std::uint64_t{c_.word()} << 32) | c_.word();
      if (info.role == Role::RuntimeSized) in.length = invocations_;
      tc.inputs.push_back(in);
    }
  }

  ChoiceSource& c_;
  const GeneratorConfig& config_;
  ir::Builder b_;
  FeatureMask features_ = 0;
  std::uint32_t wg_ = 1, groups_ = 1, invocations_ = 1, segments_ = 1, fixpoint_ = 1;
  std::uint32_t binding_ = 0;
  std::uint32_t segment_ = 0;
  std::uint32_t next_name_ = 0;
  std::vector<BufferInfo> buffers_;
  std::vector<std::vector<bool>> written_, atomic_, must_write_;
  std::vector<bool> loaded_, stored_;
  bool workgroup_written_ = false;
  std::vector<std::vector<LocalInfo>> scopes_;
  std::vector<LocalInfo> root_locals_;
};

}  // namespace

GeneratedCase generate_case(ChoiceSource& choices, const GeneratorConfig& config) {
  return CaseGenerator(choices, config).run();
}

}  // namespace gridcheck::props
