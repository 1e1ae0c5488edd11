/* Internals of the detectors: the analysis body, the working context shared
 * by the passes, and helpers. Design note: docs/detectors.md.
 *
 * omplens_detect_run reads the events twice, in time order: the survey
 * (detect.c) checks the order and takes the event sums; the scan hands each
 * event to the detectors of its kind (allocs.c, transfers.c), which emit
 * instances. Then the detectors emit what needed the whole trace, and
 * findings.c groups the instances into findings. */
#ifndef OMPLENS_DETECT_INTERNAL_H
#define OMPLENS_DETECT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "map_internal.h"
#include "omplens_detect.h"

/* "No event" in event-index fields (omplens_instance.related and others). */
#define OMPLENS_DETECT__NONE UINT32_MAX

struct omplens_analysis {
  omplens_finding *findings;
  size_t num_findings;
  omplens_instance *instances; /* all findings' instances, group by group */
  omplens_directive_total *directives;
  size_t num_directives;
  omplens_directive_profile *profiles; /* the survey's sums, sorted       */
  size_t num_profiles;
  omplens_leftover *leftovers;
  size_t num_leftovers;
  omplens_program_total total;
};

/* ---- Survey ------------------------------------------------------------ */

/* Sums over the events of one codeptr. The survey takes them for every
 * codeptr; they become the directive profiles, and those of directives
 * with findings go into their totals. */
typedef omplens_directive_profile omplens_detect__codeptr_sums;

/* The latest event of a host thread (threads share entries modulo
 * OMPLENS_DETECT__RECENT): where its codeptr's sums are, and its region,
 * whose execution is counted. */
#define OMPLENS_DETECT__RECENT 16u
typedef struct omplens_detect__recent {
  uint64_t codeptr;
  uint32_t sums;   /* index into sums, or NONE for an unused entry        */
  uint32_t region; /* OMPLENS_NO_REGION: none counted yet                 */
} omplens_detect__recent;

/* A kernel on a device (>= 0), as the survey lists them. */
typedef struct omplens_detect__kernel {
  uint64_t begin, end;
  int16_t device;
} omplens_detect__kernel;

/* Kernel intervals per device, for "does a kernel overlap / follow" queries.
 * Kernels of device d are [offset[d], offset[d+1]) in begin order. */
typedef struct omplens_detect__kernels {
  size_t num_devices;
  uint32_t *offset;  /* num_devices + 1 entries */
  uint64_t *begin;   /* kernel begin times                               */
  uint64_t *max_end; /* prefix maximum of end times within each device  */
  uint32_t *near;    /* per device: the previous answer, where the next
                        search starts (queries come roughly in time order) */
} omplens_detect__kernels;

/* ---- Scan ----------------------------------------------------------------
 * The detectors' records keep their keys, so that finding one reads no
 * earlier event (those are seldom still cached). */

/* A buffer of the repeated-allocation detector: its host buffer, or for
 * the device memory API its call site (allocs.c, owner_of). */
typedef struct omplens_detect__buffer {
  uint64_t owner, bytes;
  uint32_t first; /* event of its first allocation */
  int16_t device;
} omplens_detect__buffer;

/* A receiver's view of one host buffer (transfers.c): the content the
 * trace last showed in it. */
typedef struct omplens_detect__copy {
  uint64_t host_addr, bytes;
  uint64_t hash;    /* of content, when known: checked without it       */
  uint32_t content; /* index into contents, or NONE: unknown            */
  uint32_t since;   /* the transfer since which it holds content        */
  int16_t side;     /* device, or OMPLENS_HOST                          */
  uint8_t pending;  /* its side produced content here (sent it out of
                       it) and it has not come back                     */
  uint8_t held;     /* it held a known content once: first_hash is set  */
  uint64_t first_hash; /* the first content it held (a start value)     */
} omplens_detect__copy;

