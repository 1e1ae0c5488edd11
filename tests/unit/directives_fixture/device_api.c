/* Fixture: calls of the device memory API. Each is found at its own line
 * (its events carry the call's own code address), with its arguments as
 * written and what its value is assigned to. */
#include <omp.h>
#include <stddef.h>

typedef struct field {
  double *buf;
  size_t n;
} field;

double *d_global;

void steps(double *h, double *out, field *f, size_t n, int dev, int host)
{
  double *d_table;
  d_table = omp_target_alloc(n * sizeof(double), dev); /* @api_assign */
  double *d_tmp = (double *)omp_target_alloc(n * sizeof(double), dev); /* @api_init */
  omp_target_memcpy(d_table, h, n * sizeof(double), 0, 0, dev, host); /* @api_h2d */
  omp_target_memcpy(out, d_table + 1, (n - 1) * sizeof(double), /* @api_d2h */
                    0, 0, host, dev);
  omp_target_memcpy(f->buf, d_tmp, n * sizeof(double), 0, 0, host, dev); /* @api_member */
  omp_target_associate_ptr(h, d_tmp, n * sizeof(double), 0, dev); /* @api_associate */
  omp_target_disassociate_ptr(h, dev);
  d_global = omp_target_alloc(8, dev); omp_target_free(d_global, dev); /* @api_two */
  omp_target_free(d_tmp, dev); /* @api_free */
  omp_target_free(d_table, dev);
  h[0] = 1.0; /* @api_none */
}
