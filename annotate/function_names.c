/* Function names as DWARF and the runtime spell them, reduced to what the
 * source calls the function: its bare name. */
#include <stdbool.h>
#include <string.h>

#include "function_names.h"

static bool ident_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '$';
}

/* Where the name "operator..." ends; i is just past "operator". */
static size_t operator_end(const char *f, size_t i)
{
  while (f[i] == ' ')
    i++;
  if ((f[i] == '(' && f[i + 1] == ')') || (f[i] == '[' && f[i + 1] == ']'))
    return i + 2;
  size_t j = i;
  while (f[j] != '\0' && strchr("+-*/%^&|~!=<>,", f[j]) != NULL)
    j++;
  if (j == i) /* a conversion: "operator double" */
    j += strcspn(f + j, "(<");
  return j;
}

static bool operator_at(const char *f, size_t i)
{
  return strncmp(f + i, "operator", 8) == 0 && !ident_char(f[i + 8]) &&
         (i == 0 || f[i - 1] == ':' || f[i - 1] == ' ');
}

bool omplens_bare_function_name(const char *f, const char **begin, size_t *len)
{
  if (f == NULL || f[0] == '\0' || strncmp(f, "_Z", 2) == 0 ||
      strncmp(f, "__omp_offloading_", 17) == 0 || strstr(f, ".omp_outlined") != NULL)
    return false;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; f[i] != '\0'; i++) {
    if (depth == 0 && operator_at(f, i)) {
      *begin = f + i;
      *len = operator_end(f, i + 8) - i;
      return true;
    }
    if (f[i] == '<' || f[i] == '(')
      depth++;
    else if ((f[i] == '>' || f[i] == ')') && depth > 0)
      depth--;
    else if (depth == 0 && f[i] == ':' && f[i + 1] == ':')
      start = i + 2;
  }
  *begin = f + start;
  *len = strcspn(f + start, "(<");
  return *len > 0;
}

