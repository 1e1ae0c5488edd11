/* Internal helpers shared by the renderers. */
#ifndef OMPLENS_REPORT_INTERNAL_H
#define OMPLENS_REPORT_INTERNAL_H

#include "omplens_report.h"

#include <jansson.h>

/* The last component of a path ("dir/" stays "dir/"). */
const char *omplens_report__base_name(const char *path);
/* A member of a document object as a string / integer (NULL / 0 when absent). */
const char *omplens_report__str_at(const json_t *o, const char *key);
json_int_t omplens_report__int_at(const json_t *o, const char *key);

int omplens_report__locate(const omplens_report_input *in, size_t proc, uint64_t codeptr,
                           omplens_location *loc);

#endif
