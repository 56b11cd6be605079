// SpMV, y = beta * y + alpha * A * x, against the reference oracle, for CSR,
// CSC, COO, ELL (plain and hybrid) and the three partial formats: vectors
// (contiguous and strided) and blocks of K = 3, 8 right-hand sides in both
// layouts, float and double, alpha/beta combinations (beta = 0 with NaN in y,
// alpha = 0), the balanced kernels with long segments (no carries) and short
// ones (carries and atomics on every row), CSR's, CSC's and COO's tiles forced
// on every space with tiles of 1 and 3 threads, power-law rows and columns, empty
// rows/columns and empty matrices, every part count for the partial formats
// applied in order to one y, COO's plain adds where its rows are found sorted
// (and not in a user's unsorted Coo), and the matrix files (../shared/matrices in
// the `shared` executable). Each call's path is asserted.
#include <gtest/gtest.h>

#include <KokkosSparse_CrsMatrix.hpp>
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "libra/format/convert.hpp"
#include "libra/io/read.hpp"
#include "libra/spmv/spmv.hpp"
#include "support/compare.hpp"
#include "support/matrix_files.hpp"
#include "support/spmv_check.hpp"
#include "support/test_space.hpp"
#include "support/tool_events.hpp"
#include "support/user_coo.hpp"

