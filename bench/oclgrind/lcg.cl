// The bench/README.md kernel: 8 LCG steps + 2 global loads + 1 store per work-item.
// bench/interp_kernels.hpp (lcg_program) is the same kernel in gridcheck IR.
kernel void lcg(global const uint* a, global const uint* b, global uint* out) {
  uint i = get_global_id(0);
  uint x = a[i] ^ b[i];
  for (uint k = 0; k < 8; ++k) x = x * 1664525u + 1013904223u;
  out[i] = x;
}
