#ifndef MIRROR_HPP
#define MIRROR_HPP

#include <cstddef>

/* Keeps a read-only host array on the device while the object lives
 * (RAII over unstructured data mapping). */
class DeviceMirror {
public:
  DeviceMirror(const double *host, std::size_t n) : host_(host), n_(n) {
    const double *p = host_;
    std::size_t len = n_;
#pragma omp target enter data map(to: p[0:len])
  }
  ~DeviceMirror() {
    const double *p = host_;
    std::size_t len = n_;
#pragma omp target exit data map(release: p[0:len])
  }
  DeviceMirror(const DeviceMirror &) = delete;
  DeviceMirror &operator=(const DeviceMirror &) = delete;

  /* out[i] += scale * host[i], reading the device copy. */
  void scale_into(double *out, double scale) const {
    const double *p = host_;
    std::size_t len = n_;
#pragma omp target teams distribute parallel for map(to: p[0:len]) map(tofrom: out[0:len])
    for (std::size_t i = 0; i < len; i++)
      out[i] += scale * p[i];
  }

private:
  const double *host_;
  std::size_t n_;
};

#endif
