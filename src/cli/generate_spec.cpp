#include "generate_spec.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "libra/generate/banded.hpp"
#include "libra/generate/rmat.hpp"

namespace libra::cli {

namespace {

// Scales up to 30: the tool's R-MAT graphs have int ordinals (2^30 vertices fit).
constexpr int largest_scale = 30;

template <class T>
bool parse_number(const char* begin, const char* end, T& value, bool& out_of_range) {
  const auto r = std::from_chars(begin, end, value);
  out_of_range = r.ec == std::errc::result_out_of_range;
  return begin != end && r.ptr == end && (r.ec == std::errc() || out_of_range);
}

}  // namespace

GenerateSpec parse_generate(const std::string& spec, bool allow_band) {
  const std::string forms = allow_band ? "rmat:SCALE:EDGEFACTOR or band:ROWS:DIAGONALS"
                                       : "rmat:SCALE:EDGEFACTOR";
  const auto usage = [&](const std::string& why) {
    return Failure(exit_usage,
                   "--generate " + spec + ": " + why + " (expected " + forms +
                       ", 0 <= SCALE <= " + std::to_string(largest_scale) +
                       ", EDGEFACTOR > 0" +
                       (allow_band ? ", ROWS >= 1, DIAGONALS odd >= 1)" : ")"));
  };
  GenerateSpec g;
  const bool band = allow_band && spec.compare(0, 5, "band:") == 0;
  const std::string prefix = band ? "band:" : "rmat:";
  const std::size_t colon = spec.find(':', prefix.size());
  if (spec.compare(0, prefix.size(), prefix) != 0 || colon == std::string::npos)
    throw usage("not of the form " + forms);
  const char* a_begin = spec.data() + prefix.size();
  const char* a_end = spec.data() + colon;
  const char* b_begin = a_end + 1;
  const char* b_end = spec.data() + spec.size();
  bool big = false;
  if (band) {
    g.kind = GenerateSpec::Kind::band;
    if (!parse_number(a_begin, a_end, g.rows, big) || big || g.rows < 1)
      throw usage("ROWS '" + std::string(a_begin, a_end) + "' is not a positive integer");
    if (!parse_number(b_begin, b_end, g.diagonals, big) || big || g.diagonals < 1 ||
        g.diagonals % 2 == 0 || g.diagonals > 2 * g.rows - 1)
      throw usage("DIAGONALS '" + std::string(b_begin, b_end) +
                  "' is not an odd count of at most 2 ROWS - 1");
    return g;
  }
  if (!parse_number(a_begin, a_end, g.scale, big))
    throw usage("SCALE '" + std::string(a_begin, a_end) + "' is not an integer");
  if (big || g.scale < 0 || g.scale > largest_scale)
    throw usage("SCALE " + std::string(a_begin, a_end) + " is out of range");
  const auto e = std::from_chars(b_begin, b_end, g.edge_factor);
  if (e.ec != std::errc() || e.ptr != b_end || !std::isfinite(g.edge_factor))
    throw usage("EDGEFACTOR '" + std::string(b_begin, b_end) +
                "' is not a finite number");
  if (!(g.edge_factor > 0)) throw usage("EDGEFACTOR must be positive");
  return g;
}

// R-MAT: about 64 bytes an edge (its coordinates, their sort, the Csr) and 16 a
// vertex; a band: its Csr (12 bytes an entry, 8 a row) twice over.
void check_generate_fits(const std::string& text, const GenerateSpec& g) {
  double needed = 0, entries = 0;
  if (g.kind == GenerateSpec::Kind::rmat) {
    const double vertices = std::ldexp(1.0, g.scale);
    entries = std::round(g.edge_factor * vertices);
    needed = 64 * entries + 16 * vertices;
  } else {
    entries = static_cast<double>(g.rows) * g.diagonals;
    needed = 2 * (12 * entries + 8 * static_cast<double>(g.rows));
  }
  const double free = static_cast<double>(io::impl::free_bytes_of(Space()));
  if (needed > free) {
    char message[256];
    std::snprintf(message, sizeof message,
                  "--generate %s: %.0f %s need about %.1f GiB, more than the %.1f GiB of "
                  "memory free",
                  text.c_str(), entries,
                  g.kind == GenerateSpec::Kind::rmat ? "edges" : "entries",
                  needed / 1073741824.0, free / 1073741824.0);
    throw Failure(exit_usage, message);
  }
}

Matrix<int> generate_matrix(const std::string& text, const GenerateSpec& g) {
  Progress progress("generating " + text);
  try {
    if (g.kind == GenerateSpec::Kind::band) {
      const long long half = (g.diagonals - 1) / 2;
      return banded<double, int, std::size_t>(Space(), g.rows, g.rows, half, half, 1);
    }
    RmatOptions o;
    o.scale = g.scale;
    o.edge_factor = g.edge_factor;
    o.seed = 1;
    return rmat<double, int, std::size_t>(Space(), o);
  } catch (const OverflowError& e) {
    throw Failure(exit_usage, "--generate " + text + ": " + e.what());
  }
}

}  // namespace libra::cli