namespace spmv_test {

using libra::SpmvOptions;
using libra::SpmvPath;
using libra::SpmvStats;
using libra::test::Device;
using libra::test::Exec;
using Left = Kokkos::LayoutLeft;
using Right = Kokkos::LayoutRight;

// csr_planned, pcsr_planned: with plans (libra::spmv_plan) made for them.
enum class Format {
  csr,
  csc,
  coo,
  ell,
  ell_hybrid,
  pcsr,
  pcsc,
  pcoo,
  csr_planned,
  pcsr_planned
};
const char* name(Format f) {
  switch (f) {
    case Format::csr:
      return "csr";
    case Format::csc:
      return "csc";
    case Format::coo:
      return "coo";
    case Format::ell:
      return "ell";
    case Format::ell_hybrid:
      return "ell_hybrid";
    case Format::pcsr:
      return "pcsr";
    case Format::pcsc:
      return "pcsc";
    case Format::pcoo:
      return "pcoo";
    case Format::csr_planned:
      return "csr_planned";
    case Format::pcsr_planned:
      return "pcsr_planned";
  }
  return "?";
}
constexpr Format all_formats[] = {
    Format::csr,  Format::csc,  Format::coo,  Format::ell,         Format::ell_hybrid,
    Format::pcsr, Format::pcsc, Format::pcoo, Format::csr_planned, Format::pcsr_planned};

SpmvOptions segments(std::int64_t items) {
  SpmvOptions o;
  o.tuning.segment_items = items;
  return o;
}

// Host spaces with more than one thread can run CSC's private blocks.
constexpr bool private_blocks =
    !libra::LaunchTraits<Exec>::is_gpu && !libra::impl::spmv_single_thread<Exec>;

// The path a whole-matrix call takes when alpha != 0 and A has nonzeros (`rank1`:
// x and y are vectors); for CSC with Libra choosing between atomics and private
// blocks (csc_private == 0), `either` is set and the path may be csc_private too.
SpmvPath compute_path(Format f, bool tail, bool rank1, const SpmvOptions& o = {},
                      bool* either = nullptr) {
  // CSC's and COO's tiles on GPUs unless forced either way (the rule written
  // out here, not read from the library).
  const int st = o.tuning.scatter_tiles;
  const bool scatter_tiles = st > 0 || (st == 0 && libra::LaunchTraits<Exec>::is_gpu);
  if (f == Format::csc || f == Format::pcsc) {
    if (scatter_tiles) return SpmvPath::csc_tiles;
    if (either) *either = o.tuning.csc_private == 0 && private_blocks;
    return o.tuning.csc_private > 0 && private_blocks ? SpmvPath::csc_private
                                                      : SpmvPath::csc_scatter;
  }
  switch (f) {
    case Format::csr:
    case Format::pcsr:
    case Format::csr_planned:
    case Format::pcsr_planned: {
      // Tiles for vectors, on GPUs unless forced either way; with a plan the
      // rows kernel where forced, or (Libra choosing) perhaps on GPUs.
      const int t = o.tuning.csr_tiles;
      const bool tiles =
          rank1 && (t > 0 || (t == 0 && libra::LaunchTraits<Exec>::is_gpu));
      // With a plan or without, the rows kernel where forced, perhaps where
      // Libra chooses on GPUs (small paths; a plan's short rows).
      if (!tiles) return SpmvPath::csr_merge_path;
      const int r = o.tuning.csr_rows;
      if (r > 0) return SpmvPath::csr_rows;
      if (either) *either = r == 0 && libra::LaunchTraits<Exec>::is_gpu;
      return SpmvPath::csr_tiles;
    }
    case Format::csc:
    case Format::pcsc:
      return SpmvPath::csc_scatter;
    case Format::coo:
    case Format::pcoo:
      return scatter_tiles ? SpmvPath::coo_tiles : SpmvPath::coo_runs;
    case Format::ell:
    case Format::ell_hybrid:
      return tail ? SpmvPath::ell_rows_tail : SpmvPath::ell_rows;
  }
  return SpmvPath::none;
}

void expect_path(SpmvPath got, Format f, bool tail, bool rank1, const SpmvOptions& o) {
  bool either = false;
  const SpmvPath want = compute_path(f, tail, rank1, o, &either);
  // The alternative Libra may choose: CSC's private blocks, a plan's rows kernel.
  if (either && want == SpmvPath::csc_scatter && got == SpmvPath::csc_private) return;
  if (either && want == SpmvPath::csr_tiles && got == SpmvPath::csr_rows) return;
  EXPECT_STREQ(libra::to_string(got), libra::to_string(want));
}

template <class T>
struct is_pcsr : std::false_type {};
template <class S, class O, class Off, class D>
struct is_pcsr<libra::PartialCsr<S, O, Off, D>> : std::true_type {};

// A call with a plan read its coordinates from it exactly when it ran CSR's
// tiles; the tiles summed rows by a thread each exactly where the plan said so,
// and the plan says so wherever its tiles hold whole rows and row sums are
// forced, never where they are forbidden.
template <class Plan>
void expect_planned(const SpmvStats& st, const Plan& plan, const SpmvOptions& o) {
  EXPECT_EQ(st.planned, st.path == SpmvPath::csr_tiles || st.path == SpmvPath::csr_rows)
      << libra::to_string(st.path);
  EXPECT_EQ(st.row_sums,
            st.planned && st.path == SpmvPath::csr_tiles && plan.tiles.row_sums);
  const int sums = o.tuning.tile_row_sums;
  if (plan.tiles.row_sums) EXPECT_TRUE(plan.tiles.whole_rows && sums >= 0);
  if (plan.tiles.whole_rows && plan.tiles.lanes == 0 && sums > 0) {
    EXPECT_TRUE(plan.tiles.row_sums);
  }
}

// Without a plan, the tiles summed rows exactly where a plan made with the same
// tuning (the rows kernel forbidden) sums them, wherever sums are forced or
// (Libra choosing, GPUs) the path is long enough to wait for the longest row;
// never elsewhere.
template <class M>
void expect_planless_sums(const SpmvStats& st, const M& A, const SpmvOptions& o) {
  const int sums = o.tuning.tile_row_sums;
  const bool considered =
      st.path == SpmvPath::csr_tiles &&
      (sums > 0 || (sums == 0 && libra::LaunchTraits<Exec>::is_gpu &&
                    static_cast<std::int64_t>(A.row_map.extent(0)) - 1 + A.nnz() >=
                        libra::impl::planless_row_sums_min_path));
  if (!considered) {
    EXPECT_FALSE(st.row_sums);
    return;
  }
  SpmvOptions p = o;
  p.tuning.csr_rows = -1;
  EXPECT_EQ(st.row_sums, libra::spmv_plan(Exec(), A, p).tiles.row_sums);
}

// Applies parts in order to one y and checks every part's path (pcsr_planned:
// each part with a plan of its own).
template <class Parts, class X, class Y>
void run_parts(const Parts& parts, double alpha, const X& x, double beta, const Y& y,
               const SpmvOptions& o, Format f) {
  constexpr bool rank1 = Y::rank == 1;
  for (const auto& p : parts) {
    SpmvStats st;
    if constexpr (is_pcsr<typename Parts::value_type>::value) {
      if (f == Format::pcsr_planned) {
        const auto plan = libra::spmv_plan(Exec(), p, o);
        libra::spmv(Exec(), alpha, p, x, beta, y, plan, o, &st);
        expect_planned(st, plan, o);
      } else {
        libra::spmv(Exec(), alpha, p, x, beta, y, o, &st);
        expect_planless_sums(st, p, o);
      }
    } else {
      libra::spmv(Exec(), alpha, p, x, beta, y, o, &st);
    }
    if (p.lines() == 0 && f != Format::pcsc) {
      EXPECT_EQ(st.path, SpmvPath::none);
    } else if (alpha != 0 && p.nnz() > 0) {
      expect_path(st.path, f, false, rank1, o);
    }
  }
}

// One format, one (K, rank, layout, alpha, beta, options) against the oracle.
template <class S, class Layout, bool Rank1>
void check_format(const libra::ref::Matrix& a0, Format f, std::int64_t K, double alpha,
                  double beta, const SpmvOptions& o = {}, int parts = 3) {
  SCOPED_TRACE(std::string(name(f)) + ", " + std::to_string(parts) + " parts, segment " +
               std::to_string(o.tuning.segment_items) + ", csc_private " +
               std::to_string(o.tuning.csc_private) + ", csr_tiles " +
               std::to_string(o.tuning.csr_tiles) + " x " +
               std::to_string(o.tuning.tile_threads) + " threads, scatter_tiles " +
               std::to_string(o.tuning.scatter_tiles) + ", coo_sorted_check " +
               std::to_string(o.tuning.coo_sorted_check));
  const auto A = libra::test::from_ref<S, int, int, Device>(a0);
  const auto a = libra::test::to_ref(A);  // values rounded to S
  libra::test::check_spmv<S, Device, Layout, Rank1>(
      a, K, alpha, beta, [&](const auto& x, const auto& y) {
        SpmvStats st;
        bool tail = false;
        bool slots = a.nnz() > 0;  // ELL pads: a fixed width computes without nonzeros
        std::int64_t coo_nnz = 0;  // the entries COO's kernel ran over (a hybrid's tail)
        switch (f) {
          case Format::csr:
            libra::spmv(Exec(), alpha, A, x, beta, y, o, &st);
            expect_planless_sums(st, A, o);
            break;
          case Format::csr_planned: {
            const auto plan = libra::spmv_plan(Exec(), A, o);
            libra::spmv(Exec(), alpha, A, x, beta, y, plan, o, &st);
            if (a.rows > 0 && alpha != 0 && a.nnz() > 0) expect_planned(st, plan, o);
            break;
          }
          case Format::csc:
            libra::spmv(Exec(), alpha, libra::to_csc(Exec(), A), x, beta, y, o, &st);
            break;
          case Format::coo:
            coo_nnz = a.nnz();
            libra::spmv(Exec(), alpha, libra::to_coo(Exec(), A), x, beta, y, o, &st);
            break;
          case Format::ell: {
            const auto E = libra::to_ell(Exec(), A);
            slots = E.width > 0;
            libra::spmv(Exec(), alpha, E, x, beta, y, o, &st);
            break;
          }
          case Format::ell_hybrid: {
            libra::EllOptions eo;
            eo.width = 2;
            eo.overflow = libra::EllOverflow::hybrid;
            const auto E = libra::to_ell(Exec(), A, eo);
            tail = E.tail.nnz() > 0;
            coo_nnz = E.tail.nnz();
            slots = E.width > 0 || tail;
            libra::spmv(Exec(), alpha, E, x, beta, y, o, &st);
            break;
          }
          case Format::pcsr:
          case Format::pcsr_planned:
            run_parts(libra::partition(Exec(), A, parts), alpha, x, beta, y, o, f);
            return;
          case Format::pcsc:
            run_parts(libra::partition(Exec(), libra::to_csc(Exec(), A), parts), alpha, x,
                      beta, y, o, f);
            return;
          case Format::pcoo:
            run_parts(libra::partition(Exec(), libra::to_coo(Exec(), A), parts), alpha, x,
                      beta, y, o, f);
            return;
        }
        if (a.rows == 0) {
          EXPECT_EQ(st.path, SpmvPath::none);
        } else if (alpha == 0 || !slots) {
          EXPECT_EQ(st.path, SpmvPath::scale_only);
        } else {
          expect_path(st.path, f, tail, Rank1, o);
          if (f != Format::csr_planned && f != Format::csr) EXPECT_FALSE(st.row_sums);
          // The merge path's whole rows: where forced, or on host spaces for
          // paths within csr_whole_rows_max_path.
          if (st.path == SpmvPath::csr_merge_path) {
            const int w = o.tuning.csr_whole_rows;
            EXPECT_EQ(st.whole_rows,
                      w > 0 || (w == 0 && !libra::LaunchTraits<Exec>::is_gpu &&
                                a.rows + a.nnz() <= o.tuning.csr_whole_rows_max_path));
          } else {
            EXPECT_FALSE(st.whole_rows);
          }
          // A read by streaming loads in the tiles and rows kernels on CUDA,
          // unless forbidden.
          const bool csr_kernel =
              st.path == SpmvPath::csr_tiles || st.path == SpmvPath::csr_rows;
          EXPECT_EQ(st.streamed, csr_kernel && libra::impl::spmv_can_stream<Exec> &&
                                     o.tuning.load_hints >= 0);
          if (st.path == SpmvPath::csc_scatter) {
            // Plain adds where forced, or where one host thread runs it all.
            const bool one_thread =
                !libra::LaunchTraits<Exec>::is_gpu && Exec().concurrency() == 1;
            EXPECT_EQ(st.plain_adds, o.tuning.plain_adds > 0 ||
                                         (o.tuning.plain_adds == 0 && one_thread));
          } else if (coo_nnz > 0 && (st.path == SpmvPath::coo_runs ||
                                     st.path == SpmvPath::ell_rows_tail)) {
            // Libra's COO and hybrid tail are sorted by row: plain adds inside
            // segments wherever the order is checked (forced, or multi-threaded
            // host spaces from 12,288 entries).
            const int c = o.tuning.coo_sorted_check;
            const bool checked =
                c > 0 || (c == 0 && !libra::LaunchTraits<Exec>::is_gpu &&
                          !std::is_same_v<Exec, Kokkos::Serial> && coo_nnz >= 12288);
            const int t = o.tuning.scatter_tiles;  // a hybrid's tail may take tiles
            const bool runs = t < 0 || (t == 0 && !libra::LaunchTraits<Exec>::is_gpu);
            EXPECT_EQ(st.plain_adds, checked && runs);
          }
        }
      });
}

template <class S>
void check_all(const libra::ref::Matrix& a, double alpha, double beta,
               const SpmvOptions& o = {}) {
  for (Format f : all_formats) {
    check_format<S, Left, true>(a, f, 1, alpha, beta, o);
    check_format<S, Right, true>(a, f, 1, alpha, beta, o);  // x, y strided
    check_format<S, Left, false>(a, f, 3, alpha, beta, o);
    check_format<S, Right, false>(a, f, 8, alpha, beta, o);
  }
  // The atomic scatter with plain adds, forced, over one segment (a single
  // thread: right on every space), and with atomics forced.
  for (int forced : {1, -1}) {
    SpmvOptions p = o;
    p.tuning.scatter_tiles = -1;
    p.tuning.csc_private = -1;
    p.tuning.plain_adds = forced;
    if (forced > 0) p.tuning.segment_items = std::int64_t(1) << 40;
    for (Format f : {Format::csc, Format::pcsc}) {
      check_format<S, Left, true>(a, f, 1, alpha, beta, p);
      check_format<S, Right, false>(a, f, 3, alpha, beta, p);
    }
  }
  // CSR's tiles forced on every space: one thread, a few (carries between
  // threads), the space's default, items per thread from tiny (a row across
  // several threads and tiles) to the default; and the thread-per-segment
  // kernel forced where tiles are the default.
  for (const auto& [threads, items] :
       std::vector<std::pair<int, std::int64_t>>{{1, 2}, {3, 2}, {3, 5}, {0, 0}}) {
    SpmvOptions p = o;
    p.tuning.csr_tiles = 1;
    p.tuning.tile_threads = threads;
    p.tuning.segment_items = items;
    for (Format f : {Format::csr, Format::pcsr}) {
      check_format<S, Left, true>(a, f, 1, alpha, beta, p);
      check_format<S, Right, true>(a, f, 1, alpha, beta, p);
    }
    // Plans: Libra's choice, the rows kernel forced and forbidden.
    for (int rows_kernel : {0, 1, -1}) {
      p.tuning.csr_rows = rows_kernel;
      for (Format f : {Format::csr_planned, Format::pcsr_planned}) {
        check_format<S, Left, true>(a, f, 1, alpha, beta, p);
        check_format<S, Right, true>(a, f, 1, alpha, beta, p);
      }
    }
  }
  // CSR's merge path summing whole rows forced and forbidden (carries), and
  // Libra's choice past its longest path, in segments short enough to cut
  // rows and long ones.
  for (const auto& [whole, longest] :
       std::vector<std::pair<int, std::int64_t>>{{1, 0}, {-1, 0}, {0, 1}}) {
    for (const std::int64_t items :
         {std::int64_t(3), std::int64_t(40), std::int64_t(0)}) {
      SpmvOptions p = o;
      p.tuning.csr_tiles = -1;
      p.tuning.csr_whole_rows = whole;
      if (longest > 0) p.tuning.csr_whole_rows_max_path = longest;
      p.tuning.segment_items = items;
      for (Format f : {Format::csr, Format::pcsr}) {
        check_format<S, Left, true>(a, f, 1, alpha, beta, p);
        check_format<S, Right, false>(a, f, 3, alpha, beta, p);
      }
    }
  }
  // Streaming loads of A (spmv/impl/loads.hpp) forced and forbidden in the
  // tiles and the rows kernel: on CUDA two instantiations, one result.
  for (int hints : {1, -1}) {
    SpmvOptions p = o;
    p.tuning.csr_tiles = 1;
    p.tuning.load_hints = hints;
    for (int rows_kernel : {1, -1}) {
      p.tuning.csr_rows = rows_kernel;
      for (Format f : {Format::csr, Format::csr_planned, Format::pcsr_planned}) {
        check_format<S, Left, true>(a, f, 1, alpha, beta, p);
      }
    }
  }
  // Row sums forced and forbidden, with plans (the rows kernel forbidden) and
  // without, in tiles of one thread and of a few (4 threads x 16 items: more
  // rows than threads where rows are short), long enough for whole rows of
  // these matrices and not.
  for (int sums : {1, -1}) {
    for (const auto& [threads, items] :
         std::vector<std::pair<int, std::int64_t>>{{1, 64}, {3, 5}, {4, 16}, {2, 40}}) {
      SpmvOptions p = o;
      p.tuning.csr_tiles = 1;
      p.tuning.csr_rows = -1;
      p.tuning.tile_threads = threads;
      p.tuning.segment_items = items;
      p.tuning.tile_row_sums = sums;
      for (Format f :
           {Format::csr, Format::pcsr, Format::csr_planned, Format::pcsr_planned}) {
        check_format<S, Left, true>(a, f, 1, alpha, beta, p);
        check_format<S, Right, true>(a, f, 1, alpha, beta, p);
      }
    }
  }
  // The rows kernel, with a plan and without, its lanes per row forced (GPUs;
  // host spaces run one lane): a thread per row, a few rows a warp, a warp per
  // row; rows the whole team sums from Libra's length, from one nonzero (every
  // row, more than the team's list holds), and none.
  for (int lanes : {1, 4, 32}) {
    for (std::int64_t team : {0, 1, -1}) {
      SpmvOptions p = o;
      p.tuning.csr_tiles = 1;
      p.tuning.csr_rows = 1;
      p.tuning.csr_row_lanes = lanes;
      p.tuning.csr_row_team_min = team;
      for (Format f :
           {Format::csr, Format::pcsr, Format::csr_planned, Format::pcsr_planned}) {
        check_format<S, Left, true>(a, f, 1, alpha, beta, p);
      }
    }
  }
  {
    SpmvOptions p = o;
    p.tuning.csr_tiles = -1;
    for (Format f : {Format::csr, Format::pcsr}) {
      check_format<S, Left, true>(a, f, 1, alpha, beta, p);
    }
  }
  // CSC's two scatters of segments, each forced (private blocks only where
  // they can run).
  for (int forced : {1, -1}) {
    SpmvOptions p = o;
    p.tuning.scatter_tiles = -1;
    p.tuning.csc_private = forced;
    for (Format f : {Format::csc, Format::pcsc}) {
      check_format<S, Left, true>(a, f, 1, alpha, beta, p);
      check_format<S, Right, false>(a, f, 3, alpha, beta, p);
    }
  }
  // CSC's and COO's tiles forced on every space: one thread, a few (a column
  // or a run of one row across threads), the space's default; items per
  // thread from tiny (across tiles) to the default; and COO's runs forced.
  for (const auto& [threads, items] :
       std::vector<std::pair<int, std::int64_t>>{{1, 2}, {3, 2}, {3, 5}, {0, 0}}) {
    SpmvOptions p = o;
    p.tuning.scatter_tiles = 1;
    p.tuning.tile_threads = threads;
    p.tuning.segment_items = items;
    for (Format f :
         {Format::csc, Format::pcsc, Format::coo, Format::pcoo, Format::ell_hybrid}) {
      check_format<S, Left, true>(a, f, 1, alpha, beta, p);
      check_format<S, Right, false>(a, f, 3, alpha, beta, p);
    }
  }
  // COO's runs forced, with the rows' order checked (plain adds inside
  // segments), not checked, and as Libra chooses.
  for (int check : {1, -1, 0}) {
    SpmvOptions p = o;
    p.tuning.scatter_tiles = -1;
    p.tuning.coo_sorted_check = check;
    for (Format f : {Format::coo, Format::pcoo, Format::ell_hybrid}) {
      check_format<S, Left, true>(a, f, 1, alpha, beta, p);
      check_format<S, Right, false>(a, f, 3, alpha, beta, p);
    }
  }
}

TEST(Spmv, EveryFormatRectangular) {
  const auto a = libra::ref::random(300, 170, 6, 11);
  check_all<double>(a, 1, 0);
  check_all<float>(a, 1, 0);
  check_all<double>(a, 1, 0, segments(7));  // short segments: carries everywhere
  check_all<double>(libra::ref::random(90, 400, 9, 12), 1, 0, segments(5));
}

TEST(Spmv, AlphaBeta) {
  const auto a = libra::ref::random(120, 90, 5, 13);
  for (const auto& [alpha, beta] : std::vector<std::pair<double, double>>{
           {2, 0}, {1, 1}, {2, -1}, {-0.5, 0.25}, {0, 3}, {0, 0}}) {
    check_all<double>(a, alpha, beta);
    check_all<double>(a, alpha, beta, segments(3));
    check_all<float>(a, alpha, beta, segments(11));
  }
}

// COO's runs add rows inside segments plainly only where the rows never
// decrease: sorted (Libra's order, with Libra's choice on a matrix past the
// check's threshold), in reverse order with duplicates split, and two sorted
// halves swapped so that only the comparison across the segments' boundary
// tells (the result cannot: their rows are disjoint).
TEST(Spmv, CooRowOrderDecidesPlainAdds) {
  const auto a = libra::ref::random(3000, 2000, 8, 31);  // past 12,288 entries
  ASSERT_GE(a.nnz(), 12288);
  const auto sorted = libra::ref::to_triplets(a);
  std::vector<libra::ref::Triplet> reversed;
  for (auto e = sorted.rbegin(); e != sorted.rend(); ++e) {
    const auto& [i, j, v] = *e;
    reversed.emplace_back(i, j, 0.25 * v);  // the two sum to the value, to rounding
    reversed.emplace_back(i, j, 0.75 * v);
  }
  const std::size_t half = sorted.size() / 2;
  std::vector<libra::ref::Triplet> swapped(sorted.begin() + half, sorted.end());
  swapped.insert(swapped.end(), sorted.begin(), sorted.begin() + half);
  const bool host_threads =
      !libra::LaunchTraits<Exec>::is_gpu && !std::is_same_v<Exec, Kokkos::Serial>;
  struct Case {
    const char* name;
    const std::vector<libra::ref::Triplet>* entries;
    bool in_order;
  };
  for (const Case& c : {Case{"sorted", &sorted, true}, Case{"reversed", &reversed, false},
                        Case{"halves swapped", &swapped, false}}) {
    const auto A = libra::test::user_coo<libra::Coo<double, int, int, Device>>(
        a.rows, a.cols, *c.entries);
    for (int check : {0, 1}) {
      SCOPED_TRACE(std::string(c.name) + ", coo_sorted_check " + std::to_string(check));
      SpmvOptions o;
      o.tuning.scatter_tiles = -1;  // the runs kernel on every space
      if (check > 0) {
        o.tuning.coo_sorted_check = 1;
        // The halves' boundary between two segments.
        o.tuning.segment_items = static_cast<std::int64_t>(sorted.size() - half);
      }
      libra::test::check_spmv<double, Device, Left, true>(
          a, 1, 1.5, -0.5, [&](const auto& x, const auto& y) {
            SpmvStats st;
            libra::spmv(Exec(), 1.5, A, x, -0.5, y, o, &st);
            EXPECT_EQ(st.path, SpmvPath::coo_runs);
            EXPECT_EQ(st.plain_adds, c.in_order && (check > 0 || host_threads));
            if (check > 0 && c.entries == &swapped) EXPECT_EQ(st.segments, 2u);
          });
    }
  }
}

// A row and a column holding most of the nonzeros (a power-law hub), cut into
// many short segments.
TEST(Spmv, PowerLawHub) {
  std::vector<libra::ref::Triplet> t;
  const std::int64_t n = 700;
  for (std::int64_t j = 0; j < n; ++j) t.emplace_back(5, j, 1.0 + (j % 7));
  for (std::int64_t i = 0; i < n; ++i) t.emplace_back(i, 3, 0.5 - (i % 5));
  for (std::int64_t i = 0; i < n; i += 3) t.emplace_back(i, (i * 13) % n, -1.0);
  const auto a = libra::ref::from_triplets(n, n, t);
  check_all<double>(a, 1.5, -1);
  check_all<double>(a, 1.5, -1, segments(16));
  for (int P : {2, 5, 8, 64}) {
    for (Format f : {Format::pcsr, Format::pcsc, Format::pcoo}) {
      check_format<double, Left, true>(a, f, 1, 2, 0.5, segments(9), P);
      check_format<double, Right, false>(a, f, 4, 1, 0, {}, P);
    }
  }
}

// Without a plan, a band's rows summed a thread each on boundaries found at row
// starts (forced: these paths are short of Libra's own threshold), with beta
// on every row and a pCSR whose first row an earlier part began; the hub row
// of 700 nonzeros does not fit half a tile and walks.
TEST(Spmv, PlanlessRowSums) {
  std::vector<libra::ref::Triplet> t;
  const std::int64_t n = 500;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t d = -2; d <= 2; ++d) {
      if (i + d >= 0 && i + d < n)
        t.emplace_back(i, i + d, 1.0 + 0.25 * d - 0.01 * (i % 7));
    }
  }
  const auto band = libra::ref::from_triplets(n, n, t);
  SpmvOptions o;
  o.tuning.csr_tiles = 1;
  o.tuning.tile_threads = 1;
  o.tuning.segment_items = 64;  // tiles of 64 path items: many, each of whole rows
  o.tuning.tile_row_sums = 1;
  o.tuning.csr_rows = -1;  // GPUs would take the rows kernel on paths this short
  for (const auto& [alpha, beta] :
       std::vector<std::pair<double, double>>{{1, 0}, {2, -1}, {-0.5, 0.25}}) {
    const auto A = libra::test::from_ref<double, int, int, Device>(band);
    std::vector<double> hx(n), hy(n);
    for (std::int64_t j = 0; j < n; ++j) hx[j] = 0.25 * static_cast<double>(j % 9) - 1;
    for (std::int64_t i = 0; i < n; ++i) hy[i] = 0.5 - static_cast<double>(i % 3);
    using HostView = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    Kokkos::View<double*, Device> x("x", n), y("y", n);
    Kokkos::deep_copy(x, HostView(hx.data(), n));
    Kokkos::deep_copy(y, HostView(hy.data(), n));
    SpmvStats st;
    libra::spmv(Exec(), alpha, A, x, beta, y, o, &st);
    EXPECT_EQ(st.path, SpmvPath::csr_tiles);
    EXPECT_TRUE(st.row_sums);
    EXPECT_FALSE(st.planned);
    EXPECT_GT(st.segments, 10u);
    const auto want = libra::ref::spmv(band, hx);
    const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    for (std::int64_t i = 0; i < n; ++i) {
      EXPECT_NEAR(got(i), alpha * want[i] + beta * hy[i], 1e-12) << "row " << i;
    }
  }
  check_format<double, Left, true>(band, Format::csr, 1, 2, -1, o);
  check_format<double, Left, true>(band, Format::pcsr, 1, 2, -1, o, 7);
  std::vector<libra::ref::Triplet> h = t;
  for (std::int64_t j = 0; j < n; ++j) h.emplace_back(250, j, 0.5);
  const auto hub = libra::ref::from_triplets(n, n, h);
  check_format<double, Left, true>(hub, Format::csr, 1, 1, 1, o);
  const auto H = libra::test::from_ref<double, int, int, Device>(hub);
  Kokkos::View<double*, Device> x("x", n), y("y", n);
  SpmvStats st;
  libra::spmv(Exec(), 1.0, H, x, 0.0, y, o, &st);
  EXPECT_EQ(st.path, SpmvPath::csr_tiles);
  EXPECT_FALSE(st.row_sums);
}

