#!/bin/sh
# www-page.sh FRAME PAGE: print the dashboard page PAGE inside FRAME, the head, navigation
# and <main> every page shares. PAGE's first line is its title ("<title>Sweep</title>"),
# the rest its own part: its <main>'s content, then its <script> lines. FRAME's "@TITLE@"
# takes the title, its line "@PAGE@" the content and its line "@SCRIPTS@" the scripts,
# and its navigation link to PAGE's file name is marked as the current page.
#
# FRAME may end with fragments that several pages hold: each starts with a line "@@NAME"
# and runs to the next or the end. A line "@NAME@" or "@NAME TEXT@" of the content is
# fragment NAME, indented as that line is, with TEXT for its "@TEXT@"; an unknown
# fragment stops the build.
set -eu
[ $# -eq 2 ] || { echo "usage: www-page.sh FRAME PAGE" >&2; exit 1; }
awk -v name="$(basename "$2")" '
FNR == NR && /^@@[a-z0-9-]+$/ { fragment = substr($0, 3); next }
FNR == NR && fragment != "" { part[fragment, ++parts[fragment]] = $0; next }
FNR == NR { frame[++lines] = $0; next }
FNR == 1 {
	if ($0 !~ /^<title>[^<]+<\/title>$/) {
		print "www-page.sh: " FILENAME ": the first line must be <title>...</title>" > "/dev/stderr"
		failed = 1
		exit 1
	}
	title = substr($0, 8, length($0) - 15)
	next
}
{ own[++owned] = $0 }
# line, or the fragment it names
function expand(line,    pad, word, text, sp, k, out) {
	if (line !~ /^ *@[a-z0-9-]+( [^@]*)?@$/)
		return line
	pad = substr(line, 1, index(line, "@") - 1)
	word = substr(line, length(pad) + 2, length(line) - length(pad) - 2)
	text = ""
	if ((sp = index(word, " ")) > 0) {
		text = substr(word, sp + 1)
		word = substr(word, 1, sp - 1)
	}
	if (!(word in parts)) {
		print "www-page.sh: " FILENAME ": no fragment " word " in the frame" > "/dev/stderr"
		failed = 1
		exit 1
	}
	out = ""
	for (k = 1; k <= parts[word]; k++) {
		line = part[word, k]
		gsub(/@TEXT@/, text, line)
		out = out (k > 1 ? "\n" : "") pad line
	}
	return out
}
END {
	if (failed)
		exit 1
	# the scripts: the last lines of the part, each a <script> element
	for (first = owned + 1; first > 1 && own[first - 1] ~ /^<script[ >].*<\/script>$/; first--)
		;
	link = "<a href=\"" name "\">"
	for (i = 1; i <= lines; i++) {
		line = frame[i]
		if (line == "@PAGE@") {
			for (j = 1; j < first; j++)
				print expand(own[j])
			continue
		}
		if (line == "@SCRIPTS@") {
			for (j = first; j <= owned; j++)
				print own[j]
			continue
		}
		if ((at = index(line, "@TITLE@")) > 0)
			line = substr(line, 1, at - 1) title substr(line, at + 7)
		if ((at = index(line, link)) > 0)
			line = substr(line, 1, at + length(link) - 2) " aria-current=\"page\">" \
			    substr(line, at + length(link))
		print line
	}
}' "$1" "$2"
