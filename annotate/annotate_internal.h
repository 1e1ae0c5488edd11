/* Internal: what the annotator's own modules share. */
#ifndef OMPLENS_ANNOTATE_INTERNAL_H
#define OMPLENS_ANNOTATE_INTERNAL_H

#include "omplens_annotate.h"
#include "omplens_symbolize.h"

/* The annotator's symbolizer (NULL when it could not be made) and trace. */
omplens_symbolizer *omplens_annotate__symbolizer(const omplens_annotator *a);
const omplens_trace *omplens_annotate__trace(const omplens_annotator *a);

#endif
