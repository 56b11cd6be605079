// `libra simrank G`: SimRank similarities of a graph's nodes (libra::simrank).
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common.hpp"
#include "libra/apps/simrank.hpp"

namespace libra::cli {

namespace {

struct SimrankArgs {
  std::string file;
  OutputOptions out;
  SimrankOptions options;
  bool json = false;
  InputOptions input;
};

template <class M>
int run(const SimrankArgs& args, Output& out, const M& W) {
  if (W.num_rows != W.num_cols) {
    throw Failure(exit_bad_input,
                  args.file + ": SimRank needs a square adjacency matrix, got " +
                      std::to_string(W.num_rows) + " x " + std::to_string(W.num_cols));
  }
  SimrankOptions options = args.options;
  Progress progress("simrank");
  options.progress = [&progress](int done, int total) {
    progress.update(done, total);
  };
  SimrankResult<M> r;
  try {
    r = simrank(Space(), W, options);
  } catch (const ArgumentError& e) {
    throw Failure(exit_usage, e.what());
  }
  progress.finish();

  std::uint64_t products = 0;
  for (const auto& it : r.iterations) products += it.products;
  std::FILE* report = report_stream(out);
  if (args.json) {
    nlohmann::ordered_json j;
    j["file"] = args.file;
    j["nodes"] = W.num_rows;
    j["edges"] = W.nnz();
    j["decay"] = options.decay;
    j["iterations"] = options.iterations;
    j["threshold"] = options.threshold;
    j["nnz_s"] = r.similarity.nnz();
    j["products"] = products;
    j["seconds"] = r.seconds;
    j["peak_resident_bytes"] = peak_resident_bytes();
    auto& per = j["per_iteration"] = nlohmann::ordered_json::array();
    for (const auto& it : r.iterations) {
      per.push_back({{"nnz", it.nnz},
                     {"pruned", it.pruned},
                     {"products", it.products},
                     {"seconds", it.seconds}});
    }
    j["execution_space"] = Space::name();
    std::fprintf(report, "%s\n", j.dump(2).c_str());
  } else {
    std::fprintf(report,
                 "SimRank of %s on %s: %lld nodes, %llu edges, c = %g, %d iterations, "
                 "threshold %g\n",
                 args.file.c_str(), Space::name(), static_cast<long long>(W.num_rows),
                 static_cast<unsigned long long>(W.nnz()), options.decay,
                 options.iterations, options.threshold);
    for (std::size_t k = 0; k < r.iterations.size(); ++k) {
      const auto& it = r.iterations[k];
      std::fprintf(report,
                   "  iteration %zu: nnz(S) %llu (pruned %llu), %llu products, %.3f ms\n",
                   k + 1, static_cast<unsigned long long>(it.nnz),
                   static_cast<unsigned long long>(it.pruned),
                   static_cast<unsigned long long>(it.products), it.seconds * 1e3);
    }
    std::fprintf(report, "nnz(S) %llu, %.3f ms in all\n",
                 static_cast<unsigned long long>(r.similarity.nnz()), r.seconds * 1e3);
  }
  std::fflush(report);
  write_output(out, r.similarity);
  return exit_ok;
}

}  // namespace

Command add_simrank_command(CLI::App& parent) {
  auto args = std::make_shared<SimrankArgs>();
  CLI::App* app = parent.add_subcommand(
      "simrank", "SimRank similarities of a graph: S = c Wn^T S Wn + (1 - c) I");
  app->add_option("G", args->file, "Graph: Matrix Market file (.mtx, .mm) or edge list")
      ->required();
  app->add_option("--decay", args->options.decay, "Decay factor c, in (0, 1)")
      ->default_val(0.8);
  app->add_option("--iterations", args->options.iterations, "Iterations (>= 0)")
      ->default_val(5);
  app->add_option("--threshold", args->options.threshold,
                  "Drop entries below this after each iteration (0: keep all)")
      ->default_val(1e-4);
  add_output_options(*app, args->out, "Write S here (see Outputs below)");
  app->add_flag("--json", args->json, "Print one JSON object instead of text");
  add_input_options(*app, args->input);
  app->footer(
      "Wn is the graph's adjacency matrix with each column divided by its sum (a node\n"
      "without in-edges keeps a zero column); S_0 = I. Each iteration is two sparse\n"
      "products (libra::spgemm, algorithm auto), T = Wn^T S_k and\n"
      "S_{k+1} = c T Wn + (1 - c) I.\n" +
      std::string(output_help));
  return {app, [args] {
            Output out = open_output(args->out);  // before any work
            return visit_matrix(
                args->file, read_options(args->input),
                [&](const auto& W, const auto&) { return run(*args, out, W); });
          }};
}

}  // namespace libra::cli
