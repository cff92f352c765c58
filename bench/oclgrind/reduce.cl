// Local-memory tree reduction, work-group size 64, 7 barriers per work-group (bench/README.md).
// bench/interp_kernels.hpp (reduce_program) is the same kernel in gridcheck IR.
kernel void reduce(global const uint* in, global uint* out, local uint* sh) {
  uint l = get_local_id(0);
  sh[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 0; k < 6; ++k) {
    uint s = 32u >> k;
    if (l < s) sh[l] += sh[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = sh[0];
}
