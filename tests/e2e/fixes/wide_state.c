/* wide_state.c - fixture of the fix proof tests: a solver that keeps its
 * whole state, 40 arrays, in one target construct called every step, so
 * every array makes a round trip and a reallocation each step. The wrap
 * keeps all 40 on the device with one `target data` around the loop; it
 * took 32 items at most, and left the other 8 to recipes. */
#include <stdio.h>

enum { LEN = 256, STEPS = 6 };

static double s0[LEN];
static double s1[LEN];
static double s2[LEN];
static double s3[LEN];
static double s4[LEN];
static double s5[LEN];
static double s6[LEN];
static double s7[LEN];
static double s8[LEN];
static double s9[LEN];
static double s10[LEN];
static double s11[LEN];
static double s12[LEN];
static double s13[LEN];
static double s14[LEN];
static double s15[LEN];
static double s16[LEN];
static double s17[LEN];
static double s18[LEN];
static double s19[LEN];
static double s20[LEN];
static double s21[LEN];
static double s22[LEN];
static double s23[LEN];
static double s24[LEN];
static double s25[LEN];
static double s26[LEN];
static double s27[LEN];
static double s28[LEN];
static double s29[LEN];
static double s30[LEN];
static double s31[LEN];
static double s32[LEN];
static double s33[LEN];
static double s34[LEN];
static double s35[LEN];
static double s36[LEN];
static double s37[LEN];
static double s38[LEN];
static double s39[LEN];

static void init(void) {
  for (int i = 0; i < LEN; i++) {
    s0[i] = 1.0 * i + 0;
    s1[i] = 2.0 * i + 1;
    s2[i] = 3.0 * i + 2;
    s3[i] = 4.0 * i + 3;
    s4[i] = 5.0 * i + 4;
    s5[i] = 6.0 * i + 5;
    s6[i] = 7.0 * i + 6;
    s7[i] = 8.0 * i + 7;
    s8[i] = 9.0 * i + 8;
    s9[i] = 10.0 * i + 9;
    s10[i] = 11.0 * i + 10;
    s11[i] = 12.0 * i + 11;
    s12[i] = 13.0 * i + 12;
    s13[i] = 14.0 * i + 13;
    s14[i] = 15.0 * i + 14;
    s15[i] = 16.0 * i + 15;
    s16[i] = 17.0 * i + 16;
    s17[i] = 18.0 * i + 17;
    s18[i] = 19.0 * i + 18;
    s19[i] = 20.0 * i + 19;
    s20[i] = 21.0 * i + 20;
    s21[i] = 22.0 * i + 21;
    s22[i] = 23.0 * i + 22;
    s23[i] = 24.0 * i + 23;
    s24[i] = 25.0 * i + 24;
    s25[i] = 26.0 * i + 25;
    s26[i] = 27.0 * i + 26;
    s27[i] = 28.0 * i + 27;
    s28[i] = 29.0 * i + 28;
    s29[i] = 30.0 * i + 29;
    s30[i] = 31.0 * i + 30;
    s31[i] = 32.0 * i + 31;
    s32[i] = 33.0 * i + 32;
    s33[i] = 34.0 * i + 33;
    s34[i] = 35.0 * i + 34;
    s35[i] = 36.0 * i + 35;
    s36[i] = 37.0 * i + 36;
    s37[i] = 38.0 * i + 37;
    s38[i] = 39.0 * i + 38;
    s39[i] = 40.0 * i + 39;
  }
}