// The longest row, counted by teams of 8,192 rows: over three teams' worth,
// with the longest row in the last, and over fewer rows.
TEST(Spmv, LongestRow) {
  const std::int64_t n = 20000;
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t len = i == 17000 ? 300 : 1 + i % 5;
    for (std::int64_t e = 0; e < len; ++e) t.emplace_back(i, (i + 7 * e) % n, 1.0);
  }
  const auto A =
      libra::test::from_ref<double, int, int, Device>(libra::ref::from_triplets(n, n, t));
  EXPECT_EQ(libra::impl::spmv_longest_row(Exec(), A.row_map, n), 300);
  EXPECT_EQ(libra::impl::spmv_longest_row(Exec(), A.row_map, 16000), 5);
  EXPECT_EQ(libra::impl::spmv_longest_row(Exec(), A.row_map, 0), 0);
}

TEST(Spmv, EmptyRowsColumnsAndMatrices) {
  check_all<double>(libra::ref::random(50, 40, 2, 14, 0.6), 1, 2, segments(4));
  check_all<double>(libra::ref::from_triplets(7, 4, {}), 1, 0);  // no nonzeros
  check_all<double>(libra::ref::from_triplets(7, 4, {}), 2, 3);
  check_all<double>(libra::ref::from_triplets(0, 5, {}), 1, 1);  // no rows
  check_all<double>(libra::ref::from_triplets(6, 0, {}), 1, 1);  // no columns
  check_all<double>(libra::ref::Matrix{}, 1, 0);
}

