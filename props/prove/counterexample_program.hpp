#pragma once
// A counterexample of the role model (role_model.hpp) as a concrete case (docs/proof.md §5): a
// program built with ir/builder.hpp whose segments do exactly what the pattern says, with the
// reference's and the split's outputs the model predicts as `expect` lines, so that running it
// (gridcheck replay, props/oracle.hpp) confirms — or refutes — the model.
//
// Shape (one invocation: workgroup_size 1 1 1, grid 1 1 1, fixpoint N):
//   buf  the subject buffer, the pattern's declaration class, count 2. Element 0 follows the
//        pattern; element 1 realises the buffer-level scan facts without touching element 0 (an
//        unobserved `let r<k> = buf[1]` for a read, `buf[1] = <literal>` for a write).
//   obs  read_write, count 1 + N·K, read and written by every segment (so its own role is read_write
//        under every rule that is right about plain read_write buffers). obs[0] counts launches; the
//        segment k of pass p sees obs[0] == p·K + k, which selects the pass's element pattern, and
//        records what its read of buf[0] saw in obs[1 + p·K + k] (0xEEEEEEEE when it does not read).
// Written values are distinct literals (role_model.hpp written_word), caller bytes caller_word.

#include <optional>
#include <string>
#include <vector>

#include "ir/case.hpp"
#include "props/prove/role_model.hpp"

namespace gridcheck::props {

inline constexpr std::uint32_t kUnreadSlot = 0xEEEEEEEE;

struct RenderOptions {
  std::string profile = "vyre-0.7.2";  ///< the split profile of the H-cpu expectation
  std::string name;                    ///< case name; default "prove-<profile>-<pattern hash>"
  std::string title;                   ///< description line
  std::vector<std::pair<std::string, std::string>> meta;
};

/// What the model predicts for the rendered case.
struct Prediction {
  std::vector<std::uint32_t> reference_buf, reference_obs;  ///< R's final words (buf only if an R output)
  bool buf_is_output = false;
  bool split_fails = false;                                 ///< the split stops with an error
  std::string split_code;                                   ///< its diagnostic code (S007, S009, S011)
  std::vector<std::uint32_t> split_buf, split_obs;          ///< H's final words when it does not fail
  bool split_obs_exact = false;  ///< obs's own role is sound under the table (else no H obs prediction)
  bool diverges = false;         ///< H differs from R (or fails)
};

Prediction predict(const RoleTable& table, const Pattern& pattern);

/// The case for `pattern` (valid), with R's and H-cpu's predicted verdicts and outputs as `expect`
/// lines and the facts, decisions and violation as header comments and meta.
ir::Case render_counterexample(const RoleTable& table, const Pattern& pattern, const RenderOptions& options = {});

}  // namespace gridcheck::props
