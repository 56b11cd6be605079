#pragma once
// Moving contiguous Views between ranks by one transport (options.hpp): NCCL on
// the execution space's stream, MPI on the Views' own memory, or MPI on host
// copies. Every View here is contiguous (LayoutRight or rank 1).
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>
#include <type_traits>

#include "libra/dist/comm.hpp"
#include "libra/dist/impl/messages.hpp"
#include "libra/dist/impl/nccl.hpp"
#include "libra/dist/options.hpp"

namespace libra::dist::impl {

// Whether Exec is Kokkos::Cuda, whose stream NCCL can run on. (Not whether
// stream_of is null: the default Cuda instance runs on the legacy stream 0,
// which is null and which NCCL takes like any other.)
template <class Exec>
constexpr bool runs_on_cuda() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same_v<Exec, Kokkos::Cuda>;
#else
  return false;
#endif
}

template <class Exec>
void* stream_of(const Exec& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) return exec.cuda_stream();
#endif
  (void)exec;
  return nullptr;
}

template <class S>
NcclType nccl_type() {
  using Real =
      std::conditional_t<std::is_same_v<S, Kokkos::complex<float>>, float,
                         std::conditional_t<std::is_same_v<S, float>, float, double>>;
  return std::is_same_v<Real, float> ? NcclType::f32 : NcclType::f64;
}
// Elements of the NCCL type per scalar (a complex sums as two reals).
template <class S>
constexpr std::size_t nccl_parts() {
  return std::is_same_v<S, Kokkos::complex<double>> ||
                 std::is_same_v<S, Kokkos::complex<float>>
             ? 2
             : 1;
}

template <class Exec>
class Exchange {
 public:
  Exchange(const Comm& comm, const Exec& exec, Transport transport, Nccl* nccl)
      : comm_(comm), exec_(exec), transport_(transport), nccl_(nccl) {}

  Transport transport() const { return transport_; }

  template <class V>
  void bcast(const V& v, int root) {
    const std::size_t bytes = v.span() * sizeof(typename V::value_type);
    if (transport_ == Transport::nccl) {
      nccl_->bcast(v.data(), bytes, root, stream_of(exec_));
    } else if (transport_ == Transport::mpi) {
      exec_.fence();
      bcast_bytes(comm_, v.data(), bytes, root);
    } else {
      auto h = staging(v);
      if (comm_.rank() == root) Kokkos::deep_copy(exec_, h, v);
      exec_.fence();
      bcast_bytes(comm_, h.data(), bytes, root);
      if (comm_.rank() != root) Kokkos::deep_copy(exec_, v, h);
      exec_.fence();  // the staging buffer is reused by the next call
    }
  }

  template <class V>
  void send(const V& v, int dest, int tag) {
    const std::size_t bytes = v.span() * sizeof(typename V::value_type);
    if (transport_ == Transport::nccl) {
      nccl_->send(v.data(), bytes, dest, stream_of(exec_));
    } else if (transport_ == Transport::mpi) {
      exec_.fence();
      send_bytes(comm_, v.data(), bytes, dest, tag);
    } else {
      auto h = staging(v);
      Kokkos::deep_copy(exec_, h, v);
      exec_.fence();
      send_bytes(comm_, h.data(), bytes, dest, tag);
    }
  }

  template <class V>
  void recv(const V& v, int source, int tag) {
    const std::size_t bytes = v.span() * sizeof(typename V::value_type);
    if (transport_ == Transport::nccl) {
      nccl_->recv(v.data(), bytes, source, stream_of(exec_));
    } else if (transport_ == Transport::mpi) {
      recv_bytes(comm_, v.data(), bytes, source, tag);
    } else {
      auto h = staging(v);
      recv_bytes(comm_, h.data(), bytes, source, tag);
      Kokkos::deep_copy(exec_, v, h);
      exec_.fence();  // the staging buffer is reused by the next call
    }
  }

  // out = sum over ranks of in, on root (out is not touched elsewhere).
  template <class V>
  void reduce_sum(const V& in, const V& out, int root) {
    using S = typename V::non_const_value_type;
    const std::size_t count = in.span();
    if (transport_ == Transport::nccl) {
      nccl_->reduce_sum(in.data(), out.data(), count * nccl_parts<S>(), nccl_type<S>(),
                        root, stream_of(exec_));
    } else if (transport_ == Transport::mpi) {
      exec_.fence();
      impl::reduce_sum(comm_, in.data(), out.data(), count, mpi_type<S>(), root);
    } else {
      auto h = staging(in);
      Kokkos::deep_copy(exec_, h, in);
      exec_.fence();
      using H = Kokkos::View<typename V::non_const_data_type, typename V::array_layout,
                             Kokkos::HostSpace>;
      H sum;
      if (comm_.rank() == root) {
        sum = H(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                   std::string("libra::dist::sum")),
                out.layout());
      }
      impl::reduce_sum(comm_, h.data(), sum.data(), count, mpi_type<S>(), root);
      if (comm_.rank() == root) {
        Kokkos::deep_copy(exec_, out, sum);
        exec_.fence();  // sum dies here
      }
    }
  }

  // out = the sum over ranks of in's block of this rank (in: ranks blocks of
  // out's size, contiguous).
  template <class V>
  void reduce_scatter_sum(const V& in, const V& out) {
    using S = typename V::non_const_value_type;
    const std::size_t count = out.span();
    if (transport_ == Transport::nccl) {
      nccl_->reduce_scatter_sum(in.data(), out.data(), count * nccl_parts<S>(),
                                nccl_type<S>(), stream_of(exec_));
    } else if (transport_ == Transport::mpi) {
      exec_.fence();
      impl::reduce_scatter_sum(comm_, in.data(), out.data(), count, mpi_type<S>());
    } else {
      using H = Kokkos::View<typename V::non_const_data_type, typename V::array_layout,
                             Kokkos::HostSpace>;
      const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in);
      H sum(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                               std::string("libra::dist::sum")),
            out.layout());
      impl::reduce_scatter_sum(comm_, h.data(), sum.data(), count, mpi_type<S>());
      Kokkos::deep_copy(exec_, out, sum);
      exec_.fence();  // sum dies here
    }
  }

  // NCCL runs the sends and receives between these together (a gather).
  void group_start() {
    if (transport_ == Transport::nccl) nccl_->group_start();
  }
  void group_end() {
    if (transport_ == Transport::nccl) nccl_->group_end();
  }

 private:
  // A host View shaped as v (the same View when v is in host memory already),
  // over a buffer kept between calls.
  template <class V>
  auto staging(const V& v) {
    using S = typename V::non_const_value_type;
    using H = Kokkos::View<typename V::non_const_data_type, typename V::array_layout,
                           Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    const std::size_t bytes = v.span() * sizeof(S);
    if (buffer_.extent(0) < bytes) {
      buffer_ = Kokkos::View<char*, Kokkos::HostSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing,
                             std::string("libra::dist::staging")),
          bytes);
    }
    if constexpr (V::rank == 1) {
      return H(reinterpret_cast<S*>(buffer_.data()), v.extent(0));
    } else {
      return H(reinterpret_cast<S*>(buffer_.data()), v.extent(0), v.extent(1));
    }
  }

  const Comm& comm_;
  Exec exec_;
  Transport transport_;
  Nccl* nccl_;
  Kokkos::View<char*, Kokkos::HostSpace> buffer_;
};

}  // namespace libra::dist::impl
