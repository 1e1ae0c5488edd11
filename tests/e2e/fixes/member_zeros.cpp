// member_zeros.cpp: a solver class whose method maps two member arrays by
// their bare names (`map(to: residual[0:n])`, AMD's C++ Jacobi), one of
// them zeros. The fixer reads no member's declaration: the reason says
// the item is a member, not that the build's flags are missing.
#include <cstdio>
#include <cstdlib>

class Relaxation {
  double *field, *residual;
  int n;

public:
  explicit Relaxation(int size) : n(size)
  {
    field = static_cast<double *>(malloc(n * sizeof(double)));
    residual = static_cast<double *>(calloc(n, sizeof(double)));
    for (int i = 0; i < n; ++i)
      field[i] = 1.0 + i % 7;
  }
  ~Relaxation()
  {
    free(field);
    free(residual);
  }
  double sweep(int steps)
  {
    const int size = n;
#pragma omp target enter data map(to: field[0:size], residual[0:size])
    double *f = field, *r = residual;
    for (int s = 0; s < steps; ++s) {
#pragma omp target teams distribute parallel for
      for (int i = 0; i < size; ++i) {
        r[i] += 0.5 * f[i];
        f[i] -= 0.25 * r[i];
      }
    }
#pragma omp target exit data map(from: field[0:size]) map(release: residual[0:size])
    double sum = 0;
    for (int i = 0; i < size; ++i)
      sum += field[i];
    return sum;
  }
};

int main()
{
  Relaxation a(1 << 14), b(1 << 14);
  std::printf("member_zeros: %.3f\n", a.sweep(3) + b.sweep(3));
  return 0;
}
