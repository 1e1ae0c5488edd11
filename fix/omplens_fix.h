/* omplens fixes: for every finding, a concrete source change as a unified
 * diff against the real file (one that compiles, keeps the program's output
 * and removes the finding), or, when no safe diff can be derived, the reason
 * and a recipe to follow by hand. Rules, safety checks and limits:
 * docs/fixes.md.
 *
 * A fixer reads one process's trace, analysis and annotator, finds each
 * finding's directive and map item with the directive index
 * (omplens_directives.h), and reads the sources with libclang. Findings that
 * one change removes together (the duplicate transfer and the repeated
 * allocation of one item, both grids of a loop) share one fix.
 *
 * Functions return 0 or a negative OMPLENS_FIX_E* code; omplens_fix_strerror()
 * explains a code. Not being able to derive a diff is not an error: the fix
 * then has a manual recipe. Every string and array a fixer hands out is owned
 * by it and valid until omplens_fixer_destroy(). A fixer is not thread-safe. */
#ifndef OMPLENS_FIX_H
#define OMPLENS_FIX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "omplens_annotate.h"
#include "omplens_detect.h"
#include "omplens_directives.h"
#include "omplens_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

enum omplens_fix_error {
  OMPLENS_FIX_OK = 0,
  OMPLENS_FIX_EINVAL = -1, /* NULL fixer, trace or analysis; a finding that
                              is not one of the analysis' own            */
  OMPLENS_FIX_ENOMEM = -2,
  OMPLENS_FIX_ENOTFOUND = -3, /* no fix covers the leftover or finding     */
};

/* What the suggested change does (docs/fixes.md, "Rules"). */
enum omplens_fix_kind {
  OMPLENS_FIX_MANUAL = 0,           /* no diff: see manual                          */
  OMPLENS_FIX_KEEP_RESIDENT,        /* wrap the enclosing loop in `target data`     */
  OMPLENS_FIX_KEEP_RESIDENT_CALLER, /* the same around the loop of the only
                                  call site, items translated to its arguments */
  OMPLENS_FIX_DROP_COPY_BACK,       /* tofrom -> to, from -> release/alloc; an
                                       implicit tofrom map gets `map(to: VAR)`     */
  OMPLENS_FIX_REMOVE_ITEM,          /* drop a map/motion item (or its clause); also
                                       an item the kernel's body never names      */
  OMPLENS_FIX_REMOVE_DIRECTIVE,     /* drop a data directive left with no item      */
  OMPLENS_FIX_GUARD,                /* if(...) clause: run only where it is needed  */
  OMPLENS_FIX_HOIST_ALLOC,          /* enter data alloc before the loop, exit data
                                       delete after it                              */
  OMPLENS_FIX_MAP_ALLOC,            /* to -> alloc (tofrom -> from): nothing to send */
  OMPLENS_FIX_ZERO_ON_DEVICE,       /* alloc + a kernel that zeroes the array       */
  OMPLENS_FIX_ADD_EXIT_DATA,        /* exit data delete for a mapping never removed */
  OMPLENS_FIX_INIT_ON_DEVICE,       /* a host reset sent by `target update to`
                                       becomes a one-statement target region that
                                       sets the same value on the device          */
  OMPLENS_FIX_FILL_ON_DEVICE,       /* alloc + a kernel that fills the array with the
                                       one value every element holds (not zero)   */
  OMPLENS_FIX_FIRSTPRIVATE,         /* a number mapped `to` by its name that no
                                       region can keep becomes firstprivate: it
                                       travels with the kernel's launch          */
};

enum omplens_fix_confidence {
  OMPLENS_FIXC_MANUAL = 0, /* no diff                                      */
  OMPLENS_FIXC_CHECKED,    /* trace and source checks passed; the summary
                              states what could not be checked (aliases)  */
  OMPLENS_FIXC_ASSUMED,    /* a diff that rests on an assumption the
                              summary states (calls in the loop, ...)     */
};

