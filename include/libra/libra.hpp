#pragma once
// Umbrella header: everything in Libra's public API.
#include "libra/core/error.hpp"
#include "libra/format/convert.hpp"
#include "libra/format/coo.hpp"
#include "libra/format/csc.hpp"
#include "libra/format/csr.hpp"
#include "libra/format/dense.hpp"
#include "libra/format/ell.hpp"
#include "libra/format/kokkos_interop.hpp"
#include "libra/format/mirror.hpp"
#include "libra/version.hpp"