TEST(Spmv, PartsInOrderEqualTheWhole) {
  const auto a = libra::ref::random(64, 48, 4, 15, 0.25);
  for (int P : {1, 2, 3, 4, 5, 6, 7, 8, 70, 300}) {
    for (Format f : {Format::pcsr, Format::pcsc, Format::pcoo}) {
      check_format<double, Left, true>(a, f, 1, 1, 0, {}, P);
      check_format<double, Left, false>(a, f, 3, -2, 0.5, segments(6), P);
    }
  }
}

TEST(Spmv, KokkosCrsMatrixAndShapes) {
  const auto A =
      libra::test::from_ref<double, int, int, Device>(libra::ref::random(30, 20, 3, 16));
  const auto K = libra::to_kokkos(A);
  Kokkos::View<double*, Device> x("x", 20), y("y", 30), wrong("w", 21);
  Kokkos::deep_copy(x, 1.0);
  SpmvStats st;
  libra::spmv(Exec(), 1.0, K, x, 0.0, y, {}, &st);
  expect_path(st.path, Format::csr, false, true, {});
  EXPECT_THROW(libra::spmv(Exec(), 1.0, A, wrong, 0.0, y), libra::ShapeError);
  EXPECT_THROW(libra::spmv(Exec(), 1.0, A, x, 0.0, wrong), libra::ShapeError);
  Kokkos::View<double**, Device> X("X", 20, 2), Y("Y", 30, 3);
  EXPECT_THROW(libra::spmv(Exec(), 1.0, A, X, 0.0, Y), libra::ShapeError);
  const auto parts = libra::partition(Exec(), A, 2);
  EXPECT_THROW(libra::spmv(Exec(), 1.0, parts[1], wrong, 0.0, y), libra::ShapeError);
}

