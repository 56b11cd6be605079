#pragma once
// Which way heterogeneous SpGEMM runs a product, from what its calibration
// measured: the host alone, the device alone, or split at R = K / (K + 1).
//
// Per product the device takes d seconds and the host h (K = h / d), and C
// holds b bytes per product. Copying C's bytes into place (down from the
// device, or from the host side's piece into C) takes c seconds a byte. Then
//   host alone:   P h                    (its C is the product's own: no copy)
//   device alone: P d + P b c            (C comes down once; none with device
//                                         inputs, where C stays there)
//   split at R:   P d h / (d + h) + P b c  (the sides end together; every byte
//                                         of C is copied into place once)
// with P the products, plus one copy more for the host alone and the split
// when A and B are on the device (C goes back up). A split also pays fixed
// costs the model leaves out (two SpGEMM calls, the panels' gathers, a second
// thread), so it is chosen only when it beats both single sides by the margin
// `split_gain`.
#include <algorithm>
#include <cstdint>

namespace libra::impl {

struct HeteroRates {
  double device = 0;             // seconds per product on the device
  double host = 0;               // on the host
  double bytes_per_product = 0;  // of C (column and value per entry)
  // Seconds per byte of C copied into place; before any call measured it, 12 GB/s
  // (what the H100 machine's host copied C out of pinned staging at).
  double copy = 1.0 / 12e9;
  bool measured() const { return device > 0 && host > 0; }
};

struct HeteroChoice {
  double gpu_share = 0;  // 0: the host alone, 1: the device alone, else a split
  double seconds_host_only = 0, seconds_device_only = 0, seconds_split = 0;
};

inline HeteroChoice choose_share(const HeteroRates& r, double products,
                                 bool inputs_on_device, double split_gain) {
  HeteroChoice c;
  const double copy = products * r.bytes_per_product * r.copy;
  const double d = r.device, h = r.host;
  c.seconds_host_only = products * h + (inputs_on_device ? copy : 0);
  c.seconds_device_only = products * d + (inputs_on_device ? 0 : copy);
  c.seconds_split =
      (d + h > 0 ? products * d * h / (d + h) : 0) + copy * (inputs_on_device ? 2 : 1);
  const double best_single = std::min(c.seconds_host_only, c.seconds_device_only);
  if (d + h > 0 && c.seconds_split < split_gain * best_single) {
    c.gpu_share = h / (d + h);
  } else {
    c.gpu_share = c.seconds_device_only <= c.seconds_host_only ? 1.0 : 0.0;
  }
  return c;
}

}  // namespace libra::impl
