#pragma once
// Exit codes of every gridcheck subcommand (docs/DESIGN.md §7).

namespace gridcheck::tools {

inline constexpr int kExitOk = 0;           ///< valid / agree / expectation met / proven
inline constexpr int kExitMismatch = 1;     ///< divergence, failed expectation, counterexample, survivor
inline constexpr int kExitBadInput = 2;     ///< unreadable or invalid input, bad usage
inline constexpr int kExitInternal = 3;     ///< an internal error of gridcheck itself

}  // namespace gridcheck::tools