/* One content as one side holds it (transfers.c), while a copy does. */
typedef struct omplens_detect__content {
  uint64_t hash, bytes;
  uint32_t holders;   /* copies holding it now                          */
  uint32_t pending_holders; /* of them, those with a pending production */
  uint32_t since;     /* the transfer since which some copy holds it (or
                         last held it)                                   */
  uint32_t sent;      /* the side's latest production of it             */
  int16_t side;
  uint8_t crossed;    /* came back through another buffer since then   */
} omplens_detect__content;

/* A device buffer of the unused-transfer detector. */
typedef struct omplens_detect__target {
  uint64_t dev_addr;
  uint64_t reader; /* begin of the first kernel on the device at or after
                      the end of h2d, or UINT64_MAX                     */
  uint64_t hash, bytes; /* h2d's content (hash valid when hashed)      */
  uint32_t h2d;    /* latest H2D to the buffer                          */
  int16_t device;
  uint8_t hashed;
} omplens_detect__target;

/* The content hash of `bytes` zero bytes (transfers.c, is_zeros). */
#define OMPLENS_DETECT__ZERO_SIZES 64u
typedef struct omplens_detect__zeros {
  uint64_t bytes, hash;
} omplens_detect__zeros;

/* The detectors' maps, alive during the scan. Values are event indices
 * unless said otherwise. */
typedef struct omplens_detect__scan {
  omplens_detect__map live; /* (device, dev_addr) -> alloc ordinal        */
  omplens_detect__map buffer_of; /* (device, host_addr, bytes) -> index
                                    into buffers                         */
  omplens_detect__buffer *buffers;
  size_t num_buffers, cap_buffers;
  omplens_detect__map copy_of; /* (side, host_addr, bytes) -> index into
                                  copies                                 */
  omplens_detect__copy *copies;
  size_t num_copies, cap_copies;
  omplens_detect__map content_of; /* (side, hash, bytes) -> index into
                                     contents; a device's past contents:
                                     SEEN | event (transfers.c)          */
  omplens_detect__content *contents; /* only those some copy holds      */
  size_t num_contents, cap_contents;
  uint32_t free_content; /* a freed record, chained through sent; NONE  */
  omplens_detect__zeros zeros[OMPLENS_DETECT__ZERO_SIZES]; /* by size */
  omplens_detect__map target_of; /* (device, dev_addr) -> index into
                                    targets                              */
  omplens_detect__target *targets;
  size_t num_targets, cap_targets;
} omplens_detect__scan;

/* ---- Kernel use (uses.c) ------------------------------------------------
 * Which allocations the kernels were given, from their constructs' map
 * arguments (docs/detectors.md, "Unused allocation"). */

/* Host addresses [lo, hi) of allocation ord on device. */
typedef struct omplens_detect__span {
  uint64_t lo, hi;
  uint32_t ord;
  int16_t device;
} omplens_detect__span;

/* An argument list given lately, and the held allocations' epoch then. */
#define OMPLENS_DETECT__SEEN_LISTS 64u
typedef struct omplens_detect__seen {
  uint32_t first, n;
  int16_t device;
  uint64_t epoch;
} omplens_detect__seen;

typedef struct omplens_detect__uses {
  omplens_detect__span *held; /* live allocations judged by the kernels'
                                 arguments, sorted (uses.c)             */
  size_t num_held, cap_held;
  omplens_detect__span *anchors; /* the pointers some of them were attached
                                    through (one byte each)              */
  size_t num_anchors, cap_anchors;
  omplens_detect__span *escaped; /* host addresses whose device address
                                    the program asked for                */
  size_t num_escaped;
  uint64_t *judged; /* bit per ordinal: its map item is known, so the
                       kernels' arguments show whether they were given it */
  uint64_t *given;  /* bit per ordinal: a kernel was given it            */
  uint64_t *reached; /* bit per ordinal: the kernel being given its
                        arguments reached it through a pointer (uses.c) */
  uint32_t *stack;   /* ... those, in the order reached                 */
  size_t num_reached, cap_stack;
  uint64_t epoch;   /* counts the changes of held and anchors            */
  omplens_detect__seen seen[OMPLENS_DETECT__SEEN_LISTS];
} omplens_detect__uses;

