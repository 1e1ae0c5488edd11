// template_fill: a weighted sum in a function template, instantiated for
// float and double. Each call makes new weights with the one value the
// source assigns (w[i] = 1), kept until the end, and maps them with its
// input: the weights' bytes differ between the instantiations (four and
// eight a value), and the third call sends the first's again from another
// buffer. The device can fill them itself, whatever the type.
#include <cstdio>

template <typename T>
static double weighted(const T *x, T *w, int n) {
  for (int i = 0; i < n; i++)
    w[i] = 1;
  double sum = 0.0;
#pragma omp target data map(to: x[0:n], w[0:n])
  {
#pragma omp target teams distribute parallel for reduction(+: sum)
    for (int i = 0; i < n; i++)
      sum += x[i] * w[i];
  }
  return sum;
}

int main() {
  const int n = 4096;
  float *xf = new float[n];
  double *xd = new double[n];
  for (int i = 0; i < n; i++) {
    xf[i] = (float)(i % 3);
    xd[i] = (double)(i % 5);
  }
  float *w1 = new float[n], *w3 = new float[n];
  double *w2 = new double[n];
  double s = weighted(xf, w1, n) + weighted(xd, w2, n) + weighted(xf, w3, n);
  delete[] w1;
  delete[] w2;
  delete[] w3;
  std::printf("template_fill: %.1f\n", s);
  delete[] xf;
  delete[] xd;
  return 0;
}
