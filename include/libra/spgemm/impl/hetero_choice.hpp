#pragma once
// Which way heterogeneous SpGEMM runs a product, from what its calibration
// measured: the host alone, the device alone, or split at R = K / (K + 1).
//
// Per product the device takes d seconds and the host h (K = h / d), and a
// call costs Fd and Fh seconds besides (launches, per-thread arrays, B's column
// words: a call's fixed cost); C holds b bytes per product. Copying C's bytes
// into place (down from the device, or from the host side's piece into C)
// takes c seconds a byte, and up to the device u seconds a byte. Then
//   host alone:   Fh + P h               (its C is the product's own: no copy)
//   device alone: Fd + P d + P b c       (C comes down once; none with device
//                                         inputs, where C stays there)
//   split at R:   max(Fd, Fh) + P d h / (d + h) + P b c  (the sides end
//                                         together; every byte of C is copied
//                                         into place once)
// The calibration measures each side twice, on one row and on the rest of its
// share, and fits t = F + p x through both (fit_side): a share's time divided
// by its products alone made the rates 5-14x too slow on the H100 machine
// (bcsstk33: 142 ms modelled for the host alone against 9.7 ms).
// with P the products, plus P b u for the host alone and the split when A and
// B are on the device (C goes back up). A split also pays fixed
// costs the model leaves out (two SpGEMM calls, the panels' gathers, a second
// thread), so it is chosen only when it beats both single sides by the margin
// `split_gain`.
#include <algorithm>
#include <cstdint>

namespace libra::impl {

// The bytes a second C is copied into place at before any call measured it
// (HeteroOptions::Tuning::copy_bytes_per_second's default): what the H100
// machine's host copies C down at through two pinned staging slots, 19-21 GB/s
// for 0.27-8.6 GB (perf_tests/report/h100/download_paths/), and what Libra's
// own downloads of C took there, 19-20 GB/s for C of 0.37-2 GB. 12 GB/s, the
// value before, made the model put the device alone on R-MAT 16 at 174 ms where
// it took 124, and send the product to the host (147 ms).
inline constexpr double default_copy_bytes_per_second = 20e9;
// The bytes a second C goes up to the device at (a host-made C when A and B
// are on the device; Tuning::copy_up_bytes_per_second's default): nothing
// measures it yet. 12 GB/s, the single copy rate the device-first rule
// (hetero.hpp) was measured with on the H100 (hetero_device_first_95c6abc/).
inline constexpr double default_copy_up_bytes_per_second = 12e9;

struct HeteroRates {
  double device = 0;             // seconds per product on the device
  double host = 0;               // on the host
  double bytes_per_product = 0;  // of C (column and value per entry)
  // Seconds per byte of C copied into place (the default until a call measures it).
  double copy = 1.0 / default_copy_bytes_per_second;
  double copy_up = 1.0 / default_copy_up_bytes_per_second;  // up to the device
  double fixed_device = 0, fixed_host = 0;  // seconds a call costs besides
  bool measured() const { return device > 0 && host > 0; }
};

// A side's seconds per product and fixed seconds per call from two calls:
// t_one seconds for p_one products (one row), t_rest for p_rest. The fit keeps
// the rate at least a tenth of the two calls' mean (noise can make the one
// row slower than the rest) and the fixed cost at least 0.
struct SideFit {
  double per_product = 0, fixed = 0;
};
inline SideFit fit_side(double t_one, double p_one, double t_rest, double p_rest) {
  SideFit f;
  const double mean = (t_one + t_rest) / std::max(p_one + p_rest, 1.0);
  const double slope = p_rest > p_one ? (t_rest - t_one) / (p_rest - p_one) : mean;
  f.per_product = std::max(slope, 0.1 * mean);
  f.fixed = std::max(0.0, t_rest - p_rest * f.per_product);
  return f;
}

struct HeteroChoice {
  double gpu_share = 0;  // 0: the host alone, 1: the device alone, else a split
  double seconds_host_only = 0, seconds_device_only = 0, seconds_split = 0;
};

inline HeteroChoice choose_share(const HeteroRates& r, double products,
                                 bool inputs_on_device, double split_gain) {
  HeteroChoice c;
  const double copy = products * r.bytes_per_product * r.copy;
  const double up = inputs_on_device ? products * r.bytes_per_product * r.copy_up : 0;
  const double d = r.device, h = r.host;
  c.seconds_host_only = r.fixed_host + products * h + up;
  c.seconds_device_only = r.fixed_device + products * d + (inputs_on_device ? 0 : copy);
  c.seconds_split = std::max(r.fixed_device, r.fixed_host) +
                    (d + h > 0 ? products * d * h / (d + h) : 0) + copy + up;
  const double best_single = std::min(c.seconds_host_only, c.seconds_device_only);
  if (d + h > 0 && c.seconds_split < split_gain * best_single) {
    c.gpu_share = h / (d + h);
  } else {
    c.gpu_share = c.seconds_device_only <= c.seconds_host_only ? 1.0 : 0.0;
  }
  return c;
}

}  // namespace libra::impl