TEST(Spmv, CsrTilesWithKeptCoordinatesAllocateNothingAndDoNotFence) {
  // A caller that keeps the tiles' coordinates (libra::dist, whose pieces leave
  // for other GPUs as each is done, where a fence of every stream would wait
  // for the moves) allocates them on its first call only and never fences.
  const auto a = libra::ref::random(900, 700, 9, 31, 0.3);
  const auto A = libra::test::from_ref<double, int, int, Device>(a);
  Kokkos::View<double*, Device> x("x", a.cols), y("y", a.rows);
  Kokkos::deep_copy(x, 0.5);
  SpmvOptions o = segments(3);  // many tiles: rows cut by their boundaries
  o.tuning.csr_tiles = 1;
  o.tuning.csr_rows = -1;  // GPUs would take the rows kernel on paths this short
  libra::impl::CsrKept<double, Device::memory_space> kept;
  const auto call = [&](double beta) {
    SpmvPath path;
    const auto tiles =
        libra::impl::spmv_csr(Exec(), A.row_map, A.col_idx, A.values, A.num_rows, x, y,
                              1.0, beta, beta, 0, o.tuning, path, &kept);
    EXPECT_EQ(path, SpmvPath::csr_tiles);
    EXPECT_GT(tiles, 10);
  };
  call(0.0);
  Kokkos::fence();
  const auto* first = kept.coords.view.data();
  EXPECT_NE(first, nullptr);
  for (double beta : {0.0, 1.0, 2.0}) {
    libra::test::ToolEvents events;
    call(beta);
    for (const auto& e : events.stop()) ADD_FAILURE() << "beta " << beta << ": " << e;
    Kokkos::fence();
  }
  EXPECT_EQ(kept.coords.view.data(), first);
  // The same result as the plain call, which takes its coordinates from the
  // block cache.
  Kokkos::View<double*, Device> y2("y2", a.rows);
  libra::spmv(Exec(), 1.0, A, x, 0.0, y2, o);
  call(0.0);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  const auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y2);
  for (std::int64_t i = 0; i < a.rows; ++i) EXPECT_NEAR(h(i), h2(i), 1e-12) << i;
}

