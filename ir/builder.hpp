#pragma once
// Builder DSL for writing IR in C++ tests and generators.
//
//   Builder b({64, 1, 1});
//   auto a = b.read("a", 0, ScalarType::U32, 1024);
//   auto out = b.output("out", 1, ScalarType::U32, 1024);
//   Program p = b.wrapped({
//       b.let("v", b.load(a, b.gid()) + b.u32(1)),
//       b.grid_sync(),
//       b.store(out, b.gid(), b.var("v")),
//   });
//
// Expressions combine with C++ operators (+ - * / % & | ^ << >> == != < > <= >= && ||), each mapping
// to the BinOp of the same infix spelling in the operator table. Literals are never implicit.

#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/program.hpp"

namespace gridcheck::ir {

/// An expression under construction: an id in the builder's program.
struct E {
  Program* program = nullptr;
  ExprId id = kNoExpr;
};

/// A statement under construction.
struct S {
  StmtId id{};
};

/// A declared buffer.
struct Buf {
  NameId name = kNoName;
};

E operator+(E l, E r);
E operator-(E l, E r);
E operator*(E l, E r);
E operator/(E l, E r);
E operator%(E l, E r);
E operator&(E l, E r);
E operator|(E l, E r);
E operator^(E l, E r);
E operator<<(E l, E r);
E operator>>(E l, E r);
E operator==(E l, E r);
E operator!=(E l, E r);
E operator<(E l, E r);
E operator>(E l, E r);
E operator<=(E l, E r);
E operator>=(E l, E r);
E operator&&(E l, E r);
E operator||(E l, E r);

class Builder {
 public:
  explicit Builder(std::array<std::uint32_t, 3> workgroup_size = {1, 1, 1});

  // -- buffers: the vyre constructors of docs/semantics.md §2.2 (count 0 = runtime-sized).
  Buf storage(std::string_view name, std::uint32_t binding, BufferAccess access, ScalarType element,
              std::uint32_t count = 0);
  Buf read(std::string_view name, std::uint32_t binding, ScalarType element, std::uint32_t count = 0);
  Buf read_write(std::string_view name, std::uint32_t binding, ScalarType element, std::uint32_t count = 0);
  Buf write_only(std::string_view name, std::uint32_t binding, ScalarType element, std::uint32_t count = 0);
  /// access ReadWrite, is_output and pipeline_live_out set.
  Buf output(std::string_view name, std::uint32_t binding, ScalarType element, std::uint32_t count = 0);
  Buf uniform(std::string_view name, std::uint32_t binding, ScalarType element, std::uint32_t count = 0);
  Buf workgroup(std::string_view name, std::uint32_t count, ScalarType element);
  /// The declaration, to adjust flags (is_output, pipeline_live_out, output_byte_range, kind).
  BufferDecl& decl(Buf buffer);

  // -- expressions
  E u32(std::uint32_t value);
  E i32(std::int32_t value);
  E f32(float value);
  E f32_bits(std::uint32_t bits);
  E boolean(bool value);
  E var(std::string_view name);
  E load(Buf buffer, E index);
  E buf_len(Buf buffer);
  E gid(std::uint32_t axis = 0);
  E lid(std::uint32_t axis = 0);
  E wgid(std::uint32_t axis = 0);
  E num_workgroups(std::uint32_t axis = 0);
  E workgroup_size(std::uint32_t axis = 0);
  E bin(BinOp op, E l, E r);
  E un(UnOp op, E x);
  E select(E cond, E if_true, E if_false);
  E cast(ScalarType target, E x);
  E fma(E a, E b, E c);
  E atomic(AtomicOp op, Buf buffer, E index, E value, MemoryOrdering ordering = MemoryOrdering::SeqCst);
  E atomic_add(Buf buffer, E index, E value) { return atomic(AtomicOp::Add, buffer, index, value); }
  E compare_exchange(Buf buffer, E index, E expected, E value,
                     MemoryOrdering ordering = MemoryOrdering::SeqCst);

  // -- statements
  using Body = std::initializer_list<S>;
  S let(std::string_view name, E value);
  S assign(std::string_view name, E value);
  S store(Buf buffer, E index, E value);
  S if_(E cond, Body then_body, Body else_body = {});
  S if_(E cond, const std::vector<S>& then_body, const std::vector<S>& else_body = {});
  S loop(std::string_view var, E from, E to, Body body);
  S loop(std::string_view var, E from, E to, const std::vector<S>& body);
  S block(Body body);
  S block(const std::vector<S>& body);
  S region(std::string_view generator, Body body);
  S region(std::string_view generator, const std::vector<S>& body);
  S barrier(MemoryOrdering ordering = MemoryOrdering::SeqCst, BarrierMemory memory = BarrierMemory::All);
  S grid_sync() { return barrier(MemoryOrdering::GridSync); }
  S ret();
  S all_reduce(Buf buffer, CollectiveOp op, std::uint32_t group = 0);
  S broadcast(Buf buffer, std::uint32_t root, std::uint32_t group = 0);
  S all_gather(Buf input, Buf output, std::uint32_t group = 0);
  S reduce_scatter(Buf input, Buf output, CollectiveOp op, std::uint32_t group = 0);
  S async_load(Buf source, Buf destination, E offset, E size, std::string_view tag);
  S async_store(Buf source, Buf destination, E offset, E size, std::string_view tag);
  S async_wait(std::string_view tag);
  S indirect_dispatch(Buf count_buffer, std::uint32_t count_offset);
  S trap(E address, std::string_view tag);
  S opaque(std::string_view extension);

  // -- finishing
  /// `Program::wrapped` (docs/semantics.md §2.1): wraps the entry into one root Region unless it is non-empty and
  /// every top-level node is already a Region.
  Program wrapped(Body entry);
  Program wrapped(const std::vector<S>& entry);
  /// As `wrapped`, but moves the program out instead of copying it: the builder is spent (use it no
  /// more). For a caller that builds one program and keeps nothing of the builder (the generator).
  Program take_wrapped(const std::vector<S>& entry);
  /// `Program::from_raw_parts`: keeps the entry exactly as given.
  Program raw(Body entry);
  Program raw(const std::vector<S>& entry);

  Program& program() { return program_; }

 private:
  StmtList list(const std::vector<S>& stmts);
  E make(const Expr& e);
  S make(const Stmt& s);

  Program program_;
};

}  // namespace gridcheck::ir
