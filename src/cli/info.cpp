// `libra info FILE`: what the file says about itself and the statistics of the
// matrix it holds (libra::describe).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common.hpp"
#include "info_topology.hpp"
#include "libra/analysis/matrix_stats.hpp"
#include "libra/format/diagonal.hpp"

namespace libra::cli {

namespace {

struct InfoArgs {
  std::string file;
  bool json = false;
  bool topology = false;
  InputOptions input;
};

const char* layout_name(const io::FileInfo& info) {
  if (info.format == io::FileFormat::snap) {
    return info.shape_declared ? "edge list (shape from its libra header)" : "edge list";
  }
  return info.dense_array ? "Matrix Market array" : "Matrix Market coordinate";
}

nlohmann::ordered_json degrees_json(const DegreeStats& d) {
  return {{"min", d.min}, {"mean", d.mean}, {"max", d.max}};
}

template <class T>
nlohmann::ordered_json or_null(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

void print_json(const std::string& file, const io::FileInfo& info, const MatrixStats& s) {
  nlohmann::ordered_json j;
  j["file"] = file;
  j["format"] = format_name(info.format);
  j["dense_array"] = info.dense_array;
  j["field"] = field_name(info.field);
  j["symmetry"] = symmetry_name(info.symmetry);
  j["rows"] = s.rows;
  j["cols"] = s.cols;
  j["nnz"] = s.nnz;
  j["stored_entries"] = info.stored_entries;
  j["row_degree"] = degrees_json(s.row_degree);
  j["col_degree"] = degrees_json(s.col_degree);
  j["powerlaw_r"] = std::isnan(s.powerlaw_r) ? nlohmann::ordered_json(nullptr)
                                             : nlohmann::ordered_json(s.powerlaw_r);
  j["kl"] = s.kl;
  j["ku"] = s.ku;
  j["diagonals"] = s.diagonals;
  j["diagonal_values"] = s.diagonal_values;
  j["compact_diagonal_values"] = or_null(s.compact_diagonal_values);
  j["product_kind"] = to_string(s.product_kind);
  j["products_aa"] = or_null(s.products);
  j["flops_aa"] = or_null(s.flops);
  std::cout << j.dump(2) << '\n';
}

// What diagonal storage would hold, per entry, and whether Libra's conversions
// take the matrix (DiagonalOptions::max_fill's default: 4 x max(nnz, rows, cols)).
std::string diagonal_storage(const MatrixStats& s) {
  const double base = static_cast<double>(std::max<std::uint64_t>(
      s.nnz, static_cast<std::uint64_t>(std::max(s.rows, s.cols))));
  const DiagonalOptions defaults;
  const auto one = [&](const char* name, std::uint64_t values) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s %llu values (%.2f per entry)", name,
                  static_cast<unsigned long long>(values),
                  s.nnz ? static_cast<double>(values) / static_cast<double>(s.nnz) : 0.0);
    const bool fits = static_cast<double>(values) <= defaults.max_fill * base;
    return std::string(buf) + (fits ? "" : ", refused");
  };
  std::string text = one("HM", s.diagonal_values);
  text += s.compact_diagonal_values ? "; " + one("CDM", *s.compact_diagonal_values)
                                    : std::string("; CDM needs a square matrix");
  return text;
}

std::string count_or_overflow(const std::optional<std::uint64_t>& v) {
  return v ? std::to_string(*v) : std::string("more than 2^64 - 1");
}

void print_text(const std::string& file, const io::FileInfo& info, const MatrixStats& s) {
  const auto degrees = [](const DegreeStats& d) {
    char line[128];
    std::snprintf(line, sizeof line, "min %llu, mean %.4g, max %llu",
                  static_cast<unsigned long long>(d.min), d.mean,
                  static_cast<unsigned long long>(d.max));
    return std::string(line);
  };
  char r[64];
  if (std::isnan(s.powerlaw_r)) {
    std::snprintf(r, sizeof r, "undefined (no column has an entry)");
  } else {
    std::snprintf(r, sizeof r, "%.4f", s.powerlaw_r);
  }
  const std::string kind = to_string(s.product_kind);
  const auto row = [](const std::string& label, const auto& value) {
    std::cout << std::left << std::setw(18) << label << value << '\n';
  };
  row("file", file);
  row("format", layout_name(info));
  row("field", field_name(info.field));
  row("symmetry", symmetry_name(info.symmetry));
  row("rows", s.rows);
  row("cols", s.cols);
  row("nnz", s.nnz);
  row("stored entries", info.stored_entries);
  row("row degree", degrees(s.row_degree));
  row("column degree", degrees(s.col_degree));
  row("power-law R", std::isnan(s.powerlaw_r)
                         ? std::string(r)
                         : std::string(r) + " (column degrees, discrete MLE, k_min = 1)");
  row("bandwidth", "kl " + std::to_string(s.kl) + ", ku " + std::to_string(s.ku));
  row("diagonals", std::to_string(s.diagonals) + " non-empty");
  row("diagonal storage", diagonal_storage(s));
  row(kind + " products", count_or_overflow(s.products));
  row(kind + " flops", count_or_overflow(s.flops));
}

template <class CsrMatrix>
int report(const InfoArgs& args, const CsrMatrix& A, const io::FileInfo& info) {
  MatrixStats stats;
  {
    Progress progress("analysing " + args.file);
    stats = describe(Space(), A);
  }
  if (args.json) {
    print_json(args.file, info, stats);
  } else {
    print_text(args.file, info, stats);
  }
  return exit_ok;
}

int run_info(const InfoArgs& args) {
  if (args.topology) return print_topology(args.json);
  if (args.file.empty()) throw Failure(exit_usage, "info: give a FILE, or --topology");
  return visit_matrix(
      args.file, read_options(args.input),
      [&](const auto& A, const auto& info) { return report(args, A, info); });
}

}  // namespace

Command add_info_command(CLI::App& parent) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* app = parent.add_subcommand(
      "info", "Print the shape, degrees, bandwidth, diagonals and A*A work of a matrix");
  CLI::Option* file =
      app->add_option("FILE", args->file, "Matrix Market file (.mtx, .mm) or edge list");
  app->add_flag("--topology", args->topology,
                "Print this machine instead: NUMA domains, processing units, GPUs and "
                "the domain each GPU is attached to (hwloc)")
      ->excludes(file);
  app->add_flag("--json", args->json, "Print one JSON object instead of text");
  add_input_options(*app, args->input);
  app->footer(
      "nnz counts the entries of the whole matrix (symmetric halves expanded, "
      "duplicates\n"
      "summed); stored entries are the lines of the file. An edge list keeps its node\n"
      "ids: rows = cols = largest id + 1, unless a '# libra: ROWS x COLS' header says.\n"
      "kl = max(i - j), ku = max(j - i) over the entries, at least 0.\n"
      "Products and flops (= 2 x products) are those of A*A, or of A*A^T when A is\n"
      "not square.\n"
      "R is the exponent of the column-degree distribution P(k) ~ k^-R, estimated by\n"
      "the discrete maximum-likelihood approximation of Clauset, Shalizi & Newman\n"
      "(2009, eq. 3.7) over the columns with k >= k_min = 1:\n"
      "  R = 1 + n / sum ln(k_i / (k_min - 0.5)).");
  return {app, [args] {
            return run_info(*args);
          }};
}

}  // namespace libra::cli