TEST(Spmv, PlansNeitherAllocateNorFenceAndBelongToTheirMatrix) {
  const auto a = libra::ref::random(900, 700, 9, 35, 0.3);
  const auto A = libra::test::from_ref<double, int, int, Device>(a);
  const auto B = libra::test::from_ref<double, int, int, Device>(
      libra::ref::random(900, 700, 9, 36, 0.3));
  Kokkos::View<double*, Device> x("x", a.cols), y("y", a.rows), y2("y2", a.rows);
  Kokkos::deep_copy(x, 0.5);
  std::int64_t longest = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    longest = std::max<std::int64_t>(longest, a.ptr[i + 1] - a.ptr[i]);
  }
  // y == 1.5 * A * x against the oracle (x is 0.5 everywhere).
  const auto want = libra::ref::spmv(a, std::vector<double>(a.cols, 0.5));
  const auto expect_oracle = [&](const Kokkos::View<double*, Device>& v) {
    const auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    for (std::int64_t i = 0; i < a.rows; ++i) {
      ASSERT_NEAR(hv(i), 1.5 * want[i], 1e-12 * (1 + std::abs(want[i]))) << i;
    }
  };
  int whole_rows = 0, cut_rows = 0;
  for (const auto& [threads, items] :
       std::vector<std::pair<int, std::int64_t>>{{1, 2}, {3, 5}, {2, 512}, {0, 0}}) {
    SpmvOptions o;
    o.tuning.csr_tiles = 1;
    o.tuning.tile_threads = threads;
    o.tuning.segment_items = items;
    o.tuning.csr_rows = -1;  // the merge-path tiles; the rows kernel below
    SCOPED_TRACE(std::to_string(threads) + " threads, " + std::to_string(items) +
                 " items");
    const auto plan = libra::spmv_plan(Exec(), A, o);
    EXPECT_GT(plan.tiles.coords.extent(0), 1u);
    // Boundaries at row starts where every row fits half a tile, so that no
    // beta pass runs; else rows are cut.
    const std::int64_t tile = plan.tiles.threads * plan.tiles.items;
    if (plan.tiles.lanes == 0) {
      EXPECT_EQ(plan.tiles.whole_rows, longest + 1 <= tile / 2)
          << tile << ", " << longest;
    }
    (plan.tiles.whole_rows ? whole_rows : cut_rows) += 1;
    // Once first: Kokkos grows its own team scratch on host spaces.
    libra::spmv(Exec(), 1.5, A, x, 0.0, y, plan, o);
    Kokkos::deep_copy(y, 1.0);
    Kokkos::deep_copy(y2, 1.0);
    Kokkos::fence();
    // beta 2 reads y: the rows tiles cut get beta once, before the tiles add.
    for (double beta : {0.0, 2.0, 1.0}) {
      SpmvStats st;
      libra::test::ToolEvents events;
      libra::spmv(Exec(), 1.5, A, x, beta, y, plan, o, &st);
      for (const auto& e : events.stop()) ADD_FAILURE() << "beta " << beta << ": " << e;
      EXPECT_EQ(st.path, SpmvPath::csr_tiles);
      EXPECT_TRUE(st.planned);
      libra::spmv(Exec(), 1.5, A, x, beta, y2, o, &st);
      EXPECT_FALSE(st.planned);
    }
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    const auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y2);
    for (std::int64_t i = 0; i < a.rows; ++i) {
      ASSERT_NEAR(h(i), h2(i), 1e-12 * (1 + std::abs(h2(i)))) << i;
    }
    // Other tile tuning: the tiles search, with the right result.
    SpmvOptions other = o;
    other.tuning.segment_items = 3;
    SpmvStats st;
    libra::spmv(Exec(), 1.5, A, x, 0.0, y, plan, other, &st);
    EXPECT_EQ(st.path, SpmvPath::csr_tiles);
    EXPECT_FALSE(st.planned);
    expect_oracle(y);
  }
  EXPECT_GT(whole_rows, 0);
  EXPECT_GT(cut_rows, 0);
  // The rows kernel: whole rows, a group of lanes each; neither allocates nor
  // fences either.
  {
    SpmvOptions o;
    o.tuning.csr_tiles = 1;
    o.tuning.csr_rows = 1;
    const auto plan = libra::spmv_plan(Exec(), A, o);
    EXPECT_GT(plan.tiles.lanes, 0);
    EXPECT_TRUE(plan.tiles.whole_rows);
    libra::spmv(Exec(), 1.5, A, x, 0.0, y, plan, o);
    Kokkos::fence();
    SpmvStats st;
    libra::test::ToolEvents events;
    libra::spmv(Exec(), 1.5, A, x, 0.0, y, plan, o, &st);
    for (const auto& e : events.stop()) ADD_FAILURE() << "rows: " << e;
    EXPECT_EQ(st.path, SpmvPath::csr_rows);
    EXPECT_TRUE(st.planned);
    expect_oracle(y);
    // Lanes per row forced where the kernel has lanes; nonsense refused.
    o.tuning.csr_row_lanes = 2;
    EXPECT_EQ(libra::spmv_plan(Exec(), A, o).tiles.lanes,
              libra::LaunchTraits<Exec>::is_gpu ? 2 : 1);
    for (int bad : {-1, 3, 64}) {
      o.tuning.csr_row_lanes = bad;
      EXPECT_THROW(libra::spmv_plan(Exec(), A, o), libra::ArgumentError) << bad;
    }
  }
  // Another matrix, even of the same shape, is refused.
  const auto plan = libra::spmv_plan(Exec(), A);
  try {
    libra::spmv(Exec(), 1.0, B, x, 0.0, y, plan);
    ADD_FAILURE() << "a plan of A was taken for B";
  } catch (const libra::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("another matrix"), std::string::npos)
        << e.what();
  }
  // Where products take no tiles (host spaces by default), a plan holds nothing.
  SpmvStats st;
  libra::spmv(Exec(), 1.0, A, x, 0.0, y, plan, {}, &st);
  EXPECT_EQ(plan.tiles.coords.extent(0) > 0, libra::LaunchTraits<Exec>::is_gpu);
  EXPECT_EQ(st.planned, libra::LaunchTraits<Exec>::is_gpu);
}

