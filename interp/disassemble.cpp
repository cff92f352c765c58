#include <fmt/format.h>

#include <array>

#include "interp/compiled_program.hpp"

namespace gridcheck::interp {
namespace {

constexpr std::array<std::string_view, kOpCount> kOpNames = {
    "mov",     "jmp",     "jz",       "jge_u",     "loop_next", "jn_eq",   "jn_ne",    "jn_lt_u", "jn_lt_s",
    "jn_le_u", "jn_le_s", "add",     "sub",      "mul",     "and",
    "or",      "xor",     "shl",      "shr_u",     "shr_s",     "eq",      "ne",       "lt_u",    "lt_s",
    "le_u",    "le_s",    "div_u",    "mod_u",     "div_s",     "mod_s",   "min_u",    "max_u",   "min_s",
    "max_s",   "log_and", "log_or",   "log_not",   "mul_add",   "inc",     "neg",      "bit_not", "popcount", "clz", "ctz", "reverse_bits",
    "abs_s",   "ne_zero", "sat_add_u", "sat_sub_s", "rotl_u", "mul_hi_u", "add_f32", "sub_f32", "mul_f32", "binary",   "unary",   "cast",
    "fma",     "select",  "truthy_f32", "check_u32", "load",    "load_bool", "load_f32", "store", "atomic",
    "record_if", "record_loop", "barrier", "fence", "return", "trap"};
static_assert(kOpNames[kOpCount - 1] == "trap", "one name per opcode, in enum order");

}  // namespace

std::string_view name_of(Op op) { return kOpNames[static_cast<std::size_t>(op)]; }

std::string disassemble(const CompiledProgram& program) {
  std::string out;
  for (std::size_t pc = 0; pc < program.code.size(); ++pc) {
    const Instr& in = program.code[pc];
    out += fmt::format("{:4}: {:<11} d={} a={} b={} c={} e={} sub={} type={}   ; {}\n", pc, name_of(in.op), in.d, in.a,
                       in.b, in.c, in.e, in.sub, in.type, to_string(program.site(pc)));
  }
  return out;
}

}  // namespace gridcheck::interp
