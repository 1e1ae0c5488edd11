// A renderer called once per frame maps the scene's plane, which it takes
// by reference to const, with the image in a data region of its own, and
// its kernel passes the plane's address to a function taking a pointer to
// const, as aobench does. Nothing can change the plane through that
// reference: the region goes around the frame loop, with the plane in it.
#include <cstdio>
#include <cstdlib>

struct Plane {
  double p[3];
  double n[3];
};

static double shade(const Plane *pl, double x) {
  return pl->p[0] * x + pl->n[1] - pl->p[2];
}

static void render(double *img, int n, const Plane &plane, int frame) {
#pragma omp target data map(from: img[0:n]) map(to: plane)
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
      img[i] = shade(&plane, i * 0.5) + frame;
  }
}

int main() {
  const int n = 4096;
  Plane plane = {{0.5, 0.0, 0.25}, {0.0, 1.0, 0.0}};
  double *img = static_cast<double *>(std::malloc(n * sizeof *img));
  if (!img)
    return 1;
  double total = 0.0;
  for (int frame = 0; frame < 6; frame++) {
    render(img, n, plane, frame);
    total += img[frame];
  }
  std::printf("%.3f %.3f\n", total, img[n - 1]);
  std::free(img);
  return 0;
}