// Row sums (impl/csr_tiles.hpp): a band, short rows with empty ones (more rows
// than threads in a tile), and a row of 200 nonzeros among short ones. Libra
// sums rows on GPUs where no row is longer than 128 nonzeros; forced, the tiles
// sum any whole rows, and the long row alone takes its thread.
TEST(Spmv, TileRowSums) {
  std::vector<libra::ref::Triplet> band, long_row;
  const std::int64_t n = 2000;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t d = -3; d <= 3; ++d) {
      if (i + d >= 0 && i + d < n) band.emplace_back(i, i + d, 1.0 + ((i + 2 * d) % 5));
    }
    long_row.emplace_back(i, (i * 7) % n, 0.5 + (i % 3));
  }
  for (std::int64_t j = 0; j < 200; ++j) long_row.emplace_back(777, j * 9, -1.0 + j % 4);
  struct Case {
    const char* name;
    libra::ref::Matrix a;
    bool gpu_sums;  // Libra's choice on GPUs
  };
  const std::vector<Case> cases{
      {"band", libra::ref::from_triplets(n, n, band), true},
      {"short rows", libra::ref::random(3000, 500, 2, 41, 0.4), true},
      {"long row", libra::ref::from_triplets(n, n, long_row), false}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto A = libra::test::from_ref<double, int, int, Device>(c.a);
    Kokkos::View<double*, Device> x("x", c.a.cols), y("y", c.a.rows);
    Kokkos::deep_copy(x, 0.25);
    const auto want = libra::ref::spmv(c.a, std::vector<double>(c.a.cols, 0.25));
    for (int sums : {0, 1, -1}) {
      SpmvOptions o;
      o.tuning.csr_tiles = 1;
      o.tuning.csr_rows = -1;
      o.tuning.tile_threads = 4;
      o.tuning.segment_items = 512;  // long tiles: every row whole
      o.tuning.tile_row_sums = sums;
      const auto plan = libra::spmv_plan(Exec(), A, o);
      ASSERT_TRUE(plan.tiles.whole_rows);
      const bool expected =
          sums > 0 || (sums == 0 && libra::LaunchTraits<Exec>::is_gpu && c.gpu_sums);
      EXPECT_EQ(plan.tiles.row_sums, expected) << sums;
      Kokkos::deep_copy(y, 3.0);
      SpmvStats st;
      libra::spmv(Exec(), 2.0, A, x, -1.0, y, plan, o, &st);
      EXPECT_EQ(st.path, SpmvPath::csr_tiles);
      EXPECT_TRUE(st.planned);
      EXPECT_EQ(st.row_sums, expected) << sums;
      const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      for (std::int64_t i = 0; i < c.a.rows; ++i) {
        ASSERT_NEAR(h(i), 2.0 * want[i] - 3.0, 1e-12 * (1 + std::abs(want[i])))
            << i << ", sums " << sums;
      }
    }
  }
}