/* ---- Instances and groups ----------------------------------------------- */

/* A growable array kept in blocks of 2^OMPLENS_DETECT__BLOCK_BITS elements.
 * Growing it never moves what it holds: no freed copy is left behind for
 * the heap to keep resident, and at most one block is unused. */
#define OMPLENS_DETECT__BLOCK_BITS 12u
typedef struct omplens_detect__blocks {
  char **block;
  size_t num_blocks, cap_blocks;
  size_t count; /* elements */
} omplens_detect__blocks;

/* Element i (< count) of an array of elements of size bytes. */
static inline void *omplens_detect__blocks_at(const omplens_detect__blocks *b,
                                              size_t i, size_t size) {
  size_t mask = ((size_t)1 << OMPLENS_DETECT__BLOCK_BITS) - 1;
  return b->block[i >> OMPLENS_DETECT__BLOCK_BITS] + (i & mask) * size;
}
/* Appends an element of size bytes and returns it (uninitialized), or NULL
 * when out of memory (the array is unchanged). */
void *omplens_detect__blocks_push(omplens_detect__blocks *b, size_t size);
void omplens_detect__blocks_free(omplens_detect__blocks *b);
/* Read in order and done with up to element i: frees i's block when i is
 * its last element, so that an array copied or converted element by
 * element gives its memory back as it goes (its elements from that block
 * on are not read again; omplens_detect__blocks_free still follows). */
void omplens_detect__blocks_read(omplens_detect__blocks *b, size_t i);

/* An instance before grouping: which group it belongs to. */
typedef struct omplens_detect__raw {
  uint32_t event;
  uint32_t related;
  uint32_t group;
} omplens_detect__raw;

/* A finding while the detectors run: its key and running sums. The public
 * omplens_finding is made from it once every instance is known. */
typedef struct omplens_detect__group {
  uint64_t codeptr, variable, bytes; /* the key, with category, device    */
  uint64_t host_addr;  /* of the first instance                          */
  uint64_t total_ns;   /* durations of the instances' events              */
  uint64_t savings_ns; /* durations of the operations the instances remove,
                          in no other group                               */
  uint32_t num_instances;
  int16_t device;
  uint8_t category;
  uint8_t passed_over; /* omplens_finding.passed_over                     */
} omplens_detect__group;

/* What a finding groups by (findings.c). */
typedef struct omplens_detect__group_key {
  int category;
  int16_t device;
  uint64_t codeptr, variable, bytes;
  uint64_t host_addr; /* of the event: not part of the key */
} omplens_detect__group_key;

/* An emission waiting for its group lookup. */
#define OMPLENS_DETECT__QUEUE 64u
typedef struct omplens_detect__emission {
  omplens_detect__group_key key;
  uint64_t hash; /* of the key */
  uint64_t removal_ns;
  uint32_t event, related;
  uint8_t passed_over;
} omplens_detect__emission;

/* ---- Context ------------------------------------------------------------ */

/* omplens_detect_trace_with's hook: events examined, each pass weighted by
 * its cost per event (detect.c, "Progress"). Shared by the lanes' contexts:
 * the content lane adds from its thread. */
typedef struct omplens_detect__progress {
  omplens_progress_fn *fn;
  void *ctx;
  _Atomic uint64_t done;
  uint64_t total;
} omplens_detect__progress;

/* Working state of one omplens_detect_run call. Every pointer is owned by
 * the context and freed by omplens_detect__ctx_free. */
