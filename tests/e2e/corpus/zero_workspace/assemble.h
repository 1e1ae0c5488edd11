#ifndef ASSEMBLE_H
#define ASSEMBLE_H

/* Scratch arrays owned by the caller, zeroed and mapped by each pass. */
typedef struct {
  double *flux;
  double *grad;
  int *count;
} Workspace;

/* One assembly pass over u into out, using the workspaces on the device. */
void assemble(const double *u, double *out, Workspace *w, int n, int pass);

#endif
