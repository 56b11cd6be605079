// How fast C can come down into fresh host memory on the GPU machine: the
// staged path Libra takes (two pinned slots, host threads copying each chunk into
// place beside the next chunk's download), a plain pageable cudaMemcpy, and
// registering the destination (cudaHostRegister) so that the DMA writes it
// directly. Fresh memory each time (2 MiB aligned, MADV_HUGEPAGE, as C's host
// arrays are), medians of 3. Build and run:
//   nvcc -O2 -arch=sm_90 -Xcompiler -fopenmp -o d2h_paths d2h_paths.cu && ./d2h_paths
#include <cuda_runtime.h>
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
static char* fresh(size_t n) {
  void* p = nullptr;
  if (posix_memalign(&p, size_t(2) << 20, n)) return nullptr;
  madvise(p, n, MADV_HUGEPAGE);
  return static_cast<char*>(p);
}
static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
#define CK(x)                                             \
  do {                                                    \
    cudaError_t e = (x);                                  \
    if (e != cudaSuccess) {                               \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e)); \
      std::exit(1);                                       \
    }                                                     \
  } while (0)

int main() {
  CK(cudaFree(0));
  const size_t chunk = size_t(12) << 20;  // 2^20 entries of 12 bytes
  char* slot[2];
  CK(cudaHostAlloc(reinterpret_cast<void**>(&slot[0]), chunk, 0));
  CK(cudaHostAlloc(reinterpret_cast<void**>(&slot[1]), chunk, 0));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cudaEvent_t ev[2];
  CK(cudaEventCreate(&ev[0]));
  CK(cudaEventCreate(&ev[1]));
  std::printf("host threads %d\n", omp_get_max_threads());
  for (size_t n : {size_t(256) << 20, size_t(2) << 30, size_t(8) << 30}) {
    char* d;
    CK(cudaMalloc(&d, n));
    CK(cudaMemset(d, 1, n));
    CK(cudaDeviceSynchronize());
    std::vector<double> staged, plain, reg_total, reg_reg, reg_copy, reg_unreg, touch;
    for (int it = 0; it < 3; ++it) {
      {  // staged: slot j % 2 downloads while the host copies chunk j - 1 into place
        char* h = fresh(n);
        double t = now();
        const size_t chunks = (n + chunk - 1) / chunk;
        for (size_t j = 0; j <= chunks; ++j) {
          if (j < chunks) {
            const size_t len = std::min(chunk, n - j * chunk);
            CK(cudaMemcpyAsync(slot[j % 2], d + j * chunk, len, cudaMemcpyDeviceToHost,
                               s));
            CK(cudaEventRecord(ev[j % 2], s));
          }
          if (j > 0) {
            const size_t k = j - 1;
            CK(cudaEventSynchronize(ev[k % 2]));
            const size_t len = std::min(chunk, n - k * chunk);
            char* dst = h + k * chunk;
            const char* src = slot[k % 2];
#pragma omp parallel
            {
              const int T = omp_get_num_threads(), me = omp_get_thread_num();
              const size_t per = (len + T - 1) / T;
              const size_t b = std::min(len, me * per), e = std::min(len, b + per);
              if (e > b) std::memcpy(dst + b, src + b, e - b);
            }
          }
        }
        staged.push_back(now() - t);
        std::free(h);
      }
      {  // plain pageable cudaMemcpy
        char* h = fresh(n);
        double t = now();
        CK(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost));
        plain.push_back(now() - t);
        std::free(h);
      }
      {  // registered destination: the DMA writes it
        char* h = fresh(n);
        double t = now();
        CK(cudaHostRegister(h, n, cudaHostRegisterDefault));
        double t1 = now();
        CK(cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        double t2 = now();
        CK(cudaHostUnregister(h));
        double t3 = now();
        reg_reg.push_back(t1 - t);
        reg_copy.push_back(t2 - t1);
        reg_unreg.push_back(t3 - t2);
        reg_total.push_back(t3 - t);
        std::free(h);
      }
      {  // first touch alone (parallel), for scale
        char* h = fresh(n);
        double t = now();
#pragma omp parallel for schedule(static)
        for (long long p = 0; p < static_cast<long long>(n); p += 4096) h[p] = 0;
        touch.push_back(now() - t);
        std::free(h);
      }
    }
    const double gb = static_cast<double>(n) / 1e9;
    std::printf(
        "%6.2f GB: staged %.3f s (%.1f GB/s) | pageable %.3f s (%.1f GB/s) | registered "
        "%.3f s (%.1f GB/s): register %.3f, DMA %.3f (%.1f GB/s), unregister %.3f | "
        "first touch %.3f s\n",
        gb, median(staged), gb / median(staged), median(plain), gb / median(plain),
        median(reg_total), gb / median(reg_total), median(reg_reg), median(reg_copy),
        gb / median(reg_copy), median(reg_unreg), median(touch));
    std::fflush(stdout);
    CK(cudaFree(d));
  }
  return 0;
}
