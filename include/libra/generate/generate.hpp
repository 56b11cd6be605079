#pragma once
// All of Libra's matrix generators.
#include "libra/generate/banded.hpp"
#include "libra/generate/diagonals.hpp"
#include "libra/generate/rmat.hpp"
#include "libra/generate/uniform.hpp"
