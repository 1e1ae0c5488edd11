/* libclang's parses in helper processes (annotate/libclang_dl.h): the
 * hidden command a helper runs, and the switch that makes a report's
 * parses run in helpers. */
#ifndef OMPLENS_PARSE_HELPER_H
#define OMPLENS_PARSE_HELPER_H

/* argv[1] of a helper: not a command for users, not in --help. */
#define OMPLENS_PARSE_HELPER_COMMAND "__libclang-helper"

/* `omplens __libclang-helper CACHE_DIR`: serves parse requests on standard
 * input until it ends. argv as main's. Returns main's exit status. */
int omplens_parse_helper_main(int argc, char **argv);

/* From here on, parses whose results the parse cache keeps run in helpers
 * (when the cache is on); omplens_directives_parses_done() ends them, and
 * a later parse starts new ones. */
void omplens_parse_helpers_on(void);

/* Starts a helper now, when helpers are on, none runs and the parse cache
 * holds nothing (a first report, whose parses will all miss), to load
 * libclang beside the caller's work; it ends with the others, also when no
 * parse came. */
void omplens_parse_helpers_warm(void);

#endif
