/* Fixture: found only through the -I of compile_commands.json. */
typedef double real_t;

static inline real_t scale_of(real_t x)
{
  return 2.0 * x;
}
