// Totals of a field summed on the device each step into two scalars the
// host resets just before the kernel, one after the other (`mass = 0;
// te = 0;`). The kernel's own map sends the resets, so the fix stays
// manual, and its reason names the reset of each scalar, also the one
// behind the other's.
#include <cstdio>

static const int N = 4096;
static double state[N];

static void totals(double &mass, double &te) {
  mass = 0;
  te = 0;
#pragma omp target map(to: state[0:N]) map(tofrom: mass, te)
  {
#pragma omp teams distribute parallel for reduction(+: mass, te)
    for (int i = 0; i < N; i++) {
      mass += state[i];
      te += state[i] * state[i];
    }
  }
}

int main() {
  for (int i = 0; i < N; i++)
    state[i] = (i % 7) * 0.5;
  double mass = 0, te = 0, seen = 0;
  for (int step = 0; step < 6; step++) {
    for (int i = 0; i < N; i++)
      state[i] += 0.25;
    totals(mass, te);
    seen += mass + 1e-6 * te;
  }
  std::printf("%.3f\n", seen);
  return 0;
}