typedef struct omplens_fix_options {
  /* Diffs are also given with paths relative to this directory (display,
   * `patch -p1` from it). NULL: the current directory. */
  const char *base_dir;
  /* An index to read directives with (shared with the report, which then
   * sees the same directives); NULL: the fixer makes its own from
   * directive_options (NULL: defaults). */
  omplens_directive_index *index;
  const omplens_directive_options *directive_options;
  /* Appended to every libclang parse (-I, -D the build used). */
  const char *const *extra_args;
  size_t num_extra_args;
  /* When set, no fix has a diff: each is manual with this reason, and the
   * change it would make as its recipe (a run that failed, whose trace
   * may not show what the program does; copied). */
  const char *no_diff;
} omplens_fix_options;

typedef struct omplens_fix {
  int kind;                  /* enum omplens_fix_kind                          */
  int confidence;            /* enum omplens_fix_confidence                    */
  const char *summary;       /* one sentence, with the assumption made         */
  const char *diff;          /* unified diff, paths "a" + absolute path, or
                                NULL when there is no safe diff              */
  const char *diff_relative; /* the same with paths relative to base_dir     */
  const char *manual;        /* no diff: why, and the recipe. With a diff:
                                NULL, or a note on what else to check        */
  const char *file;          /* the source the fix is about, or NULL          */
  unsigned line;             /* its directive's line, or 0                    */
  size_t num_findings;       /* findings it removes: indices into
                                omplens_analysis_findings(), ascending        */
  const size_t *findings;
  const char *unreferenced; /* the variable, when it removes an item the
                               kernel never names (mapped-but-unreferenced) */
  size_t num_leftovers;     /* leftovers it removes (ADD_EXIT_DATA):
                               indices into omplens_analysis_leftovers()    */
  const size_t *leftovers;
  size_t num_removed; /* events the change removes, ascending and
                         distinct (for the what-if model)             */
  const uint32_t *removed;
  uint64_t predicted_savings_ns; /* the what-if model's prediction, else the
                               sum of the removed events' durations        */
  double predicted_speedup;      /* run / (run - savings); 0.0 when undefined      */
} omplens_fix;

typedef struct omplens_fixer omplens_fixer;

const char *omplens_fix_strerror(int err);
/* "manual", "keep-resident", "keep-resident-caller", "drop-copy-back",
 * "remove-item", "remove-directive", "guard", "hoist-alloc", "map-alloc",
 * "zero-on-device", "add-exit-data", "init-on-device", "fill-on-device",
 * "firstprivate". */
const char *omplens_fix_kind_name(int kind);
/* "manual", "checked", "assumed". */
const char *omplens_fix_confidence_name(int confidence);

/* Creates a fixer. t, a and annot must outlive it (annot may be NULL: then
 * nothing is located and every fix is manual). opt may be NULL; it is
 * copied. Sources are read and fixes derived on the first query. On success
 * *out is new (caller frees with omplens_fixer_destroy); on failure NULL. */
int omplens_fixer_create(const omplens_trace *t, const omplens_analysis *a,
                         omplens_annotator *annot, const omplens_fix_options *opt,
                         omplens_fixer **out);
void omplens_fixer_destroy(omplens_fixer *fx); /* NULL accepted */
/* Makes index's plain parses (those without extra arguments) also record
 * what a fixer reads of the unit, so that a fixer made later with this
 * index and no extra arguments parses none of them again, as
 * omplens_fixer_create() arranges for the parses after it. Call it before
 * the index parses (omplens_annotate_prefetch). index may be NULL. */
void omplens_fix_share_parses(omplens_directive_index *index);
/* A helper process's share of the fixer's parses (annotate/libclang_dl.h,
 * the jobs OMPLENS_LIBCLANG_JOB_AST and _ERRORS, parts as named there):
 * parses as the requesting fixer would, into the parse cache. Return 0 and
 * the number of errors, or an error code and -1. */
int omplens_fix_ast_job(const char *const *parts, size_t n);
int omplens_fix_errors_job(const char *const *parts, size_t n);

/* The fix of finding f (a pointer into omplens_analysis_findings()). *out
 * is a copy whose pointers the fixer owns. Several findings may share one
 * fix: compare diffs, or use omplens_fix_list(). */
int omplens_fix_suggest(omplens_fixer *fx, const omplens_finding *f, omplens_fix *out);
/* The same by finding index. */
int omplens_fix_for_finding(omplens_fixer *fx, size_t finding, const omplens_fix **out);
/* What the source shows of a finding that its trace could not, in place
 * of its category's explanation, or NULL: of a duplicate (or round trip)
 * that a `target update to` sends to the device, that a kernel between its
 * copies writes the variable there (each copy a re-initialization), or
 * that the host writes it where its values reach the update (equal to the
 * device's copy in the recorded run only). docs/fixes.md, "What the
 * source shows". Owned by the fixer. */
