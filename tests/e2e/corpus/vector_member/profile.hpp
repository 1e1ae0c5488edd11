#ifndef PROFILE_HPP
#define PROFILE_HPP

#include <cstddef>
#include <vector>

/* A damping profile the kernels read on the device. The object owns the
 * host vector and its device copy: mapped when built, unmapped when
 * destroyed; push() refreshes the device copy from the host. */
class DampingProfile {
public:
  explicit DampingProfile(std::size_t n) : v_(n) {
    for (std::size_t i = 0; i < n; i++)
      v_[i] = 1.0 - 0.5 / static_cast<double>(1 + i % 64);
    double *p = v_.data();
    std::size_t len = v_.size();
#pragma omp target enter data map(to: p[0:len])
  }
  ~DampingProfile() {
    double *p = v_.data();
    std::size_t len = v_.size();
#pragma omp target exit data map(delete: p[0:len])
  }
  DampingProfile(const DampingProfile &) = delete;
  DampingProfile &operator=(const DampingProfile &) = delete;

  /* Sends the host's values to the device copy. */
  void push() {
    double *p = v_.data();
    std::size_t len = v_.size();
#pragma omp target update to(p[0:len])
  }

  /* u[i] *= profile[i] on the device; u must be mapped by the caller. */
  void apply(double *u) const {
    const double *p = v_.data();
    std::size_t len = v_.size();
#pragma omp target teams distribute parallel for map(to: p[0:len]) map(tofrom: u[0:len])
    for (std::size_t i = 0; i < len; i++)
      u[i] *= p[i];
  }

  std::size_t size() const { return v_.size(); }

private:
  std::vector<double> v_;
};

#endif
