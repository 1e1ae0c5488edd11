/* Internal helpers shared by the renderers. */
#ifndef OMPLENS_REPORT_INTERNAL_H
#define OMPLENS_REPORT_INTERNAL_H

#include "omplens_report.h"

int omplens_report__locate(const omplens_report_input *in, size_t proc, uint64_t codeptr,
                           omplens_location *loc);

#endif
