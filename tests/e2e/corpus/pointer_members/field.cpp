#include "field.hpp"

#include <cstdlib>

Field::Field(int n_) : n(n_), steps_done(0) {
  u = static_cast<double *>(std::malloc(n * sizeof(double)));
  rhs = static_cast<double *>(std::malloc(n * sizeof(double)));
  history = static_cast<double *>(std::malloc(n * sizeof(double)));
  for (int i = 0; i < n; i++) {
    u[i] = i * 0.001;
    rhs[i] = (i % 11) * 0.125;
    history[i] = -1.0; /* not yet recorded */
  }
#pragma omp target enter data map(to: this[0:1])
#pragma omp target enter data map(to: u[0:n], rhs[0:n], history[0:n])
}

Field::~Field() {
#pragma omp target exit data map(delete: u[0:n], rhs[0:n], history[0:n])
#pragma omp target exit data map(delete: this[0:1])
  std::free(u);
  std::free(rhs);
  std::free(history);
}

void Field::relax(int steps) {
  for (int s = 0; s < steps; s++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
      u[i] = 0.5 * (u[i] + rhs[i]);
#pragma omp target update from(u[0:n])
    history[steps_done++] = sum();
  }
}

double Field::sum() const {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += u[i];
  return s;
}
