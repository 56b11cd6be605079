// `libra convert IN OUT`: rewrites a matrix between Matrix Market and SNAP.
#include <memory>
#include <string>

#include "common.hpp"
#include "libra/io/write.hpp"

namespace libra::cli {

namespace {

struct ConvertArgs {
  std::string in;
  std::string out;
  std::string to;  // "mm", "snap", or empty: from OUT's extension
  bool one_based = false;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

io::FileFormat output_format(const ConvertArgs& args) {
  if (args.to == "mm") return io::FileFormat::matrix_market;
  if (args.to == "snap") return io::FileFormat::snap;
  return ends_with(args.out, ".mtx") ? io::FileFormat::matrix_market
                                     : io::FileFormat::snap;
}

template <class CsrMatrix>
int write(const ConvertArgs& args, const CsrMatrix& A, const io::FileInfo& info) {
  io::WriteOptions options;
  options.pattern = info.field == io::Field::pattern;  // no values to keep
  try {
    Progress progress("writing " + args.out);
    io::write_matrix(args.out, A, output_format(args), options);
  } catch (const std::exception& e) {
    // The writer removed its temporary: nothing is left behind.
    throw Failure(exit_failure, e.what());
  }
  return exit_ok;
}

int run_convert(const ConvertArgs& args) {
  return visit_matrix(
      args.in, read_options(args.one_based),
      [&](const auto& A, const auto& info) { return write(args, A, info); });
}

}  // namespace

Command add_convert_command(CLI::App& parent) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* app = parent.add_subcommand(
      "convert", "Rewrite a matrix between Matrix Market and SNAP edge-list files");
  app->add_option("IN", args->in, "Matrix Market file, or SNAP edge list")->required();
  app->add_option("OUT", args->out, "File to write (replaced only once complete)")
      ->required();
  app->add_option("--to", args->to,
                  "Output format (default: mm when OUT ends in .mtx, else snap)")
      ->check(CLI::IsMember({"mm", "snap"}));
  app->add_flag("--one-based", args->one_based, "SNAP node ids in IN start at 1");
  app->footer(
      "Matrix Market output is 'coordinate real general' (pattern when IN has no "
      "values),\n"
      "values at full precision (17 significant digits), symmetric inputs written out "
      "in\n"
      "full. SNAP output is one 0-based 'i j' line per entry, without values; reading "
      "it\n"
      "back gives rows = cols = largest index + 1.");
  return {app, [args] {
            return run_convert(*args);
          }};
}

}  // namespace libra::cli
