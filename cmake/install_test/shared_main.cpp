// A program that uses Libra only through a shared library of its own: it links
// neither Libra nor Kokkos itself.
#include "shared_consumer.hpp"

int main(int argc, char* argv[]) {
  return libra_shared_consumer_run(argc, argv);
}