const char *omplens_fix_account(omplens_fixer *fx, size_t finding);
/* The storage a finding's map item points into, as the source names it
 * where the change is made: when the item's pointer is a local taken from
 * an object's storage (`p = v_.data()`, `xcoefs = &x.coefs[0]`), that
 * object, with a parameter replaced by the caller's argument and a member
 * of `this` prefixed by the object the method is called on, through the
 * call the finding's call path names (`profile.v_`, `Ap.coefs`). *where
 * gets "main.cpp:18" (that call), or the directive's file:line when no
 * call is involved. NULL (and *where NULL) when the item is not such a
 * pointer or the call is unknown. Owned by the fixer. */
const char *omplens_fix_storage(omplens_fixer *fx, size_t finding, const char **where);
/* The line of the loop around the first call on a finding's call path (the
 * path most of its operations came by), in that call's file: the loop
 * that repeats the directive; 0 when the call is in no loop or unknown. */
unsigned omplens_fix_call_loop(omplens_fixer *fx, size_t finding);
/* The fix of a map item that the target construct at codeptr maps but whose
 * body never names its variable name (the report's mapped-but-unreferenced
 * finding, omplens_annotate_unreferenced()): removing the item. Detector
 * findings on the same item share it. ENOTFOUND when no such item ran. */
int omplens_fix_for_unreferenced(omplens_fixer *fx, uint64_t codeptr, const char *name,
                                 const omplens_fix **out);
/* The fix of leftover mapping `leftover` (an index into
 * omplens_analysis_leftovers()): an exit data before the buffer's free, or
 * its recipe. ENOTFOUND when there is none. */
int omplens_fix_for_leftover(omplens_fixer *fx, size_t leftover, const omplens_fix **out);
/* Every fix once, in the order of their first finding (largest savings
 * first), then those of unreferenced items and of leftovers. *fixes is owned
 * by the fixer. */
int omplens_fix_list(omplens_fixer *fx, const omplens_fix **fixes, size_t *count);

/* One patch holding every diff of the list, merged per file (what `omplens
 * fix` writes): relative selects the base_dir paths. A fix whose edits
 * overlap an earlier one's is left out and named in *skipped (NULL when none;
 * both owned by the fixer). *patch is "" when no fix has a diff. */
int omplens_fix_patch(omplens_fixer *fx, int relative, const char **patch, const char **skipped);

/* The directory the relative paths of diffs start from: options' base_dir,
 * else the sources' root (the directory every edited file is under),
 * whatever the current directory. *all_under
 * (may be NULL) says whether every file a diff edits is under it, so that
 * `patch -p1 -d DIR` applies the relative patch. Owned by the fixer. */
int omplens_fix_base_dir(omplens_fixer *fx, const char **dir, int *all_under);

/* The prediction for applying every fix of omplens_fix_patch() together:
 * their removed events merged and predicted at once (the what-if model when
 * built with it, else the sum of durations), so shared operations count
 * once. Any output pointer may be NULL. */
int omplens_fix_predict_all(omplens_fixer *fx, uint64_t *savings_ns, double *speedup,
                            size_t *num_removed);

/* The prediction for fixing every finding: the removed events of every fix
 * of omplens_fix_patch(), every finding's operations (with an allocation's
 * delete) and extra[0..num_extra) (operations of findings the report adds,
 * with their deletes), predicted at once. The what-if model is monotone in
 * what it removes, so no single fix's prediction exceeds it. The model
 * costs memory per event: when no fix has a diff (so none needed it),
 * nothing is predicted and OMPLENS_FIX_ENOTFOUND says that the findings'
 * summed savings are the answer. */
int omplens_fix_predict_every(omplens_fixer *fx, const uint32_t *extra, size_t num_extra,
                              uint64_t *savings_ns, double *speedup, size_t *num_removed);

/* Prints every fix (summary, kind, confidence, findings, prediction, then
 * the diff or the manual recipe) for a terminal or a log. */
int omplens_fix_print(omplens_fixer *fx, FILE *out, int relative);

#ifdef __cplusplus
}
#endif
#endif
