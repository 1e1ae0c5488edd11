/* One enter data maps a particle state, three force accumulators that
 * start at zero and a log that only the host writes (minifmm's dtt: its
 * accelerations and its multipole lists). The second and third
 * accumulators send the zeros the device already received for the first:
 * made on the device instead. No kernel is given the log: its item goes.
 * Both changes rewrite the one map clause: they are made as one. */
#include <stdio.h>
#include <stdlib.h>

#define N 8192
#define STEPS 3

int main(void) {
  double *pos = malloc(N * sizeof *pos);
  double *fx = calloc(N, sizeof *fx), *fy = calloc(N, sizeof *fy), *fz = calloc(N, sizeof *fz);
  double *log = malloc(STEPS * sizeof *log);
  if (!pos || !fx || !fy || !fz || !log)
    return 1;
  for (int i = 0; i < N; i++)
    pos[i] = (i % 13) * 0.5;
  for (int s = 0; s < STEPS; s++)
    log[s] = -1.0;
#pragma omp target enter data map(to: pos[0:N], fx[0:N], fy[0:N], fz[0:N], log[0:STEPS])
  for (int s = 0; s < STEPS; s++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++) {
      fx[i] += 0.5 * pos[i];
      fy[i] -= 0.25 * pos[i];
      fz[i] += pos[i] * pos[i];
    }
    log[s] = s * 1.5; /* the host's record of the step */
  }
#pragma omp target exit data map(from: fx[0:N], fy[0:N], fz[0:N]) map(delete: pos[0:N], log[0:STEPS])
  double sx = 0.0, sy = 0.0, sz = 0.0;
  for (int i = 0; i < N; i++) {
    sx += fx[i];
    sy += fy[i];
    sz += fz[i];
  }
  printf("force %.3f %.3f %.3f last step %.1f\n", sx, sy, sz, log[STEPS - 1]);
  free(pos);
  free(fx);
  free(fy);
  free(fz);
  free(log);
  return 0;
}
