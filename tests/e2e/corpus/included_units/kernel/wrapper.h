#pragma once

enum { STATES = 4096 };

// Runs steps of the integrator from the initial state into state; returns
// the sum of the final state.
double integrate(double *state, int steps);
