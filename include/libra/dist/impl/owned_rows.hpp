#pragma once
// Where y stays on the ranks (Spmv::apply_local): which rows of y each
// row-based part (pCSR, pCOO) holds, and which partial rows travel. Part i
// covers lines [start[i], start[i+1] + flag[i+1]); flag[i] says its first line
// is shared with the part before. A line shared by several parts belongs to the
// lowest of them, so part i holds [start[i] + flag[i], start[i+1] + flag[i+1]):
// the holdings tile the rows, and a part inside one long line holds none. Each
// part whose first line is shared sends that line's partial sum (K values) to
// the part holding it, which adds it to its last row: at most one message per
// part, of one row.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

namespace libra::dist::impl {

struct OwnedRows {
  std::int64_t first = 0, last = 0;  // rows [first, last) of y held here
  std::int64_t local_first = 0;      // where `first` is in the part's own lines
  int send_to = -1;                  // the part holding this part's shared first line
  std::vector<int> shared_from;      // the parts whose first line is this one's last
};

// Part `part`'s holdings, from every part's first line (start, P + 1 entries,
// the last one the row count) and start flag (P + 1, the last one 0).
inline OwnedRows owned_rows(const std::vector<std::int64_t>& start,
                            const std::vector<std::int64_t>& flag, int part) {
  const auto P = static_cast<int>(start.size()) - 1;
  const auto first = [&](int i) {
    const auto k = static_cast<std::size_t>(i);
    return start[k] + flag[k];
  };
  // Whether part i's first line is shared and it computed a partial sum of it.
  const auto sends = [&](int i) {
    const auto k = static_cast<std::size_t>(i);
    return flag[k] != 0 && first(i + 1) > start[k];
  };
  OwnedRows o;
  o.first = first(part);
  o.last = first(part + 1);
  o.local_first = flag[static_cast<std::size_t>(part)];
  if (sends(part)) {
    const std::int64_t line = start[static_cast<std::size_t>(part)];
    for (int j = part - 1; j >= 0; --j) {
      if (first(j) <= line && line < first(j + 1)) {
        o.send_to = j;
        break;
      }
    }
  }
  for (int i = part + 1; i < P; ++i) {
    const std::int64_t line = start[static_cast<std::size_t>(i)];
    if (sends(i) && o.first <= line && line < o.last) o.shared_from.push_back(i);
  }
  return o;
}

// y(r) = beta y(r) + local(local_first + r) over the rows held, then the last
// row held gets the `arrived` partial rows (n_arrived of them) added. local and
// arrived are (rows x K, LayoutRight); y is rows x K, or a vector where K is 1.
// beta 0 never reads y. (A functor: nvcc refuses a device lambda that first
// captures y inside an `if constexpr` on y's rank.)
template <class Local, class Y, class S>
struct FinishOwnedRows {
  Local local, arrived;
  Y y;
  std::int64_t local_first, n_arrived, rows, K;
  S beta;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t e) const {
    const std::int64_t r = e / K, k = e % K;
    S v = local(local_first + r, k);
    if (r == rows - 1) {
      for (std::int64_t a = 0; a < n_arrived; ++a) v += arrived(a, k);
    }
    if constexpr (Y::rank == 1) {
      y(r) = beta == S(0) ? v : beta * y(r) + v;
    } else {
      y(r, k) = beta == S(0) ? v : beta * y(r, k) + v;
    }
  }
};

template <class Exec, class Local, class Y, class S>
void finish_owned_rows(const Exec& exec, const Local& local, std::int64_t local_first,
                       const Local& arrived, std::int64_t n_arrived, const Y& y, S beta) {
  const std::int64_t rows = static_cast<std::int64_t>(y.extent(0));
  const std::int64_t K = static_cast<std::int64_t>(local.extent(1));
  if (rows == 0 || K == 0) return;
  Kokkos::parallel_for("libra::dist::spmv::owned_rows",
                       Kokkos::RangePolicy<Exec>(exec, 0, rows * K),
                       FinishOwnedRows<Local, Y, S>{local, arrived, y, local_first,
                                                    n_arrived, rows, K, beta});
}

// y = beta y (beta 0: y = 0, y never read); y is rows x K or a vector.
template <class Y, class S>
struct ScaleRows {
  Y y;
  std::int64_t K;
  S beta;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t e) const {
    if constexpr (Y::rank == 1) {
      y(e) = beta == S(0) ? S(0) : beta * y(e);
    } else {
      const std::int64_t r = e / K, k = e % K;
      y(r, k) = beta == S(0) ? S(0) : beta * y(r, k);
    }
  }
};

template <class Exec, class Y, class S>
void scale_rows(const Exec& exec, const Y& y, S beta) {
  const std::int64_t K = Y::rank == 1 ? 1 : static_cast<std::int64_t>(y.extent(1));
  const std::int64_t n = static_cast<std::int64_t>(y.extent(0)) * K;
  if (n == 0) return;
  Kokkos::parallel_for("libra::dist::spmv::scale_rows",
                       Kokkos::RangePolicy<Exec>(exec, 0, n),
                       ScaleRows<Y, S>{y, K, beta});
}

// y's last row += the `arrived` partial rows (n_arrived x K).
template <class Local, class Y>
struct AddArrivedRows {
  Local arrived;
  Y y;
  std::int64_t n_arrived, last;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    auto v = arrived(0, k);
    for (std::int64_t a = 1; a < n_arrived; ++a) v += arrived(a, k);
    if constexpr (Y::rank == 1) {
      y(last) += v;
    } else {
      y(last, k) += v;
    }
  }
};

template <class Exec, class Local, class Y>
void add_arrived_rows(const Exec& exec, const Local& arrived, std::int64_t n_arrived,
                      const Y& y) {
  const std::int64_t rows = static_cast<std::int64_t>(y.extent(0));
  if (n_arrived == 0 || rows == 0) return;
  Kokkos::parallel_for(
      "libra::dist::spmv::add_arrived_rows",
      Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::int64_t>(arrived.extent(1))),
      AddArrivedRows<Local, Y>{arrived, y, n_arrived, rows - 1});
}

}  // namespace libra::dist::impl
