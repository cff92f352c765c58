#include "planner/spill_layout.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gridcheck::planner {

SpillLayout::SpillLayout(ir::Program& work)
    : work_(work),
      emit_(work),
      inv_(work.intern("__gc_inv")),
      n_(work.intern("__gc_n")),
      ret_(work.intern("__gc_ret")),
      returned_(work.intern("__gc_returned")) {
  for (int t = 0; t < ir::kScalarTypeCount; ++t)
    spill_buffers_[static_cast<std::size_t>(t)] =
        work.intern(fmt::format("__gc_spill_{}", ir::name_of(static_cast<ir::ScalarType>(t))));
}

std::uint32_t SpillLayout::slot(ir::StmtId let, ir::ScalarType type) {
  const std::pair key{work_.stmt(let).names[0], type};
  if (const auto it = slot_of_.find(key); it != slot_of_.end()) return it->second;
  const std::uint32_t s = slots_[static_cast<std::size_t>(type)]++;
  slot_of_.emplace(key, s);
  return s;
}

ir::E SpillLayout::slot_index(std::uint32_t s) {
  emitted_inv_ = true;
  if (s == 0) return emit_.var(inv_);
  emitted_n_ = true;
  return emit_.u32(s) * emit_.var(n_) + emit_.var(inv_);
}

ir::StmtId SpillLayout::spill(ir::StmtId let, ir::ScalarType type) {
  const ir::NameId var = work_.stmt(let).names[0];
  const std::uint32_t s = slot(let, type);
  return emit_.store(spill_buffers_[static_cast<std::size_t>(type)], slot_index(s), emit_.var(var));
}

ir::E SpillLayout::restored(ir::StmtId let, ir::ScalarType type) {
  const std::uint32_t s = slot(let, type);
  return emit_.load(spill_buffers_[static_cast<std::size_t>(type)], slot_index(s));
}

ir::E SpillLayout::returned_flag() {
  uses_returned_ = true;
  emitted_inv_ = true;
  return emit_.load(returned_, emit_.var(inv_)) != emit_.u32(0);
}

ir::StmtId SpillLayout::store_returned_flag() {
  uses_returned_ = true;
  emitted_inv_ = true;
  return emit_.store(returned_, emit_.var(inv_), emit_.select(emit_.var(ret_), emit_.u32(1), emit_.u32(0)));
}

ir::NameId SpillLayout::workgroup_copy(const ir::BufferDecl& buffer) {
  const std::string original(work_.name(buffer.name));
  for (const WorkgroupCopy& c : workgroup_copies_)
    if (c.original == original) return c.copy;
  workgroup_copies_.push_back(
      WorkgroupCopy{work_.intern(fmt::format("__gc_wg_{}", original)), buffer.element, buffer.count, original});
  return workgroup_copies_.back().copy;
}

std::vector<ScratchBuffer> SpillLayout::declare() {
  std::uint32_t binding = 0;
  for (const ir::BufferDecl& b : work_.buffers())
    if (b.access != ir::BufferAccess::Workgroup) binding = std::max(binding, b.binding + 1);
  std::vector<ScratchBuffer> scratch;
  auto add = [&](ir::NameId name, ir::ScalarType element, std::uint64_t per_invocation, std::uint64_t per_workgroup,
                 std::string purpose) {
    ir::BufferDecl d;
    d.name = name;
    d.binding = binding++;
    d.element = element;
    d.access = ir::BufferAccess::ReadWrite;
    d.kind = ir::derived_kind(d.access);
    d.count = 0;
    work_.add_buffer(d);
    scratch.push_back(ScratchBuffer{std::string(work_.name(name)), element, per_invocation, per_workgroup,
                                    std::move(purpose)});
  };
  for (int t = 0; t < ir::kScalarTypeCount; ++t) {
    const std::uint32_t n = slots_[static_cast<std::size_t>(t)];
    if (n == 0) continue;
    add(spill_buffers_[static_cast<std::size_t>(t)], static_cast<ir::ScalarType>(t), n, 0,
        fmt::format("{} local{} live across a fence", n, n == 1 ? "" : "s"));
  }
  if (uses_returned_) add(returned_, ir::ScalarType::U32, 1, 0, "returned-before-the-fence flags");
  for (const WorkgroupCopy& c : workgroup_copies_)
    add(c.copy, c.element, 0, c.count, fmt::format("workgroup memory `{}` live across a fence", c.original));
  return scratch;
}

}  // namespace gridcheck::planner
