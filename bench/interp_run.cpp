// interp_run KERNEL N MODE [REPEAT]: one measurement for bench/interp_vs_oclgrind.sh.
//   KERNEL  lcg | reduce (bench/interp_kernels.hpp)
//   N       work-items (a multiple of 64)
//   MODE    interp | interp-races | native | native-scalar
// Runs the kernel REPEAT times (default 3) and prints one line:
//   kernel=lcg n=65536 mode=interp seconds=0.0042 wi_per_s=1.5e+07 max_rss_kb=10240 checksum=...
// `seconds` is the fastest repetition in thread CPU time; `max_rss_kb` the process's peak resident set (getrusage), so
// run one mode per process to compare memory. The interpreter's outputs are checked against the
// native loop; a mismatch exits 1.

#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bench/interp_kernels.hpp"

namespace {

using namespace gridcheck;
/// CPU time of this thread: the machine is shared, so wall time measures the neighbours too.
struct Clock {
  static double now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
};

std::uint64_t checksum(const std::vector<std::uint32_t>& w) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint32_t v : w) h = (h ^ v) * 0x100000001b3ull;
  return h;
}

std::vector<std::uint32_t> native_result(std::string_view kernel, std::uint32_t n, bool scalar, double* seconds,
                                         int repeat) {
  std::vector<std::uint32_t> series(n), sevens(n, 7);
  for (std::uint32_t i = 0; i < n; ++i) series[i] = i;
  std::vector<std::uint32_t> out(kernel == "lcg" ? n : n / bench::kWorkgroup, 0);
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    const auto start = Clock::now();
    if (kernel == "lcg") {
      const auto [mul, add] = bench::lcg_constants();
      if (scalar) bench::native_lcg_scalar(series.data(), sevens.data(), out.data(), n, mul, add);
      else bench::native_lcg(series.data(), sevens.data(), out.data(), n, mul, add);
    } else {
      bench::native_reduce(series.data(), out.data(), n);
    }
    asm volatile("" : : "r"(out.data()) : "memory");
    best = std::min(best, Clock::now() - start);
  }
  if (seconds != nullptr) *seconds = best;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: interp_run lcg|reduce N interp|interp-races|native|native-scalar [REPEAT]\n");
    return 2;
  }
  const std::string kernel = argv[1];
  const auto n = static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10));
  const std::string mode = argv[3];
  const int repeat = argc > 4 ? std::atoi(argv[4]) : 3;
  if ((kernel != "lcg" && kernel != "reduce") || n == 0 || n % bench::kWorkgroup != 0 || repeat < 1) {
    std::fprintf(stderr, "interp_run: bad arguments\n");
    return 2;
  }
  double seconds = 0;
  std::vector<std::uint32_t> result;
  rusage usage{};
  if (mode == "native" || mode == "native-scalar") {
    result = native_result(kernel, n, mode == "native-scalar", &seconds, repeat);
    getrusage(RUSAGE_SELF, &usage);
  } else if (mode == "interp" || mode == "interp-races") {
    interp::RunOptions options;
    options.detect_races = mode == "interp-races";
    const ir::Program program = kernel == "lcg" ? bench::lcg_program(n) : bench::reduce_program(n);
    auto prepared = interp::prepare(program, options);
    if (!prepared) {
      std::fprintf(stderr, "%s", ir::render(prepared.diagnostics()).c_str());
      return 1;
    }
    seconds = 1e30;
    std::vector<interp::Bytes> buffers = bench::kernel_buffers(kernel, n);
    for (int r = 0; r < repeat; ++r) {
      const auto start = Clock::now();
      const interp::RunResult run = interp::execute(*prepared, buffers, {n / bench::kWorkgroup, 1, 1}, 1, options);
      seconds = std::min(seconds, Clock::now() - start);
      if (!run.ok()) {
        std::fprintf(stderr, "interp_run: %s\n%s", std::string(interp::name_of(run.status)).c_str(),
                     ir::render(run.diagnostics).c_str());
        return 1;
      }
    }
    getrusage(RUSAGE_SELF, &usage);  // the peak of the interpreter runs, before the check below
    result = bench::bytes_to_words(buffers.back());
    if (result != native_result(kernel, n, false, nullptr, 1)) {
      std::fprintf(stderr, "interp_run: the interpreter's output differs from the native loop\n");
      return 1;
    }
  } else {
    std::fprintf(stderr, "interp_run: unknown mode %s\n", mode.c_str());
    return 2;
  }
  std::printf("kernel=%s n=%u mode=%s seconds=%.6f wi_per_s=%.4g max_rss_kb=%ld checksum=%016llx\n", kernel.c_str(), n,
              mode.c_str(), seconds, n / seconds, usage.ru_maxrss, static_cast<unsigned long long>(checksum(result)));
  return 0;
}
