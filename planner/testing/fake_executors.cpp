#include "planner/testing/fake_executors.hpp"

#include <cstring>
#include <map>
#include <stdexcept>

#include "ir/abi.hpp"

namespace gridcheck::planner::testing {

Bytes words(std::initializer_list<std::uint32_t> values) { return words(std::vector<std::uint32_t>(values)); }

Bytes words(const std::vector<std::uint32_t>& values) {
  Bytes out(values.size() * 4);
  for (std::size_t i = 0; i < values.size(); ++i)
    for (int b = 0; b < 4; ++b) out[i * 4 + b] = static_cast<std::uint8_t>(values[i] >> (8 * b));
  return out;
}

std::vector<std::uint32_t> as_words(const Bytes& bytes) {
  std::vector<std::uint32_t> out(bytes.size() / 4);
  for (std::size_t i = 0; i < out.size(); ++i)
    for (int b = 0; b < 4; ++b) out[i] |= std::uint32_t{bytes[i * 4 + b]} << (8 * b);
  return out;
}

namespace {

struct Invalid : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct Finished {};

class Machine {
 public:
  Machine(const ir::Program& p, std::map<ir::NameId, Bytes>& memory, std::uint32_t wg_size, std::uint32_t workgroups)
      : p_(p), memory_(memory), wg_size_(wg_size), workgroups_(workgroups) {}

  void run_invocation(std::uint32_t gid) {
    gid_ = gid;
    scopes_.assign(1, {});
    try {
      run_list(p_.entry());
    } catch (const Finished&) {
    }
  }

 private:
  std::uint32_t* lookup(ir::NameId name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto f = it->find(name); f != it->end()) return &f->second;
    return nullptr;
  }

  void run_list(ir::StmtList list) {
    scopes_.emplace_back();
    for (ir::StmtId id : p_.list(list)) run(id);
    scopes_.pop_back();
  }

  Bytes& buffer(ir::NameId name) {
    auto it = memory_.find(name);
    if (it == memory_.end()) throw Invalid("buffer `" + std::string(p_.name(name)) + "` is not declared");
    return it->second;
  }

  std::uint32_t load(ir::NameId name, std::uint32_t index) {
    Bytes& b = buffer(name);
    if (std::size_t{index} * 4 + 4 > b.size()) return 0;
    std::uint32_t v = 0;
    std::memcpy(&v, b.data() + std::size_t{index} * 4, 4);
    return v;
  }

  void store(ir::NameId name, std::uint32_t index, std::uint32_t value) {
    Bytes& b = buffer(name);
    if (std::size_t{index} * 4 + 4 > b.size()) return;
    std::memcpy(b.data() + std::size_t{index} * 4, &value, 4);
  }

  void run(ir::StmtId id) {
    const ir::Stmt& s = p_.stmt(id);
    switch (s.kind) {
      case ir::StmtKind::Let:
        if (lookup(s.names[0])) throw Invalid("let `" + std::string(p_.name(s.names[0])) + "` shadows a live local");
        scopes_.back()[s.names[0]] = eval(s.exprs[0]);
        return;
      case ir::StmtKind::Assign:
        if (std::uint32_t* v = lookup(s.names[0])) {
          *v = eval(s.exprs[0]);
          return;
        }
        throw Invalid("assign to undeclared `" + std::string(p_.name(s.names[0])) + "`");
      case ir::StmtKind::Store: {
        const std::uint32_t index = eval(s.exprs[0]);
        store(s.names[0], index, eval(s.exprs[1]));
        return;
      }
      case ir::StmtKind::If:
        run_list(eval(s.exprs[0]) != 0 ? s.body : s.otherwise);
        return;
      case ir::StmtKind::Loop: {
        const std::uint32_t from = eval(s.exprs[0]);
        const std::uint32_t to = eval(s.exprs[1]);
        for (std::uint32_t i = from; i < to; ++i) {
          scopes_.emplace_back();
          scopes_.back()[s.names[0]] = i;
          run_list(s.body);
          scopes_.pop_back();
        }
        return;
      }
      case ir::StmtKind::Block:
      case ir::StmtKind::Region: run_list(s.body); return;
      case ir::StmtKind::Return: throw Finished{};
      case ir::StmtKind::Barrier:
        if (s.is_fence()) throw Invalid("the launched program still contains a grid_sync fence");
        return;
      default: throw Invalid("unsupported statement");
    }
  }

