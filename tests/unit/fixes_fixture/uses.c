/* Fixture of test_fixes: uses of a pointer, one per marked line. */
void consume(double *p);

void uses(double *p, double *q, int n)
{
  double x = 0.0;
  for (int i = 0; i < n; i++) { /* @LOOP */
    p[i] = 1.0;                 /* @WRITE */
    x += p[i];                  /* @READ */
  }
  double *r = p;                /* @COPIED */
  p = q;                        /* @ASSIGNED */
  consume(p);                   /* @ESCAPE */
  if (p)                        /* @VALUE */
    *(p + 1) = x;               /* @DEREF_WRITE */
  (void)r;
}
