// `libra convert IN OUT`: rewrites a matrix between Matrix Market and edge lists.
#include <memory>
#include <string>

#include "common.hpp"

namespace libra::cli {

namespace {

struct ConvertArgs {
  std::string in;
  OutputOptions out;
  InputOptions input;
};

int run_convert(const ConvertArgs& args) {
  Output out = open_output(args.out);  // before reading: an unwritable OUT fails first
  return visit_matrix(args.in, read_options(args.input),
                      [&](const auto& A, const io::FileInfo& info) {
                        // A pattern stays a pattern: it has no values to keep.
                        write_output(out, A, info.field == io::Field::pattern);
                        return exit_ok;
                      });
}

}  // namespace

Command add_convert_command(CLI::App& parent) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* app = parent.add_subcommand(
      "convert", "Rewrite a matrix between Matrix Market files and edge lists");
  app->add_option("IN", args->in, "Matrix Market file (.mtx, .mm) or edge list")
      ->required();
  app->add_option("OUT", args->out.path, "File to write, or - for stdout")
      ->required()
      ->check(CLI::Validator(non_empty_name, "FILE"));
  // Also the former names mm and snap, which scripts may still use.
  app->add_option("--to", args->out.to,
                  "Output format whatever OUT's name says (mtx: Matrix Market, edges: "
                  "edge list)")
      ->check(CLI::IsMember({"mtx", "edges", "mm", "snap"}))
      ->transform([](std::string to) {
        return to == "mm" ? "mtx" : to == "snap" ? "edges" : to;
      });
  add_input_options(*app, args->input);
  app->footer(std::string(output_help) +
              "\nMatrix Market output is 'coordinate real general' (pattern when IN has "
              "no values),\nvalues at full precision (17 significant digits), symmetric "
              "inputs written out in full.");
  return {app, [args] {
            return run_convert(*args);
          }};
}

}  // namespace libra::cli
