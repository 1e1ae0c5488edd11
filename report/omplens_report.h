/* omplens report renderers: turn analyses of one or more processes into the
 * machine-readable findings.json (schema in docs/findings-schema.md) and the
 * terminal summary. Functions return 0 or a negative OMPLENS_REPORT_E* code;
 * omplens_report_strerror() explains it. */
#ifndef OMPLENS_REPORT_H
#define OMPLENS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "omplens_annotate.h"
#include "omplens_detect.h"
#include "omplens_fix.h"
#include "omplens_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OMPLENS_FINDINGS_SCHEMA_VERSION 6
/* The category of findings only the source gives: a map item whose
 * variable the construct's body never names. */
#define OMPLENS_REPORT_UNREFERENCED "mapped-but-unreferenced"
/* Instances listed per finding in the document (the first ones in time);
 * counts, bytes and times always cover all of them. */
#define OMPLENS_REPORT_MAX_INSTANCES 1000

enum omplens_report_error {
  OMPLENS_REPORT_OK = 0,
  OMPLENS_REPORT_EIO = -1,     /* cannot write the output (errno kept) */
  OMPLENS_REPORT_ENOMEM = -2,
  OMPLENS_REPORT_EINVAL = -3,
};

/* A process's figures that every output shows alike: what its findings
 * take (mapped-but-unreferenced included) and what fixing all of them is
 * predicted to save. Zero-initialize; the first output that needs them
 * fills them (a single thread must build the first output). */
typedef struct omplens_report_figures {
  int known;
  uint64_t savings_ns;           /* the findings' savings, summed         */
  uint64_t predicted_savings_ns; /* fixing every finding (what-if model)  */
  double predicted_speedup;      /* 0.0: undefined                         */
  uint64_t unreferenced_count, unreferenced_bytes, unreferenced_ns;
  uint64_t async_ops;            /* operations of nowait regions or _async */
  int host_offload;              /* the devices are the host               */
} omplens_report_figures;

typedef struct omplens_report_process {
  const omplens_trace *trace;
  const omplens_analysis *analysis;
  omplens_annotator *annotator; /* may be NULL: then module+offset only */
  omplens_fixer *fixer;         /* may be NULL: then no suggested fixes */
  omplens_report_figures *figures; /* may be NULL: then worked out anew by
                                      each output that shows them        */
} omplens_report_process;

typedef struct omplens_report_input {
  const omplens_report_process *procs;
  size_t num_procs;
  int program_exit_status; /* from `omplens run`; -1 when unknown */
} omplens_report_input;

const char *omplens_report_strerror(int err);

/* Writes findings.json to path (replaced atomically). */
int omplens_report_write_json(const omplens_report_input *in, const char *path);
/* Writes findings.json to out, streamed: memory stays bounded by one
 * finding at a time, whatever the number of findings. */
int omplens_report_stream_json(const omplens_report_input *in, FILE *out);
/* Prints the terminal summary: counts per category and the top directives. */
/* Works out every process's figures (omplens_report_figures) where it has
 * storage for them. Call it before writing outputs on several threads. */
void omplens_report_prepare(const omplens_report_input *in);

int omplens_report_print_text(const omplens_report_input *in, FILE *out, size_t top);

/* Formats helpers shared by the renderers; buf must hold 32 bytes. */
const char *omplens_format_ns(uint64_t ns, char *buf);
const char *omplens_format_bytes(uint64_t bytes, char *buf);
/* "file:line" when known, else "symbol+0xoff", "module+0xoffset" or "0xaddress".
 * buf must hold 4096 bytes. */
const char *omplens_format_location(const omplens_report_input *in, size_t proc,
                                    uint64_t codeptr, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
