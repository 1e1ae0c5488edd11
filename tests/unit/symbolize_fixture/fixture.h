/* Shared by the fixture's two translation units. */
#ifndef OMPLENS_SYMBOLIZE_FIXTURE_H
#define OMPLENS_SYMBOLIZE_FIXTURE_H

/* Prints one "module" record per loaded object (see fixture.c). */
void fixture_print_modules(void);

#endif