typedef struct omplens_detect__ctx {
  const omplens_event *ev;
  uint32_t n;
  const uint64_t *sites; /* the events' code addresses, or NULL */
  size_t num_sites;
  const omplens_region *regions; /* the events' regions and their map
                                    arguments, or NULL                  */
  size_t num_regions;
  const omplens_map_arg *args;
  size_t num_args;
  /* The long lists of map arguments sorted (omplens_detect__sort_arg_lists),
   * or NULL: made before the lanes start, read by both. */
  const omplens_map_lists *arg_lists;
  uint64_t wait_begin, wait_end; /* the regions whose waits count        */
  const omplens_trace_wait *waits; /* host waits for nowait regions       */
  size_t num_waits;
  const omplens_trace_pause *pauses; /* in time order                     */
  size_t num_pauses;
  int incomplete;       /* the program did not finish: nothing is seen */
  uint64_t unseen_from; /* from here on (the latest event end)          */
  uint64_t run_ns;
  /* Survey. */
  omplens_program_total events_total; /* the event sums of the total    */
  omplens_detect__codeptr_sums *sums;
  size_t num_sums, cap_sums;
  omplens_detect__map sums_of; /* codeptr -> index into sums              */
  omplens_detect__recent recent[OMPLENS_DETECT__RECENT];
  uint32_t *region_owner; /* until the scan: see new_execution (detect.c) */
  size_t num_owned;
  omplens_detect__map executions; /* until the scan: (codeptr, region) ->
                                     event                               */
  uint32_t *data_exits; /* by sums, until their counts are done: executions
                           of EXIT_DATA regions, counted apart
                           (count_codeptr_events) */
  size_t cap_data_exits;
  omplens_detect__kernel *kernel_list; /* until the scan                  */
  size_t num_kernels, cap_kernels;
  size_t num_devices; /* highest kernel device + 1                        */
  uint32_t max_allocs; /* ALLOC events in the input                       */
  /* Scan. */
  omplens_detect__kernels kernels;
  uint32_t num_allocs;
  uint32_t *alloc_event;  /* by ordinal (time order): the ALLOC event     */
  uint32_t *alloc_delete; /* its delete, or OMPLENS_DETECT__NONE           */
  uint32_t *alloc_first;  /* the first allocation of its buffer when it
                             repeats one, else OMPLENS_DETECT__NONE       */
  uint64_t *unused_allocs;   /* bit per ordinal: no kernel used it        */
  uint64_t *passed_over;     /* bit per ordinal: of those, kernels ran in
                                its lifetime, and none was given it       */
  omplens_detect__kernel *blind_list; /* until the scan: the kernels whose
                                         map arguments the trace lacks   */
  size_t num_blind, cap_blind;
  omplens_detect__kernels blind;
  omplens_detect__uses uses;
  omplens_detect__scan scan;
  uint64_t *unused;  /* bit per event: an H2D found unused                */
  uint64_t *removed; /* bit per event: an instance already removes it     */
  /* Instances as the detectors emit them, and the groups they form. */
  omplens_detect__emission queue[OMPLENS_DETECT__QUEUE];
  unsigned queued;
  omplens_detect__blocks raw;    /* of omplens_detect__raw   */
  omplens_detect__blocks groups; /* of omplens_detect__group */
  omplens_detect__map group_of;  /* group key -> index into groups */
  omplens_leftover *leftovers;
  size_t num_leftovers;
  omplens_detect__progress *progress; /* NULL: no hook */
} omplens_detect__ctx;

void omplens_detect__ctx_free(omplens_detect__ctx *c);

/* The place of a map item among its construct's arguments: a list of
 * OMPLENS_DETECT__SORT_ARGS or more is searched in its sorted order
 * (omplens_map_lists), made once, where a construct that maps hundreds of
 * items had each of its operations' findings scan them. Sorts into l every
 * such list of the regions; a list that shares arguments with one sorted
 * before is left to the scan. */
#define OMPLENS_DETECT__SORT_ARGS 16
void omplens_detect__sort_arg_lists(const omplens_detect__ctx *c, omplens_map_lists *l);
/* The place among r's arguments of the buffer argument that begins at addr
 * and is bytes long (in the sorted order where the list has one), or
 * UINT32_MAX. */
uint32_t omplens_detect__arg_place(const omplens_detect__ctx *c, const omplens_region *r,
                                   uint64_t addr, uint64_t bytes);
/* Forgets what every side holds (copies and contents): after a pause the
 * trace shows nothing of what the program did in it. */
