#include "matrices.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "libra/core/error.hpp"
#include "libra/generate/banded.hpp"
#include "libra/generate/rmat.hpp"
#include "libra/io/read.hpp"

namespace libra::bench {

namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t rmat_seed = 20240601;  // fixed: every run sees the same graphs

// file name -> kind, from the MANIFEST.tsv of the shared matrices (columns
// "file" and "kind" in its header line); empty when there is none.
std::map<std::string, std::string> read_manifest(const fs::path& dir) {
  std::map<std::string, std::string> kinds;
  std::ifstream in(dir / "MANIFEST.tsv");
  std::string line;
  if (!std::getline(in, line)) return kinds;
  auto split = [](const std::string& s) {
    std::vector<std::string> cells;
    std::stringstream ss(s);
    std::string cell;
    while (std::getline(ss, cell, '\t')) cells.push_back(cell);
    return cells;
  };
  const auto header = split(line);
  const auto file_col = std::find(header.begin(), header.end(), "file") - header.begin();
  const auto kind_col = std::find(header.begin(), header.end(), "kind") - header.begin();
  const auto columns = static_cast<std::ptrdiff_t>(header.size());
  if (file_col == columns || kind_col == columns) return kinds;
  while (std::getline(in, line)) {
    const auto cells = split(line);
    if (static_cast<std::ptrdiff_t>(cells.size()) > std::max(file_col, kind_col)) {
      kinds[cells[file_col]] = cells[kind_col];
    }
  }
  return kinds;
}

MatrixSpec file_spec(const fs::path& path,
                     const std::map<std::string, std::string>& kinds) {
  MatrixSpec s;
  s.name = path.stem().string();
  s.path = path.string();
  const auto k = kinds.find(path.filename().string());
  s.kind = k == kinds.end() ? "file" : k->second;
  return s;
}

template <class T>
T parse_number(const std::string& text, const std::string& spec) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    throw ArgumentError("matrix spec '" + spec + "': '" + text + "' is not a number");
  }
  return value;
}

// "rmat:S:EF" or "rmat:S1-S2:EF".
std::vector<MatrixSpec> rmat_specs(const std::string& spec) {
  const auto second = spec.find(':', 5);
  if (second == std::string::npos) {
    throw ArgumentError("matrix spec '" + spec + "': expected rmat:SCALE:EDGEFACTOR");
  }
  const std::string scales = spec.substr(5, second - 5);
  const std::string ef_text = spec.substr(second + 1);
  const double edge_factor = parse_number<double>(ef_text, spec);
  const auto dash = scales.find('-');
  const int first = parse_number<int>(scales.substr(0, dash), spec);
  const int last = dash == std::string::npos
                       ? first
                       : parse_number<int>(scales.substr(dash + 1), spec);
  std::vector<MatrixSpec> out;
  for (int s = first; s <= last; ++s) {
    MatrixSpec m;
    m.name = "rmat:" + std::to_string(s) + ":" + ef_text;
    m.kind = "rmat";
    m.rmat_scale = s;
    m.rmat_edge_factor = edge_factor;
    out.push_back(m);
  }
  return out;
}

// "band:N:D": an N x N band of D diagonals, (D - 1) / 2 on each side.
MatrixSpec band_spec(const std::string& spec) {
  const auto second = spec.find(':', 5);
  if (second == std::string::npos) {
    throw ArgumentError("matrix spec '" + spec + "': expected band:N:DIAGONALS");
  }
  MatrixSpec m;
  m.band_n = parse_number<long long>(spec.substr(5, second - 5), spec);
  m.band_diagonals = parse_number<int>(spec.substr(second + 1), spec);
  if (m.band_n <= 0 || m.band_diagonals <= 0 || m.band_diagonals % 2 == 0 ||
      m.band_diagonals > 2 * m.band_n - 1) {
    throw ArgumentError("matrix spec '" + spec +
                        "': N must be positive and DIAGONALS odd, at most 2N - 1");
  }
  m.name = spec;
  m.kind = "band";
  return m;
}

}  // namespace

std::vector<MatrixSpec> expand_matrix_specs(const std::vector<std::string>& specs) {
  std::vector<MatrixSpec> out;
  for (const auto& spec : specs) {
    if (spec.rfind("rmat:", 0) == 0) {
      const auto r = rmat_specs(spec);
      out.insert(out.end(), r.begin(), r.end());
      continue;
    }
    if (spec.rfind("band:", 0) == 0) {
      out.push_back(band_spec(spec));
      continue;
    }
    const fs::path path(spec);
    if (fs::is_directory(path)) {
      const auto kinds = read_manifest(path);
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(path)) {
        const auto ext = entry.path().extension();
        if (entry.is_regular_file() && (ext == ".mtx" || ext == ".txt")) {
          files.push_back(entry.path());
        }
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) out.push_back(file_spec(f, kinds));
    } else if (fs::is_regular_file(path)) {
      out.push_back(file_spec(path, read_manifest(path.parent_path())));
    } else {
      throw ArgumentError(
          "matrix spec '" + spec +
          "' is neither a folder, a file, rmat:SCALE:EDGEFACTOR nor band:N:DIAGONALS");
    }
  }
  return out;
}

std::vector<MatrixSpec> benchmark_matrices(const Options& options, const char* benchmark,
                                           const char* default_generated) {
  std::vector<std::string> specs = options.matrices;
  if (specs.empty()) {
    if (fs::is_directory(options.default_matrix_dir)) {
      specs.push_back(options.default_matrix_dir);
    } else {
      std::cerr << benchmark << ": no matrix folder " << options.default_matrix_dir
                << " (give --libra_matrices=...); running generated matrices only\n";
    }
    std::stringstream generated(default_generated);  // comma-separated specs
    for (std::string spec; std::getline(generated, spec, ',');) specs.push_back(spec);
  }
  return expand_matrix_specs(specs);
}

Matrix load_matrix(const MatrixSpec& spec) {
  if (spec.is_band()) {
    const long long half = (spec.band_diagonals - 1) / 2;
    return banded<Scalar, Ordinal, Offset>(Exec(), spec.band_n, spec.band_n, half, half,
                                           rmat_seed);
  }
  if (!spec.is_rmat()) {
    return io::read_matrix<Scalar, Ordinal, Offset, Device>(spec.path);
  }
  RmatOptions options;
  options.scale = spec.rmat_scale;
  options.edge_factor = spec.rmat_edge_factor;
  options.seed = rmat_seed;
  options.values = RmatValues::uniform;
  return rmat<Scalar, Ordinal, Offset>(Exec(), options);
}

}  // namespace libra::bench
