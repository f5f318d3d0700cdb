#!/bin/sh
# www-page.sh FRAME PAGE: print the dashboard page PAGE inside FRAME, the head and
# navigation every page shares. PAGE's first line is its title ("<title>Sweep</title>"),
# the rest its own part (its <main> and scripts); FRAME's "@TITLE@" takes the title, its
# line "@PAGE@" the page's part, and its navigation link to PAGE's file name is marked
# as the current page.
set -eu
[ $# -eq 2 ] || { echo "usage: www-page.sh FRAME PAGE" >&2; exit 1; }
awk -v name="$(basename "$2")" '
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
END {
	if (failed)
		exit 1
	link = "<a href=\"" name "\">"
	for (i = 1; i <= lines; i++) {
		line = frame[i]
		if (line == "@PAGE@") {
			for (j = 1; j <= owned; j++)
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
