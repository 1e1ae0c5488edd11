/* Fixture: pragma macros defined in a header, for macro_user.c. */
#define OMP(x) _Pragma(#x)
#define OMP_STR(x) #x
#define OMP_DEEP(x) _Pragma(OMP_STR(x))