  std::uint32_t eval(ir::ExprId id) {
    const ir::Expr& e = p_.expr(id);
    switch (e.kind) {
      case ir::ExprKind::LitU32:
      case ir::ExprKind::LitI32:
      case ir::ExprKind::LitBool: return e.payload;
      case ir::ExprKind::Var:
        if (std::uint32_t* v = lookup(e.var())) return *v;
        throw Invalid("undeclared variable `" + std::string(p_.name(e.var())) + "`");
      case ir::ExprKind::Load: return load(e.buffer(), eval(e.operands[0]));
      case ir::ExprKind::BufLen: return static_cast<std::uint32_t>(buffer(e.buffer()).size() / 4);
      case ir::ExprKind::InvocationId: return e.axis() == 0 ? gid_ : 0;
      case ir::ExprKind::LocalId: return e.axis() == 0 ? gid_ % wg_size_ : 0;
      case ir::ExprKind::WorkgroupId: return e.axis() == 0 ? gid_ / wg_size_ : 0;
      case ir::ExprKind::NumWorkgroups: return e.axis() == 0 ? workgroups_ : 1;
      case ir::ExprKind::WorkgroupSize: return e.axis() == 0 ? wg_size_ : 1;
      case ir::ExprKind::Select: {
        const std::uint32_t c = eval(e.operands[0]);
        const std::uint32_t t = eval(e.operands[1]);
        const std::uint32_t f = eval(e.operands[2]);
        return c != 0 ? t : f;
      }
      case ir::ExprKind::Binary: return binary(e.bin_op(), eval(e.operands[0]), eval(e.operands[1]));
      case ir::ExprKind::Atomic: {
        const std::uint32_t index = eval(e.operands[0]);
        const std::uint32_t value = eval(e.operands[1]);
        const std::uint32_t expected = e.operands[2] == ir::kNoExpr ? 0 : eval(e.operands[2]);
        if (std::size_t{index} * 4 + 4 > buffer(e.buffer()).size()) return 0;
        const std::uint32_t old = load(e.buffer(), index);
        std::uint32_t next = old;
        switch (e.atomic_op()) {
          case ir::AtomicOp::Add: next = old + value; break;
          case ir::AtomicOp::Or: next = old | value; break;
          case ir::AtomicOp::And: next = old & value; break;
          case ir::AtomicOp::Xor: next = old ^ value; break;
          case ir::AtomicOp::Min: next = std::min(old, value); break;
          case ir::AtomicOp::Max: next = std::max(old, value); break;
          case ir::AtomicOp::Exchange: next = value; break;
          case ir::AtomicOp::CompareExchange: next = old == expected ? value : old; break;
        }
        store(e.buffer(), index, next);
        return old;
      }
      default: throw Invalid("unsupported expression");
    }
  }

