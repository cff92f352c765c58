#pragma once
// A reproducer as AmberScript (the format of google/amber and the Vulkan CTS, amber_script.md there): one
// compute pipeline per segment with the GLSL of our lowering, the reproducer's buffers with their
// bytes, the launches in order (`RUN`), the host round trip between them as `COPY` commands, a
// byte range of a segment output as a run of a small word-copy pipeline (AmberScript's COPY copies
// whole buffers), fixpoint passes unrolled, and `EXPECT` lines with R's bytes (docs/export.md).

#include <string>

#include "ir/diagnostic.hpp"
#include "repro/reproducer.hpp"

namespace gridcheck::repro {

struct AmberOptions {
  std::string command;  ///< the command line that wrote the script, for its header comment
};

/// The script. Errors: E010 a zero-length buffer (AmberScript cannot declare one), E011 a byte range
/// or an expectation that is not whole 4-byte words (the script's buffers are uint32).
ir::Result<std::string> to_amber(const Repro& repro, const AmberOptions& options = {});

}  // namespace gridcheck::repro