void omplens_detect__forget_contents(omplens_detect__scan *s);

/* Nonzero when a stretch the trace did not see begins in [from, to): a
 * pause, or the time after an incomplete trace's last event. What the
 * program did then is unknown, so no finding relates an operation before
 * it to one after it (docs/detectors.md, "Unseen stretches"). */
int omplens_detect__unseen_between(const omplens_detect__ctx *c, uint64_t from, uint64_t to);

/* omplens_detect_run, telling progress (NULL: none; its done starts at 0
 * and its total is set here). */
int omplens_detect__run(const omplens_event *events, size_t num_events,
                        const omplens_detect_params *params,
                        omplens_detect__progress *progress, omplens_analysis **out);

/* ---- Passes --------------------------------------------------------------
 * In the order omplens_detect_run calls them. Functions returning int
 * return 0 or OMPLENS_DETECT_ENOMEM. */

int omplens_detect__kernels_build(omplens_detect__kernels *k,
                                  const omplens_detect__kernel *list,
                                  size_t num_kernels, size_t num_devices);
void omplens_detect__kernels_free(omplens_detect__kernels *k);
/* Begin time of the first kernel on device that begins at or after t, or
 * UINT64_MAX when there is none. */
uint64_t omplens_detect__kernel_after(omplens_detect__kernels *k, int device,
                                      uint64_t t);
/* Nonzero when a kernel on device overlaps [begin, end]. */
int omplens_detect__kernel_overlaps(omplens_detect__kernels *k, int device,
                                    uint64_t begin, uint64_t end);

/* The scan calls these for each event of their kind, in time order; the
 * transfer detectors for each H2D and D2H that moved bytes. on_content
 * (duplicates, round trips) shares no state with the others, so that it can
 * run on a lane of its own (see omplens_detect__split_min_events). */
int omplens_detect__on_alloc(omplens_detect__ctx *c, uint32_t i);
int omplens_detect__on_delete(omplens_detect__ctx *c, uint32_t i);
int omplens_detect__on_content(omplens_detect__ctx *c, uint32_t i);
int omplens_detect__on_target(omplens_detect__ctx *c, uint32_t i);
/* Kernel use (uses.c): the scan tells of each allocation, delete and
 * kernel; an allocation is passed over when kernels ran in its lifetime
 * (up to end), the trace shows each one's map arguments, and none was
 * given it. A blind kernel (its arguments unknown) may use anything. */
int omplens_detect__kernel_blind(const omplens_detect__ctx *c, const omplens_event *e);
int omplens_detect__uses_prepare(omplens_detect__ctx *c);
int omplens_detect__uses_alloc(omplens_detect__ctx *c, uint32_t ord);
void omplens_detect__uses_delete(omplens_detect__ctx *c, uint32_t ord);
int omplens_detect__on_kernel(omplens_detect__ctx *c, uint32_t i);
int omplens_detect__passed_over(omplens_detect__ctx *c, uint32_t ord, uint64_t end);
void omplens_detect__uses_free(omplens_detect__uses *u);
/* Starts the cache misses that scanning event i will meet; the scan calls
 * it OMPLENS_DETECT__LOOK_AHEAD events before it scans i. */
#define OMPLENS_DETECT__LOOK_AHEAD 16u
void omplens_detect__look_ahead(const omplens_detect__ctx *c, uint32_t i);
void omplens_detect__scan_free(omplens_detect__scan *s);

/* After the scan: instances that needed later events. */
int omplens_detect__allocations(omplens_detect__ctx *c);
int omplens_detect__unused_transfers(omplens_detect__ctx *c);

/* Records that event is wasteful in category (related: see
 * omplens_instance); fixing it removes operations lasting removal_ns, all
 * of them counted at event in c->removed. Each operation is emitted at most
 * once. Detectors emit each category in time order. Emissions are queued,
 * so that the cache misses of their group lookups overlap, until the queue
 * fills or the detectors flush. */
