#!/bin/sh
# Writes the man page omplens.1 from the --help texts of a built omplens, so
# that the two cannot disagree: the global help (NAME, SYNOPSIS, DESCRIPTION,
# one section per heading), then one section per command that has a help of
# its own. Run at build time (cli/CMakeLists.txt); needs only sh and awk.
# usage: man_page.sh OMPLENS OUTPUT
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 OMPLENS OUTPUT" >&2
  exit 64
fi
omplens=$1 out=$2
tmp=$out.tmp
mkdir -p "$(dirname "$out")"
"$omplens" --help >"$tmp.help"

# Help text on stdin -> roff. LEVEL SH: the global help, whose headings are
# sections; SS: a command's, whose headings are subsections. Layout read:
# "Usage: " and its indented lines; "Heading:" alone on a line; items
# indented 1-7 columns (a term, then its text) whose text goes on at 8 or
# more; paragraphs of unindented lines, where a paragraph that opens with a
# label of up to three words ("Exit codes: ...") starts a (sub)section.
to_roff() {
  awk -v level="$1" '
    function esc(s) {
      gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s)
      gsub(/\047/, "\\(aq", s); gsub(/`/, "\\(ga", s)
      return s ~ /^\./ ? "\\&" s : s
    }
    function strip(s) { sub(/^ +/, "", s); return s }
    function indent(s) { return match(s, /^ +/) ? RLENGTH : 0 }
    function heading(t) {
      t = esc(t)
      if (level == "SH") printf ".SH \"%s\"\n", toupper(t)
      else printf ".SS \"%s\"\n", t
      in_list = 0; para_start = 1; need_pp = 0
    }
    BEGIN { para_start = 1 }
    usage && /^ +[^ ]/ { print esc(strip($0)); next }
    usage { print ".fi"; usage = 0 }
    /^Usage: / {
      if (level == "SH") print ".SH SYNOPSIS"
      print ".nf"; print esc(substr($0, 8)); usage = 1; next
    }
    /^$/ { para_start = 1; need_pp = 1; next }
    /^[A-Z][A-Za-z ]*:$/ { heading(substr($0, 1, length($0) - 1)); next }
    /^ +[^ ]/ && indent($0) < 8 {
      # The term: a name, then options and upper-case argument names, up to
      # two spaces or the first other word ("--outputs LIST which files").
      rest = strip($0); match(rest, /^[^ ]+/); item = substr(rest, 1, RLENGTH)
      rest = substr(rest, RLENGTH + 1)
      while (match(rest, /^ (-[^ ]*|[A-Z_]+,?)( |$)/)) {
        match(rest, /^ [^ ]+/); item = item substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1)
      }
      print ".TP"; print "\\fB" esc(item) "\\fR"
      if (strip(rest) != "") print esc(strip(rest))
      in_list = 1; para_start = 0; need_pp = 0; next
    }
    in_list && /^ +[^ ]/ { print esc(strip($0)); next }
    {
      line = strip($0)
      if (para_start && match(line, /^[A-Z][A-Za-z]*( [A-Za-z]+)?( [A-Za-z]+)?: /)) {
        heading(substr(line, 1, RLENGTH - 2)); line = substr(line, RLENGTH + 1)
      } else if (level == "SH" && !described) {
        print ".SH DESCRIPTION"
      } else if (need_pp || in_list) {
        print ".PP"
      }
      described = 1; in_list = 0; para_start = 0; need_pp = 0
      print esc(line)
    }
    END { if (usage) print ".fi" }'
}

{
  echo '.\" Made at build time by cli/man_page.sh from omplens --help: edit the'
  echo '.\" help texts in cli/, not this file.'
  printf '.TH OMPLENS 1 "" "%s" "User Commands"\n' "$("$omplens" --version)"
  echo ".nh" # no hyphens inside option and variable names
  echo ".ad l"
  echo ".SH NAME"
  # The first sentence of the description, up to its first colon or period.
  awk 'NF && !/^Usage:/ && !/^ / {
         sub(/[:.].*/, ""); gsub(/-/, "\\-")
         print "omplens \\- " tolower(substr($0, 1, 1)) substr($0, 2); exit }' "$tmp.help"
  to_roff SH <"$tmp.help"
  for cmd in $(awk '/^Commands:$/ { on = 1; next } on && /^$/ { exit }
                    on && /^  [a-z]/ { print $1 }' "$tmp.help"); do
    "$omplens" "$cmd" --help >"$tmp.cmd" 2>/dev/null || continue
    cmp -s "$tmp.help" "$tmp.cmd" && continue # no help of its own
    printf '.SH "OMPLENS %s"\n' "$(echo "$cmd" | tr a-z A-Z)"
    to_roff SS <"$tmp.cmd"
  done
} >"$tmp"
mv "$tmp" "$out"
rm -f "$tmp.help" "$tmp.cmd"
