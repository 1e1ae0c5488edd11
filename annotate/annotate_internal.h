/* Internal: what the annotator's own modules share. */
#ifndef OMPLENS_ANNOTATE_INTERNAL_H
#define OMPLENS_ANNOTATE_INTERNAL_H

#include "omplens_annotate.h"
#include "omplens_symbolize.h"

/* The annotator's symbolizer (NULL when it could not be made) and trace. */
omplens_symbolizer *omplens_annotate__symbolizer(const omplens_annotator *a);
const omplens_trace *omplens_annotate__trace(const omplens_annotator *a);

/* The recorded call paths already put in source terms (call_path.c): a
 * report asks for a finding's path several times (the fixer, findings.json,
 * the pages), and each answer walks DWARF. Made on first use; like the rest
 * of the annotator, one thread at a time. */
typedef struct omplens_path_memo omplens_path_memo;
omplens_path_memo **omplens_annotate__path_memo(omplens_annotator *a);
void omplens_annotate__path_memo_free(omplens_path_memo *m);

#endif
