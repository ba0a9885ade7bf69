/* seeds.cl: the OpenCL C twins of the seed kernels (kernels/seeds.c), the peer gridtune is
 * measured against through pocl. Each twin has its GT_KERNEL's parameters in the same order and
 * its body with the same indexing and summation order; get_global_id(d) stands for
 * gt_global_id(d). ocl_twins.c builds this text with -cl-std=CL1.2; the build embeds it into
 * gt_peers_opencl (embed_text.cmake), so nothing reads this file at run time. */

/* The GT_KERNELs and the host references are ISO C (gcc -std=c11 never fuses a*b + c), while
 * OpenCL C lets the compiler fuse by default: off here, so every sum rounds as theirs do. */
#pragma OPENCL FP_CONTRACT OFF

/* Running sum along row y; in holds small values, so uint sums are exact. */
__kernel void integral_rows(__global uint *out, __global const uint *in, int n)
{
    size_t y = get_global_id(0), w = (size_t)n;
    uint sum = 0;
    for (size_t x = 0; x < w; x++) {
        sum += in[y * w + x];
        out[y * w + x] = sum;
    }
}

/* Running sum down column x: neighbouring work-items walk neighbouring columns. */
__kernel void integral_cols(__global uint *out, __global const uint *in, int n)
{
    size_t x = get_global_id(0), w = (size_t)n;
    uint sum = 0;
    for (size_t y = 0; y < w; y++) {
        sum += in[y * w + x];
        out[y * w + x] = sum;
    }
}

/* 11x11 convolution over an input padded to (n + 10) x (n + 10). */
__kernel void conv11(__global float *out, __global const float *in, __global const float *weights, int n)
{
    size_t x = get_global_id(0), y = get_global_id(1), w = (size_t)n + 10;
    float acc = 0.0f;
    for (size_t dy = 0; dy < 11; dy++)
        for (size_t dx = 0; dx < 11; dx++)
            acc += in[(y + dy) * w + x + dx] * weights[dy * 11 + dx];
    out[y * (size_t)n + x] = acc;
}

/* Naive C = A B, summing k in order. */
__kernel void matmul(__global float *c, __global const float *a, __global const float *b, int n)
{
    size_t x = get_global_id(0), y = get_global_id(1), w = (size_t)n;
    float acc = 0.0f;
    for (size_t k = 0; k < w; k++)
        acc += a[y * w + k] * b[k * w + x];
    c[y * w + x] = acc;
}

/* Consecutive work-items copy consecutive elements. */
__kernel void copy_rows(__global float *dst, __global const float *src, int n)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    dst[y * (size_t)n + x] = src[y * (size_t)n + x];
}

/* Consecutive work-items copy elements n apart. */
__kernel void copy_cols(__global float *dst, __global const float *src, int n)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    dst[x * (size_t)n + y] = src[x * (size_t)n + y];
}

__kernel void transpose(__global float *dst, __global const float *src, int n)
{
    uint x = (uint)get_global_id(0), y = (uint)get_global_id(1);
    dst[(size_t)x * n + y] = src[(size_t)y * n + x];
}

/* ---- the workgroup kernels: barrier() and __local, as an OpenCL programmer writes them ---- */

/* C = A B in 16 x 16 tiles staged in local memory; k summed in order. */
__kernel void matmul_tiled(__global float *c, __global const float *a, __global const float *b, int n)
{
    __local float ta[16 * 16], tb[16 * 16];
    size_t lx = get_local_id(0), ly = get_local_id(1), x = get_global_id(0), y = get_global_id(1);
    size_t w = (size_t)n;
    float acc = 0.0f;
    for (size_t t = 0; t < w; t += 16) {
        ta[ly * 16 + lx] = a[y * w + t + lx];
        tb[ly * 16 + lx] = b[(t + ly) * w + x];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (size_t k = 0; k < 16; k++)
            acc += ta[ly * 16 + k] * tb[k * 16 + lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[y * w + x] = acc;
}

/* The sum of each 16 n-element stretch of src, one per workgroup of 256 items: each item sums
 * its own contiguous 256th in eight lanes, then a tree of fan-in 16 in local memory (as kernels/seeds.c). */
__kernel void reduce(__global float *sums, __global const float *src, int n)
{
    __local float part[256];
    size_t l = get_local_id(0), share = (size_t)n / 16, at = get_group_id(0) * 16 * (size_t)n + l * share;
    float8 lane = (float8)(0.0f);
    size_t i = 0;
    for (; i + 8 <= share; i += 8)
        lane += vload8(0, src + at + i);
    for (; i < share; i++)
        lane.s0 += src[at + i];
    float acc = ((lane.s0 + lane.s1) + (lane.s2 + lane.s3)) + ((lane.s4 + lane.s5) + (lane.s6 + lane.s7));
    part[l] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 16) {
        float t = 0.0f;
        for (size_t j = 0; j < 16; j++)
            t += part[l * 16 + j];
        part[l * 16] = t;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        float t = 0.0f;
        for (size_t j = 0; j < 16; j++)
            t += part[j * 16];
        sums[get_group_id(0)] = t;
    }
}

/* 5-point stencil over an input padded to (n + 2) x (n + 2), through a tile of the workgroup's
 * shape (at most 1024 items) with its halo, which the edge items load. */
__kernel void stencil5(__global float *out, __global const float *in, int n)
{
    __local float tile[3 * (1024 + 2)];
    size_t lx = get_local_id(0), ly = get_local_id(1), x = get_global_id(0), y = get_global_id(1);
    size_t lw = get_local_size(0), lh = get_local_size(1), tw = lw + 2, w = (size_t)n + 2;
    tile[(ly + 1) * tw + lx + 1] = in[(y + 1) * w + x + 1];
    if (lx == 0)
        tile[(ly + 1) * tw] = in[(y + 1) * w + x];
    if (lx == lw - 1)
        tile[(ly + 1) * tw + lw + 1] = in[(y + 1) * w + x + 2];
    if (ly == 0)
        tile[lx + 1] = in[y * w + x + 1];
    if (ly == lh - 1)
        tile[(lh + 1) * tw + lx + 1] = in[(y + 2) * w + x + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t at = (ly + 1) * tw + lx + 1;
    out[y * (size_t)n + x] = 0.5f * tile[at] + 0.125f * (tile[at - tw] + tile[at + tw] + tile[at - 1] + tile[at + 1]);
}

/* k barriers, each after adding 1 to a value every item keeps across them: what a barrier
 * costs (gridtune-region-bench). */
__kernel void regions(__global float *data, int k)
{
    size_t i = get_global_id(0);
    float v = data[i];
    for (int r = 0; r < k; r++) {
        v += 1.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    data[i] = v;
}

/* No work: gt_ocl_empty_roundtrip times the launch itself. */
__kernel void empty(void)
{
}