int main(void) {
  init();
  for (int step = 0; step < STEPS; step++) {
#pragma omp target teams distribute parallel for map(tofrom: s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15, s16, s17, s18, s19, s20, s21, s22, s23, s24, s25, s26, s27, s28, s29, s30, s31, s32, s33, s34, s35, s36, s37, s38, s39)
    for (int i = 0; i < LEN; i++) {
      s0[i] = 0.5 * s0[i] + 0.25 * s1[i] + 0;
      s1[i] = 0.5 * s1[i] + 0.25 * s2[i] + 1;
      s2[i] = 0.5 * s2[i] + 0.25 * s3[i] + 2;
      s3[i] = 0.5 * s3[i] + 0.25 * s4[i] + 3;
      s4[i] = 0.5 * s4[i] + 0.25 * s5[i] + 4;
      s5[i] = 0.5 * s5[i] + 0.25 * s6[i] + 5;
      s6[i] = 0.5 * s6[i] + 0.25 * s7[i] + 6;
      s7[i] = 0.5 * s7[i] + 0.25 * s8[i] + 7;
      s8[i] = 0.5 * s8[i] + 0.25 * s9[i] + 8;
      s9[i] = 0.5 * s9[i] + 0.25 * s10[i] + 9;
      s10[i] = 0.5 * s10[i] + 0.25 * s11[i] + 10;
      s11[i] = 0.5 * s11[i] + 0.25 * s12[i] + 11;
      s12[i] = 0.5 * s12[i] + 0.25 * s13[i] + 12;
      s13[i] = 0.5 * s13[i] + 0.25 * s14[i] + 13;
      s14[i] = 0.5 * s14[i] + 0.25 * s15[i] + 14;
      s15[i] = 0.5 * s15[i] + 0.25 * s16[i] + 15;
      s16[i] = 0.5 * s16[i] + 0.25 * s17[i] + 16;
      s17[i] = 0.5 * s17[i] + 0.25 * s18[i] + 17;
      s18[i] = 0.5 * s18[i] + 0.25 * s19[i] + 18;
      s19[i] = 0.5 * s19[i] + 0.25 * s20[i] + 19;
      s20[i] = 0.5 * s20[i] + 0.25 * s21[i] + 20;
      s21[i] = 0.5 * s21[i] + 0.25 * s22[i] + 21;
      s22[i] = 0.5 * s22[i] + 0.25 * s23[i] + 22;
      s23[i] = 0.5 * s23[i] + 0.25 * s24[i] + 23;
      s24[i] = 0.5 * s24[i] + 0.25 * s25[i] + 24;
      s25[i] = 0.5 * s25[i] + 0.25 * s26[i] + 25;
      s26[i] = 0.5 * s26[i] + 0.25 * s27[i] + 26;
      s27[i] = 0.5 * s27[i] + 0.25 * s28[i] + 27;
      s28[i] = 0.5 * s28[i] + 0.25 * s29[i] + 28;
      s29[i] = 0.5 * s29[i] + 0.25 * s30[i] + 29;
      s30[i] = 0.5 * s30[i] + 0.25 * s31[i] + 30;
      s31[i] = 0.5 * s31[i] + 0.25 * s32[i] + 31;
      s32[i] = 0.5 * s32[i] + 0.25 * s33[i] + 32;
      s33[i] = 0.5 * s33[i] + 0.25 * s34[i] + 33;
      s34[i] = 0.5 * s34[i] + 0.25 * s35[i] + 34;
      s35[i] = 0.5 * s35[i] + 0.25 * s36[i] + 35;
      s36[i] = 0.5 * s36[i] + 0.25 * s37[i] + 36;
      s37[i] = 0.5 * s37[i] + 0.25 * s38[i] + 37;
      s38[i] = 0.5 * s38[i] + 0.25 * s39[i] + 38;
      s39[i] = 0.5 * s39[i] + 0.25 * s0[i] + 39;
    }
  }
  double sum = 0;
  for (int i = 0; i < LEN; i++) {
    sum += s0[i];
    sum += s1[i];
    sum += s2[i];
    sum += s3[i];
    sum += s4[i];
    sum += s5[i];
    sum += s6[i];
    sum += s7[i];
    sum += s8[i];
    sum += s9[i];
    sum += s10[i];
    sum += s11[i];
    sum += s12[i];
    sum += s13[i];
    sum += s14[i];
    sum += s15[i];
    sum += s16[i];
    sum += s17[i];
    sum += s18[i];
    sum += s19[i];
    sum += s20[i];
    sum += s21[i];
    sum += s22[i];
    sum += s23[i];
    sum += s24[i];
    sum += s25[i];
    sum += s26[i];
    sum += s27[i];
    sum += s28[i];
    sum += s29[i];
    sum += s30[i];
    sum += s31[i];
    sum += s32[i];
    sum += s33[i];
    sum += s34[i];
    sum += s35[i];
    sum += s36[i];
    sum += s37[i];
    sum += s38[i];
    sum += s39[i];
  }
  printf("wide_state: %.6e\n", sum);
  return 0;
}
