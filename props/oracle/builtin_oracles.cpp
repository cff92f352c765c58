#include "props/oracle/oracle_plugin.hpp"
#include "props/oracle/convergence_oracle.hpp"
#include "props/oracle/split_oracle.hpp"
#include "props/oracle/waves_oracle.hpp"

namespace gridcheck::props {

std::span<const Oracle* const> builtin_oracles() {
  static const SplitOracle split;
  static const ConvergenceOracle convergence;
  static const WavesOracle waves;
  static const Oracle* const oracles[] = {&split, &convergence, &waves};
  return oracles;
}

}  // namespace gridcheck::props
