#include "ir/builder.hpp"

#include <bit>

namespace gridcheck::ir {
namespace {

E binary(BinOp op, E l, E r) {
  GC_ASSERT(l.program != nullptr && l.program == r.program);
  Expr e;
  e.kind = ExprKind::Binary;
  e.op = static_cast<std::uint8_t>(op);
  e.operands = {l.id, r.id, kNoExpr};
  return E{l.program, l.program->add_expr(e)};
}

std::vector<S> to_vector(std::initializer_list<S> body) { return std::vector<S>(body); }

}  // namespace

E operator+(E l, E r) { return binary(BinOp::Add, l, r); }
E operator-(E l, E r) { return binary(BinOp::Sub, l, r); }
E operator*(E l, E r) { return binary(BinOp::Mul, l, r); }
E operator/(E l, E r) { return binary(BinOp::Div, l, r); }
E operator%(E l, E r) { return binary(BinOp::Mod, l, r); }
E operator&(E l, E r) { return binary(BinOp::BitAnd, l, r); }
E operator|(E l, E r) { return binary(BinOp::BitOr, l, r); }
E operator^(E l, E r) { return binary(BinOp::BitXor, l, r); }
E operator<<(E l, E r) { return binary(BinOp::Shl, l, r); }
E operator>>(E l, E r) { return binary(BinOp::Shr, l, r); }
E operator==(E l, E r) { return binary(BinOp::Eq, l, r); }
E operator!=(E l, E r) { return binary(BinOp::Ne, l, r); }
E operator<(E l, E r) { return binary(BinOp::Lt, l, r); }
E operator>(E l, E r) { return binary(BinOp::Gt, l, r); }
E operator<=(E l, E r) { return binary(BinOp::Le, l, r); }
E operator>=(E l, E r) { return binary(BinOp::Ge, l, r); }
E operator&&(E l, E r) { return binary(BinOp::And, l, r); }
E operator||(E l, E r) { return binary(BinOp::Or, l, r); }

Builder::Builder(std::array<std::uint32_t, 3> workgroup_size) { program_.set_workgroup_size(workgroup_size); }

Buf Builder::storage(std::string_view name, std::uint32_t binding, BufferAccess access, ScalarType element,
                     std::uint32_t count) {
  BufferDecl d;
  d.name = program_.intern(name);
  d.binding = binding;
  d.access = access;
  d.kind = derived_kind(access);
  d.element = element;
  d.count = count;
  program_.add_buffer(d);
  return Buf{d.name};
}

Buf Builder::read(std::string_view name, std::uint32_t binding, ScalarType element, std::uint32_t count) {
  return storage(name, binding, BufferAccess::ReadOnly, element, count);
}
Buf Builder::read_write(std::string_view name, std::uint32_t binding, ScalarType element, std::uint32_t count) {
  return storage(name, binding, BufferAccess::ReadWrite, element, count);
}
Buf Builder::write_only(std::string_view name, std::uint32_t binding, ScalarType element, std::uint32_t count) {
  return storage(name, binding, BufferAccess::WriteOnly, element, count);
}
Buf Builder::output(std::string_view name, std::uint32_t binding, ScalarType element, std::uint32_t count) {
  Buf b = storage(name, binding, BufferAccess::ReadWrite, element, count);
  decl(b).is_output = true;
  decl(b).pipeline_live_out = true;
  return b;
}
Buf Builder::uniform(std::string_view name, std::uint32_t binding, ScalarType element, std::uint32_t count) {
  return storage(name, binding, BufferAccess::Uniform, element, count);
}
Buf Builder::workgroup(std::string_view name, std::uint32_t count, ScalarType element) {
  return storage(name, 0, BufferAccess::Workgroup, element, count);
}

BufferDecl& Builder::decl(Buf buffer) {
  for (BufferDecl& d : program_.mutable_buffers())
    if (d.name == buffer.name) return d;
  GC_ICE("Builder::decl of a buffer that was not declared");
}

E Builder::make(const Expr& e) { return E{&program_, program_.add_expr(e)}; }
S Builder::make(const Stmt& s) { return S{program_.add_stmt(s)}; }

E Builder::u32(std::uint32_t value) { return make(Expr{ExprKind::LitU32, 0, MemoryOrdering::SeqCst, value}); }
E Builder::i32(std::int32_t value) {
  return make(Expr{ExprKind::LitI32, 0, MemoryOrdering::SeqCst, static_cast<std::uint32_t>(value)});
}
E Builder::f32(float value) { return f32_bits(std::bit_cast<std::uint32_t>(value)); }
E Builder::f32_bits(std::uint32_t bits) { return make(Expr{ExprKind::LitF32, 0, MemoryOrdering::SeqCst, bits}); }
E Builder::boolean(bool value) {
  return make(Expr{ExprKind::LitBool, 0, MemoryOrdering::SeqCst, value ? 1u : 0u});
}
E Builder::var(std::string_view name) {
  return make(Expr{ExprKind::Var, 0, MemoryOrdering::SeqCst, index_of(program_.intern(name))});
}
E Builder::load(Buf buffer, E index) {
  Expr e{ExprKind::Load, 0, MemoryOrdering::SeqCst, index_of(buffer.name)};
  e.operands[0] = index.id;
  return make(e);
}
E Builder::buf_len(Buf buffer) { return make(Expr{ExprKind::BufLen, 0, MemoryOrdering::SeqCst, index_of(buffer.name)}); }

namespace {
Expr builtin(ExprKind kind, std::uint32_t axis) {
  GC_ASSERT(axis < 3);
  return Expr{kind, static_cast<std::uint8_t>(axis)};
}
}  // namespace

E Builder::gid(std::uint32_t axis) { return make(builtin(ExprKind::InvocationId, axis)); }
E Builder::lid(std::uint32_t axis) { return make(builtin(ExprKind::LocalId, axis)); }
E Builder::wgid(std::uint32_t axis) { return make(builtin(ExprKind::WorkgroupId, axis)); }
E Builder::num_workgroups(std::uint32_t axis) { return make(builtin(ExprKind::NumWorkgroups, axis)); }
E Builder::workgroup_size(std::uint32_t axis) { return make(builtin(ExprKind::WorkgroupSize, axis)); }

E Builder::bin(BinOp op, E l, E r) { return binary(op, l, r); }
E Builder::un(UnOp op, E x) {
  Expr e{ExprKind::Unary, static_cast<std::uint8_t>(op)};
  e.operands[0] = x.id;
  return make(e);
}
E Builder::select(E cond, E if_true, E if_false) {
  Expr e{ExprKind::Select};
  e.operands = {cond.id, if_true.id, if_false.id};
  return make(e);
}
E Builder::cast(ScalarType target, E x) {
  Expr e{ExprKind::Cast, static_cast<std::uint8_t>(target)};
  e.operands[0] = x.id;
  return make(e);
}
E Builder::fma(E a, E b, E c) {
  Expr e{ExprKind::Fma};
  e.operands = {a.id, b.id, c.id};
  return make(e);
}
E Builder::atomic(AtomicOp op, Buf buffer, E index, E value, MemoryOrdering ordering) {
  Expr e{ExprKind::Atomic, static_cast<std::uint8_t>(op), ordering, index_of(buffer.name)};
  e.operands = {index.id, value.id, kNoExpr};
  return make(e);
}
E Builder::compare_exchange(Buf buffer, E index, E expected, E value, MemoryOrdering ordering) {
  Expr e{ExprKind::Atomic, static_cast<std::uint8_t>(AtomicOp::CompareExchange), ordering,
         index_of(buffer.name)};
  e.operands = {index.id, value.id, expected.id};
  return make(e);
}

StmtList Builder::list(const std::vector<S>& stmts) {
  std::vector<StmtId> ids;
  ids.reserve(stmts.size());
  for (S s : stmts) ids.push_back(s.id);
  return program_.add_list(ids);
}

S Builder::let(std::string_view name, E value) {
  Stmt s{StmtKind::Let};
  s.names[0] = program_.intern(name);
  s.exprs[0] = value.id;
  return make(s);
}
S Builder::assign(std::string_view name, E value) {
  Stmt s{StmtKind::Assign};
  s.names[0] = program_.intern(name);
  s.exprs[0] = value.id;
  return make(s);
}
S Builder::store(Buf buffer, E index, E value) {
  Stmt s{StmtKind::Store};
  s.names[0] = buffer.name;
  s.exprs = {index.id, value.id};
  return make(s);
}
S Builder::if_(E cond, Body then_body, Body else_body) {
  return if_(cond, to_vector(then_body), to_vector(else_body));
}
S Builder::if_(E cond, const std::vector<S>& then_body, const std::vector<S>& else_body) {
  Stmt s{StmtKind::If};
  s.exprs[0] = cond.id;
  s.body = list(then_body);
  s.otherwise = list(else_body);
  return make(s);
}
S Builder::loop(std::string_view var, E from, E to, Body body) { return loop(var, from, to, to_vector(body)); }
S Builder::loop(std::string_view var, E from, E to, const std::vector<S>& body) {
  Stmt s{StmtKind::Loop};
  s.names[0] = program_.intern(var);
  s.exprs = {from.id, to.id};
  s.body = list(body);
  return make(s);
}
S Builder::block(Body body) { return block(to_vector(body)); }
S Builder::block(const std::vector<S>& body) {
  Stmt s{StmtKind::Block};
  s.body = list(body);
  return make(s);
}
S Builder::region(std::string_view generator, Body body) { return region(generator, to_vector(body)); }
S Builder::region(std::string_view generator, const std::vector<S>& body) {
  Stmt s{StmtKind::Region};
  s.names[0] = program_.intern(generator);
  s.body = list(body);
  return make(s);
}
S Builder::barrier(MemoryOrdering ordering, BarrierMemory memory) {
  Stmt s{StmtKind::Barrier, static_cast<std::uint8_t>(ordering)};
  s.literal = static_cast<std::uint32_t>(memory);
  return make(s);
}
S Builder::ret() { return make(Stmt{StmtKind::Return}); }
S Builder::all_reduce(Buf buffer, CollectiveOp op, std::uint32_t group) {
  Stmt s{StmtKind::AllReduce, static_cast<std::uint8_t>(op)};
  s.names[0] = buffer.name;
  s.literal = group;
  return make(s);
}
S Builder::broadcast(Buf buffer, std::uint32_t root, std::uint32_t group) {
  Stmt s{StmtKind::Broadcast};
  s.names[0] = buffer.name;
  s.literal = root;
  s.literal2 = group;
  return make(s);
}
S Builder::all_gather(Buf input, Buf output, std::uint32_t group) {
  Stmt s{StmtKind::AllGather};
  s.names = {input.name, output.name, kNoName};
  s.literal = group;
  return make(s);
}
S Builder::reduce_scatter(Buf input, Buf output, CollectiveOp op, std::uint32_t group) {
  Stmt s{StmtKind::ReduceScatter, static_cast<std::uint8_t>(op)};
  s.names = {input.name, output.name, kNoName};
  s.literal = group;
  return make(s);
}
S Builder::async_load(Buf source, Buf destination, E offset, E size, std::string_view tag) {
  Stmt s{StmtKind::AsyncLoad};
  s.names = {source.name, destination.name, program_.intern(tag)};
  s.exprs = {offset.id, size.id};
  return make(s);
}
S Builder::async_store(Buf source, Buf destination, E offset, E size, std::string_view tag) {
  Stmt s{StmtKind::AsyncStore};
  s.names = {source.name, destination.name, program_.intern(tag)};
  s.exprs = {offset.id, size.id};
  return make(s);
}
S Builder::async_wait(std::string_view tag) {
  Stmt s{StmtKind::AsyncWait};
  s.names[2] = program_.intern(tag);
  return make(s);
}
S Builder::indirect_dispatch(Buf count_buffer, std::uint32_t count_offset) {
  Stmt s{StmtKind::IndirectDispatch};
  s.names[0] = count_buffer.name;
  s.literal = count_offset;
  return make(s);
}
S Builder::trap(E address, std::string_view tag) {
  Stmt s{StmtKind::Trap};
  s.exprs[0] = address.id;
  s.names[2] = program_.intern(tag);
  return make(s);
}
S Builder::opaque(std::string_view extension) {
  Stmt s{StmtKind::Opaque};
  s.names[0] = program_.intern(extension);
  return make(s);
}

Program Builder::wrapped(Body entry) { return wrapped(to_vector(entry)); }
Program Builder::wrapped(const std::vector<S>& entry) {
  bool all_regions = !entry.empty();
  for (S s : entry) all_regions = all_regions && program_.stmt(s.id).kind == StmtKind::Region;
  if (all_regions) return raw(entry);
  return raw({region(kRootRegionGenerator, entry)});
}
Program Builder::take_wrapped(const std::vector<S>& entry) {
  bool all_regions = !entry.empty();
  for (S s : entry) all_regions = all_regions && program_.stmt(s.id).kind == StmtKind::Region;
  program_.set_entry(all_regions ? list(entry) : list(std::vector<S>{region(kRootRegionGenerator, entry)}));
  return std::move(program_);
}
Program Builder::raw(Body entry) { return raw(to_vector(entry)); }
Program Builder::raw(const std::vector<S>& entry) {
  program_.set_entry(list(entry));
  return program_;
}

}  // namespace gridcheck::ir
