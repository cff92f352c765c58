#include "props/prove/proof_scenarios.hpp"

namespace gridcheck::props::role_z3 {
namespace {

void no_element_writes(const Bounded& b, z3::expr_vector& cons) {
  for (const auto& pass : b.element_write)
    for (const z3::expr& ew : pass) cons.push_back(!ew);
}

/// The element is written in segment 0 of pass 0 and by no later segment of that pass: a correct
/// split must keep segment 0's value.
void earlier_slot_written(const Bounded& b, z3::expr_vector& cons) {
  cons.push_back(b.writes[0]);
  cons.push_back(b.element_write[0][0]);
  for (std::uint32_t k = 1; k < b.segments; ++k) cons.push_back(!b.element_write[0][k]);
  z3::expr later_writer = b.writes[0].ctx().bool_val(false);
  for (std::uint32_t k = 1; k < b.segments; ++k) later_writer = later_writer || b.writes[k];
  cons.push_back(later_writer);
}

}  // namespace

void referenced_somewhere(const Bounded& b, z3::expr_vector& cons) {
  z3::expr some = b.decl.ctx().bool_val(false);
  for (std::uint32_t k = 0; k < b.segments; ++k) some = some || b.reads[k] || b.writes[k];
  cons.push_back(some);
}

const std::vector<Scenario>& scenarios() {
  using A = ir::BufferAccess;
  static const std::vector<Scenario> all = {
      {"A1", "read_write buffer with caller bytes, written but not read by a segment: the caller bytes are lost",
       "docs/vyre-0.7.2.md#a1", A::ReadWrite, false, false, 1,
       [](const Bounded& b, z3::expr_vector& cons) {
         no_element_writes(b, cons);
         z3::expr some = b.decl.ctx().bool_val(false);
         for (std::uint32_t k = 0; k < b.segments; ++k) some = some || (b.writes[k] && !b.reads[k]);
         cons.push_back(some);
       }},
      {"A2", "read_write buffer read by one segment and partially written by a later one",
       "docs/vyre-0.7.2.md#a2", A::ReadWrite, false, false, 1,
       [](const Bounded& b, z3::expr_vector& cons) {
         no_element_writes(b, cons);
         cons.push_back(b.reads[0] && !b.writes[0]);
         cons.push_back(b.writes[b.segments - 1] && !b.reads[b.segments - 1]);
       }},
      {"A3", "read_write buffer written in two segments: the second writer zeroes the first writer's slots",
       "docs/vyre-0.7.2.md#a3", A::ReadWrite, false, false, 1,
       [](const Bounded& b, z3::expr_vector& cons) {
         cons.push_back(b.reads[0]);
         earlier_slot_written(b, cons);
       }},
      {"A4", "output under fixpoint: the first-writer segment is write_only on every pass and zeroes the "
             "previous pass's slots",
       "docs/vyre-0.7.2.md#a4", A::ReadWrite, true, true, 2, referenced_somewhere},
      {"F1", "plain write_only buffer written in two segments: the later writer is zero-filled again",
       "docs/vyre-0.7.2.md#f1, docs/vyre-0.7.2.md#g10", A::WriteOnly, false, false, 1, earlier_slot_written},
      {"B1", "output that no segment references: the final output is never produced",
       "docs/vyre-0.7.2.md#b1", A::ReadWrite, true, true, 1,
       [](const Bounded& b, z3::expr_vector& cons) {
         for (std::uint32_t k = 0; k < b.segments; ++k) cons.push_back(!b.reads[k] && !b.writes[k]);
       }},
      {"H2", "output written in two segments loses the earlier segment's slots (recall = 0)",
       "docs/vyre-0.7.2.md §9 H1/H2", A::ReadWrite, true, true, 1, earlier_slot_written},
  };
  return all;
}

}  // namespace gridcheck::props::role_z3
