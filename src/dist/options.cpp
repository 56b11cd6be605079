#include "libra/dist/options.hpp"

namespace libra::dist {

const char* to_string(Version v) noexcept {
  switch (v) {
    case Version::baseline:
      return "baseline";
    case Version::p:
      return "p";
    case Version::p_opt:
      return "p-opt";
  }
  return "?";
}

const char* to_string(PartFormat f) noexcept {
  switch (f) {
    case PartFormat::csr:
      return "csr";
    case PartFormat::csc:
      return "csc";
    case PartFormat::coo:
      return "coo";
  }
  return "?";
}

const char* to_string(Transport t) noexcept {
  switch (t) {
    case Transport::automatic:
      return "automatic";
    case Transport::host:
      return "host";
    case Transport::mpi:
      return "mpi";
    case Transport::nccl:
      return "nccl";
  }
  return "?";
}

const char* to_string(PieceMoves m) noexcept {
  switch (m) {
    case PieceMoves::automatic:
      return "automatic";
    case PieceMoves::transport:
      return "transport";
    case PieceMoves::copy_engines:
      return "copy-engines";
  }
  return "?";
}

const char* to_string(ColumnMoves m) noexcept {
  switch (m) {
    case ColumnMoves::automatic:
      return "automatic";
    case ColumnMoves::slices:
      return "slices";
    case ColumnMoves::reduce_scatter:
      return "reduce-scatter";
  }
  return "?";
}

const char* to_string(Balance b) noexcept {
  switch (b) {
    case Balance::nonzeros:
      return "nonzeros";
    case Balance::merge_path:
      return "merge-path";
  }
  return "?";
}

}  // namespace libra::dist
