#include "libra/spmv/options.hpp"

namespace libra {

const char* to_string(SpmvPath path) noexcept {
  switch (path) {
    case SpmvPath::none:
      return "none";
    case SpmvPath::scale_only:
      return "scale_only";
    case SpmvPath::csr_merge_path:
      return "csr_merge_path";
    case SpmvPath::csr_tiles:
      return "csr_tiles";
    case SpmvPath::csr_rows:
      return "csr_rows";
    case SpmvPath::csc_scatter:
      return "csc_scatter";
    case SpmvPath::csc_private:
      return "csc_private";
    case SpmvPath::coo_runs:
      return "coo_runs";
    case SpmvPath::csc_tiles:
      return "csc_tiles";
    case SpmvPath::coo_tiles:
      return "coo_tiles";
    case SpmvPath::ell_rows:
      return "ell_rows";
    case SpmvPath::diagonal_rows:
      return "diagonal_rows";
    case SpmvPath::compact_diagonal_rows:
      return "compact_diagonal_rows";
    case SpmvPath::ell_rows_tail:
      return "ell_rows_tail";
  }
  return "?";
}

}  // namespace libra
