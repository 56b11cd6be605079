// What one cudaMalloc, header-sized cudaMemcpy and cudaFree cost on the GPU machine
// (medians of 21), beside the stream-ordered pool allocator. Build and run:
//   nvcc -O2 -arch=sm_90 -o malloc_cost malloc_cost.cu && ./malloc_cost
// Output of 2026-11-27 on the H100 machine: malloc_cost.txt.
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
static double now() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
__global__ void touch(char* p, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) p[i] = 1;
}
int main() {
  cudaFree(0);
  char h[128];
  for (size_t sz : {size_t(1) << 10, size_t(64) << 10, size_t(1) << 20, size_t(7200000),
                    size_t(64) << 20}) {
    std::vector<double> m, f, c, ma, fa;
    for (int it = 0; it < 21; ++it) {
      void* p;
      double t = now();
      cudaMalloc(&p, sz);
      double t1 = now();
      cudaMemcpy(p, h, 128, cudaMemcpyHostToDevice);
      double t2 = now();
      touch<<<(sz + 255) / 256, 256>>>((char*)p, sz);
      cudaDeviceSynchronize();
      double t3 = now();
      cudaFree(p);
      double t4 = now();
      m.push_back(t1 - t);
      c.push_back(t2 - t1);
      f.push_back(t4 - t3);
      t = now();
      cudaMallocAsync(&p, sz, 0);
      cudaStreamSynchronize(0);
      t1 = now();
      touch<<<(sz + 255) / 256, 256>>>((char*)p, sz);
      cudaDeviceSynchronize();
      t3 = now();
      cudaFreeAsync(p, 0);
      cudaStreamSynchronize(0);
      t4 = now();
      ma.push_back(t1 - t);
      fa.push_back(t4 - t3);
    }
    auto med = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    printf(
        "size %9zu: cudaMalloc %.1f us, header memcpy %.1f us, cudaFree %.1f us; async "
        "malloc %.1f, free %.1f us\n",
        sz, med(m), med(c), med(f), med(ma), med(fa));
  }
}