  static std::uint32_t binary(ir::BinOp op, std::uint32_t l, std::uint32_t r) {
    switch (op) {
      case ir::BinOp::Add:
      case ir::BinOp::WrappingAdd: return l + r;
      case ir::BinOp::Sub:
      case ir::BinOp::WrappingSub: return l - r;
      case ir::BinOp::Mul: return l * r;
      case ir::BinOp::Div: return r == 0 ? 0xFFFFFFFFu : l / r;
      case ir::BinOp::Mod: return r == 0 ? 0 : l % r;
      case ir::BinOp::BitAnd: return l & r;
      case ir::BinOp::BitOr: return l | r;
      case ir::BinOp::BitXor: return l ^ r;
      case ir::BinOp::Shl: return l << (r & 31);
      case ir::BinOp::Shr: return l >> (r & 31);
      case ir::BinOp::Eq: return l == r;
      case ir::BinOp::Ne: return l != r;
      case ir::BinOp::Lt: return l < r;
      case ir::BinOp::Gt: return l > r;
      case ir::BinOp::Le: return l <= r;
      case ir::BinOp::Ge: return l >= r;
      case ir::BinOp::And: return l != 0 && r != 0;
      case ir::BinOp::Or: return l != 0 || r != 0;
      case ir::BinOp::Min: return std::min(l, r);
      case ir::BinOp::Max: return std::max(l, r);
      case ir::BinOp::SaturatingAdd: return l + r < l ? 0xFFFFFFFFu : l + r;
      default: throw Invalid("unsupported binary operator");
    }
  }

  const ir::Program& p_;
  std::map<ir::NameId, Bytes>& memory_;
  std::uint32_t wg_size_;
  std::uint32_t workgroups_;
  std::uint32_t gid_ = 0;
  std::vector<std::map<ir::NameId, std::uint32_t>> scopes_;
};

}  // namespace

std::optional<LaunchError> MiniExecutor::launch(const ir::Program& program, std::span<const Bytes* const> inputs,
                                                const LaunchConfig& config, std::vector<Bytes>& outputs) {
  RecordedLaunch record{program, {}, config};
  for (const Bytes* b : inputs) record.inputs.push_back(*b);
  launches.push_back(std::move(record));

  std::map<ir::NameId, Bytes> memory;
  std::size_t next_input = 0;
  for (const ir::BufferDecl& b : program.buffers()) {
    if (ir::is_dispatch_input(b)) {
      if (next_input >= inputs.size())
        return LaunchError{LaunchErrorKind::InvalidProgram, "too few inputs", {}, std::nullopt};
      memory[b.name] = *inputs[next_input++];
    } else {
      memory[b.name] = Bytes(static_cast<std::size_t>(ir::backend_allocation_bytes(b).value_or(0)), 0);
    }
  }
  if (next_input != inputs.size())
    return LaunchError{LaunchErrorKind::InvalidProgram, "too many inputs", {}, std::nullopt};

  const auto wg = config.workgroup_override.value_or(program.workgroup_size());
  const std::uint32_t workgroups = config.grid_override ? (*config.grid_override)[0] : default_workgroups;
  Machine machine(program, memory, wg[0], workgroups);
  try {
    for (std::uint32_t pass = 0; pass < config.fixpoint_iterations; ++pass)
      for (std::uint32_t gid = 0; gid < workgroups * wg[0]; ++gid) machine.run_invocation(gid);
  } catch (const Invalid& error) {
    return LaunchError{LaunchErrorKind::InvalidProgram, error.what(), {}, std::nullopt};
  }

  std::size_t slot = 0;
  for (const ir::BufferDecl& b : program.buffers()) {
    if (!ir::is_dispatch_output(b)) continue;
    if (outputs.size() <= slot) outputs.resize(slot + 1);
    const Bytes& bytes = memory[b.name];
    if (b.output_byte_range) {
      const auto begin = std::min<std::size_t>(b.output_byte_range->begin, bytes.size());
      const auto end = std::min<std::size_t>(b.output_byte_range->end, bytes.size());
      outputs[slot].assign(bytes.begin() + static_cast<std::ptrdiff_t>(begin),
                           bytes.begin() + static_cast<std::ptrdiff_t>(std::max(begin, end)));
    } else {
      outputs[slot].assign(bytes.begin(), bytes.end());
    }
    ++slot;
  }
  outputs.resize(slot);
  return std::nullopt;
}

}  // namespace gridcheck::planner::testing
