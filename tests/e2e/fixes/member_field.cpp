// member_field.cpp: a class whose constructor maps its two arrays with
// `target enter data map(alloc: re[0:n], im[0:n])` (members, named without
// `this->`) and whose destructor deletes them, made anew in each step of a
// loop, on storage the caller lends it (the same blocks each step, as a
// pool or malloc's reuse gives them; ASan's allocator would not). The
// runtime names the items `this->re[0:n]`: they must match the directive's
// `re[0:n]`. Mapping the arrays attaches their pointers: the runtime's
// 8-byte copies into the device's copy of the object, which no map item
// names and which must be told as such, not as the program's data sent
// again.
#include <cstdio>

#define N 4096
#define STEPS 6

class Field {
public:
  int n;
  double *re, *im;
  Field(int n_, double *re_, double *im_) : n(n_), re(re_), im(im_)
  {
#pragma omp target enter data map(alloc: re[0:n], im[0:n])
  }
  ~Field()
  {
#pragma omp target exit data map(delete: re[0:n], im[0:n])
  }
  void fill(double v)
  {
    double *r = re, *i = im;
    int m = n;
#pragma omp target teams distribute parallel for
    for (int k = 0; k < m; k++) {
      r[k] = v;
      i[k] = -v;
    }
  }
  double sum()
  {
    double *r = re;
    int m = n;
    double s = 0;
#pragma omp target teams distribute parallel for reduction(+: s) map(tofrom: s)
    for (int k = 0; k < m; k++)
      s += r[k];
    return s;
  }
};

static double re_store[N], im_store[N];

int main()
{
  double total = 0;
  for (int step = 0; step < STEPS; step++) {
    Field f(N, re_store, im_store);
    f.fill(step);
    total += f.sum();
  }
  std::printf("member_field: %.1f\n", total);
  return 0;
}
