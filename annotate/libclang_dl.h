/* libclang, loaded on first need. omplens links no libclang: dlopen() of
 * libclang (and through it libLLVM, z3, icu...) costs ~60 MB of resident
 * memory and start-up time, which an analysis that parses no source should
 * not pay. The directive index (directives_ast.c) and the fixer
 * (fix/fixes_ast.c) call libclang through the table below; its types still
 * come from <clang-c/Index.h>.
 *
 * Which library: $OMPLENS_LIBCLANG when set (a path, or a name for the
 * dynamic loader's search), else the SONAME of the libclang found at build
 * time, else that library's absolute path. Sanitized builds also link it,
 * for LeakSanitizer's sake (annotate/directives.cmake says why). */
#ifndef OMPLENS_LIBCLANG_DL_H
#define OMPLENS_LIBCLANG_DL_H

#include <clang-c/Index.h>

/* Every libclang function omplens calls, without its clang_ prefix. The
 * table's fields and the symbols looked up are both made from this list. */
#define OMPLENS_LIBCLANG_FUNCTIONS(X)                                          \
  /* index and translation units */                                           \
  X(createIndex) X(disposeIndex) X(parseTranslationUnit2)                      \
  X(disposeTranslationUnit) X(getTranslationUnitCursor) X(visitChildren)      \
  X(getInclusions) X(getSkippedRanges) X(disposeSourceRangeList)              \
  /* diagnostics and strings */                                               \
  X(getNumDiagnostics) X(getDiagnostic) X(getDiagnosticSeverity)              \
  X(getDiagnosticLocation) X(formatDiagnostic) X(disposeDiagnostic)           \
  X(getCString) X(disposeString)                                              \
  /* cursors */                                                               \
  X(getCursorKind) X(getCursorSpelling) X(getCursorExtent)                    \
  X(getCursorLocation) X(getCursorReferenced) X(getCursorSemanticParent)      \
  X(getCursorType) X(isCursorDefinition) X(Cursor_isNull)                     \
  X(Cursor_getStorageClass) X(getCursorBinaryOperatorKind)                    \
  X(getCursorUnaryOperatorKind) X(isExpression) X(isStatement)                \
  X(isPreprocessing) X(Cursor_getNumArguments) X(Cursor_getArgument)         \
  X(getNullCursor)                                                            \
  /* types */                                                                 \
  X(getCanonicalType) X(getPointeeType) X(getArrayElementType)                \
  /* locations and files */                                                   \
  X(getRangeStart) X(getRangeEnd) X(getExpansionLocation)                     \
  X(getSpellingLocation) X(getFileLocation) X(getLocationForOffset)           \
  X(Location_isFromMainFile) X(Location_isInSystemHeader) X(getFile)          \
  X(getFileName) X(File_tryGetRealPathName) X(File_isEqual)                   \
  X(getFileContents)

/* lc->getCursorKind(c) calls clang_getCursorKind(c), with the type that
 * <clang-c/Index.h> declares. */
typedef struct omplens_libclang {
#define OMPLENS_LIBCLANG__FIELD(name) __typeof__(clang_##name) *name;
  OMPLENS_LIBCLANG_FUNCTIONS(OMPLENS_LIBCLANG__FIELD)
#undef OMPLENS_LIBCLANG__FIELD
} omplens_libclang;

/* Loads libclang and resolves every function, on the first call only (safe
 * from several threads). Returns the table, valid until the process exits
 * (libclang is never unloaded), or NULL when libclang cannot be loaded or
 * lacks a function; omplens_libclang_strerror() then says why. */
const omplens_libclang *omplens_libclang_load(void);

/* Why omplens_libclang_load() returned NULL, in one line ("" before the
 * first call or after a success). Static storage. */
const char *omplens_libclang_strerror(void);

#endif