int omplens_detect__emit(omplens_detect__ctx *c, int category, uint32_t event,
                         uint32_t related, uint64_t removal_ns);
/* omplens_detect__emit of an unused allocation that kernels passed over
 * (omplens_finding.passed_over) when passed_over is nonzero. */
int omplens_detect__emit_passed(omplens_detect__ctx *c, int category, uint32_t event,
                                uint32_t related, uint64_t removal_ns, int passed_over);
/* Groups the queued emissions; the detectors' last step. */
int omplens_detect__flush(omplens_detect__ctx *c);
/* Moves the groups, instances and removals of lane (flushed; its
 * categories are none of into's) into into, leaving lane without them. */
int omplens_detect__merge_lane(omplens_detect__ctx *into,
                               omplens_detect__ctx *lane);

/* Groups the instances into findings and computes the totals. Moves the
 * findings, instances and leftovers into a. */
int omplens_detect__finish(omplens_detect__ctx *c, omplens_analysis *a);
/* The survey's sums of codeptr, or NULL when no event has it. */
const omplens_detect__codeptr_sums *
omplens_detect__find_sums(const omplens_detect__ctx *c, uint64_t codeptr);

/* ---- Helpers ------------------------------------------------------------ */

/* The code address of e's directive, through the sites table. */
static inline uint64_t omplens_detect__codeptr(const omplens_detect__ctx *c,
                                               const omplens_event *e) {
  if (!c->sites)
    return e->site;
  return e->site < c->num_sites ? c->sites[e->site] : 0;
}

/* Memory: bulk arrays (omplens_bulk.h) of n elements with an overflow
 * check. They return NULL on overflow or failure; n == 0 still gives a
 * unique pointer. Free with omplens_detect__free, which gives a large
 * array's pages back to the system at once: the findings built after the
 * scan then reuse the scan's memory rather than add to its peak. */
void *omplens_detect__array(size_t n, size_t size);
void *omplens_detect__zarray(size_t n, size_t size);
void *omplens_detect__rearray(void *p, size_t n, size_t size);
void omplens_detect__free(void *p);
/* Makes room for need elements of size bytes in the array whose pointer is
 * at array (a T **), capacity *cap, doubling. On failure nothing changes. */
int omplens_detect__reserve(void *array, size_t *cap, size_t need,
                            size_t size);
/* Test hook: when nonzero, the countdown-th allocation from now fails
 * (whichever thread makes it). */
extern _Atomic size_t omplens_detect__fail_countdown;
/* Inputs of at least this many events run the content detectors on a
 * second thread, when there is a second CPU. Tests set it to 0 (always) or
 * SIZE_MAX (never). */
extern size_t omplens_detect__split_min_events;

/* Bitmaps over n indices (events, allocation ordinals). */
static inline uint64_t *omplens_detect__bitmap(uint32_t n) {
  return omplens_detect__zarray(((size_t)n + 63) / 64, sizeof(uint64_t));
}
static inline int omplens_detect__bit(const uint64_t *b, uint32_t i) {
  return (int)((b[i >> 6] >> (i & 63)) & 1u);
}
static inline void omplens_detect__set_bit(uint64_t *b, uint32_t i) {
  b[i >> 6] |= (uint64_t)1 << (i & 63);
}
static inline void omplens_detect__clear_bit(uint64_t *b, uint32_t i) {
  b[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

/* Duration of an event; a malformed end before begin counts as 0. */
static inline uint64_t omplens_detect__dur(const omplens_event *e) {
  return e->end_ns > e->begin_ns ? e->end_ns - e->begin_ns : 0;
}

static inline int omplens_detect__is_transfer(const omplens_event *e) {
  return e->kind == OMPLENS_EV_H2D || e->kind == OMPLENS_EV_D2H ||
         e->kind == OMPLENS_EV_D2D;
}

static inline int omplens_detect__is_alloc_category(int category) {
  return category == OMPLENS_CAT_REPEATED_ALLOC ||
         category == OMPLENS_CAT_UNUSED_ALLOC;
}

#endif