// The rows kernel (impl/csr_rows.hpp) on short rows, empty rows and hub rows
// of 40, 300 and 2,500 nonzeros, with a plan and without: the team sums rows
// from Libra's length (32 passes of their group), from 1 and 3 nonzeros (more
// such rows than the team's list holds: groups sum the rest) or none; lanes
// Libra's or forced. Libra takes it on GPUs without a plan on paths this
// short, and a call then neither allocates nor waits; a plan keeps the tiles
// here (the hub rows are too long for their groups), sums rows where they
// suit row sums, and takes the rows kernel where they are too long for row
// sums only.
TEST(Spmv, RowsKernelWithTeamRows) {
  const std::int64_t n = 3000, cols = 2600;
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t len = i == 17 ? 2500 : i == 1500 ? 300 : i == 2999 ? 40 : i % 6;
    for (std::int64_t e = 0; e < len; ++e)
      t.emplace_back(i, (i * 13 + e * (len > 100 ? 1 : 7)) % cols, 0.5 + (e % 5));
  }
  const auto a = libra::ref::from_triplets(n, cols, t);
  const auto A = libra::test::from_ref<double, int, int, Device>(a);
  Kokkos::View<double*, Device> x("x", cols), y("y", n);
  Kokkos::deep_copy(x, 0.25);
  const auto want = libra::ref::spmv(a, std::vector<double>(cols, 0.25));
  const auto expect_oracle = [&](const char* what) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    for (std::int64_t i = 0; i < n; ++i) {
      ASSERT_NEAR(h(i), 2.0 * want[i] - 3.0, 1e-12 * (1 + std::abs(want[i])))
          << what << ", row " << i;
    }
  };
  for (int lanes : {0, 1, 8}) {
    for (std::int64_t team : {0, 1, 3, -1}) {
      SCOPED_TRACE("lanes " + std::to_string(lanes) + ", team rows from " +
                   std::to_string(team));
      SpmvOptions o;
      o.tuning.csr_tiles = 1;
      o.tuning.csr_rows = 1;
      o.tuning.csr_row_lanes = lanes;
      o.tuning.csr_row_team_min = team;
      const auto plan = libra::spmv_plan(Exec(), A, o);
      ASSERT_GT(plan.tiles.lanes, 0);
      const std::int64_t team_min =
          team < 0   ? 0
          : team > 0 ? team
                     : 32 * static_cast<std::int64_t>(plan.tiles.lanes);
      EXPECT_EQ(plan.tiles.team_min, team_min);  // the longest row passes every one
      for (bool planned : {false, true}) {
        Kokkos::deep_copy(y, 3.0);
        SpmvStats st;
        if (planned) {
          libra::spmv(Exec(), 2.0, A, x, -1.0, y, plan, o, &st);
        } else {
          libra::spmv(Exec(), 2.0, A, x, -1.0, y, o, &st);
        }
        EXPECT_EQ(st.path, SpmvPath::csr_rows);
        EXPECT_EQ(st.planned, planned);
        EXPECT_FALSE(st.row_sums);
        expect_oracle(planned ? "planned" : "plan-less");
      }
    }
  }
  // Libra's choice: the rows kernel without a plan on GPUs, the tiles on
  // longer paths; a plan keeps the tiles where the longest row is too long
  // for its group.
  SpmvOptions o;
  o.tuning.csr_tiles = 1;
  const auto plan = libra::spmv_plan(Exec(), A, o);
  const bool gpu = libra::LaunchTraits<Exec>::is_gpu;
  EXPECT_EQ(plan.tiles.lanes, 0);
  EXPECT_EQ(plan.tiles.team_min, 0);
  SpmvStats st;
  Kokkos::deep_copy(y, 3.0);
  libra::spmv(Exec(), 2.0, A, x, -1.0, y, o, &st);
  EXPECT_EQ(st.path, gpu ? SpmvPath::csr_rows : SpmvPath::csr_tiles);
  expect_oracle("Libra's choice");
  Kokkos::fence();
  if (gpu) {
    Kokkos::deep_copy(y, 3.0);
    Kokkos::fence();
    libra::test::ToolEvents events;
    libra::spmv(Exec(), 2.0, A, x, -1.0, y, o, &st);
    for (const auto& e : events.stop()) ADD_FAILURE() << "plan-less: " << e;
    expect_oracle("plan-less, again");
  }
  SpmvOptions longer = o;
  longer.tuning.csr_rows_planless_max_path = 1000;
  libra::spmv(Exec(), 2.0, A, x, 0.0, y, longer, &st);
  EXPECT_EQ(st.path, SpmvPath::csr_tiles);
  std::vector<libra::ref::Triplet> band, wide;
  for (std::int64_t i = 0; i < 500; ++i) {
    for (std::int64_t d = 0; d < 7; ++d) band.emplace_back(i, (i + d) % 500, 1.0);
    if (i < 200) {
      for (std::int64_t e = 0; e < 150; ++e) wide.emplace_back(i, (i + 3 * e) % 500, 1.0);
    }
  }
  const auto B = libra::test::from_ref<double, int, int, Device>(
      libra::ref::from_triplets(500, 500, band));
  const auto W = libra::test::from_ref<double, int, int, Device>(
      libra::ref::from_triplets(200, 500, wide));
  const auto band_plan = libra::spmv_plan(Exec(), B, o);
  EXPECT_EQ(band_plan.tiles.row_sums, gpu);
  EXPECT_EQ(band_plan.tiles.lanes, 0);
  const auto wide_plan = libra::spmv_plan(Exec(), W, o);
  EXPECT_FALSE(wide_plan.tiles.row_sums);
  EXPECT_EQ(wide_plan.tiles.lanes > 0, gpu);
  EXPECT_EQ(wide_plan.tiles.team_min, 0);  // 150 nonzeros: 5 passes of 32 lanes
}

TEST(Spmv, CsrMergePathWithKeptCarriesAllocatesNothing) {
  // Blocks of vectors take the merge path, whose carries a caller may keep too
  // (grown for more segments or another K).
  const auto a = libra::ref::random(700, 500, 9, 33, 0.3);
  const auto A = libra::test::from_ref<double, int, int, Device>(a);
  Kokkos::View<double**, Right, Device> X("X", a.cols, 3), Y("Y", a.rows, 3),
      Y2("Y2", a.rows, 3);
  Kokkos::deep_copy(X, 0.25);
  SpmvOptions o = segments(4);  // many segments: carries on cut rows
  o.tuning.csr_whole_rows = -1;
  libra::impl::CsrKept<double, Device::memory_space> kept;
  const auto call = [&](double beta) {
    SpmvPath path;
    const auto n =
        libra::impl::spmv_csr(Exec(), A.row_map, A.col_idx, A.values, A.num_rows, X, Y,
                              1.0, beta, beta, 0, o.tuning, path, &kept);
    EXPECT_EQ(path, SpmvPath::csr_merge_path);
    EXPECT_GT(n, 10);
  };
  call(0.0);
  Kokkos::fence();
  const auto* first = kept.carries.carry.data();
  EXPECT_NE(first, nullptr);
  EXPECT_EQ(kept.carries.carry.extent(1), 3u);
  {
    libra::test::ToolEvents events(libra::test::ToolEvents::allocations);
    call(2.0);
    call(0.0);
    for (const auto& e : events.stop()) ADD_FAILURE() << e;
  }
  Kokkos::fence();
  EXPECT_EQ(kept.carries.carry.data(), first);
  libra::spmv(Exec(), 1.0, A, X, 0.0, Y2, o);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
  const auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y2);
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(h(i, k), h2(i, k), 1e-12) << i << ", " << k;
}

TEST(Spmv, MatrixFiles) {
  const auto files = libra::test::matrix_files(libra::test::matrix_dir());
  ASSERT_GE(files.size(), 6u) << "matrices expected in " << libra::test::matrix_dir();
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    const auto a =
        libra::test::to_ref(libra::io::read_matrix<double, int, int, Device>(f));
    for (Format fm : all_formats) {
      check_format<double, Left, true>(a, fm, 1, 1, 0, {}, 4);
      check_format<double, Right, false>(a, fm, 4, 2, -1, {}, 7);
    }
    check_format<double, Left, true>(a, Format::csr, 1, 1, 1, segments(64));
    SpmvOptions tiles = segments(3);
    tiles.tuning.csr_tiles = 1;
    tiles.tuning.tile_threads = 3;
    check_format<double, Left, true>(a, Format::csr, 1, 1, 1, tiles);
  }
}

}  // namespace spmv_test
