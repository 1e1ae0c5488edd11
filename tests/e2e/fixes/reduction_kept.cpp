// reduction_kept.cpp: a dot product repeated in a timing loop, in a
// function template instantiated for float and double: one directive of
// the source is two in the program, each with its findings. The result is
// a scalar the host resets before each kernel, which maps it `tofrom`
// with a reduction. The wrap can keep only its allocation (the host
// changes it between iterations, so the kernel still copies it, with
// `always`): the wrap maps it `alloc`, never `tofrom` (which would add a
// copy in and out around the loop), however many findings the item has.
#include <cstdio>

#define N 8192
#define REPEAT 10

template <typename T>
static T dot(int repeat)
{
  static T a[N], b[N];
  T dst = 0;
  for (int i = 0; i < N; i++) {
    a[i] = (T)(i % 7);
    b[i] = (T)0.5;
  }
#pragma omp target data map(to: a, b)
  {
    for (int r = 0; r < repeat; r++) {
      dst = 0;
#pragma omp target teams distribute parallel for map(tofrom: dst) reduction(+: dst)
      for (int i = 0; i < N; i++)
        dst += a[i] * b[i];
    }
  }
  return dst;
}

int main()
{
  std::printf("reduction_kept: %.1f %.1f\n", (double)dot<float>(REPEAT), dot<double>(REPEAT));
  return 0;
}
