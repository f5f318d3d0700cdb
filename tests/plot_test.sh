#!/bin/sh
# plot_test.sh: `contact --plot` and `contact plot`: every SVG is well-formed XML
# (xmllint), and the numbers it draws are the answers' own:
#   - a sweep line's polyline points are (varied value, field) of every row of the
#     same sweep's CSV;
#   - a heat map has one cell per grid point, each carrying its row's values;
#   - a drop's polyline is the drop answer's "trajectory" (asked with
#     "trajectory": true), point for point; its highest and lowest heights after
#     the start are the answer's max_height and -peak_penetration, its last one
#     -final_penetration, and it starts at (0, height);
#   - energy-gaining points (a drop's energy_gain) marked apart, on a line and a grid,
#     and `contact plot -` of a drop sweep drawing its rebound.
# Numbers are compared as doubles (awk), not as text.
# Run by `make check` from the build directory (CONTACT overrides the binary).
set -u

contact=${CONTACT:-./contact}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plot_test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

[ -x "$contact" ] || { echo "no $contact" >&2; exit 99; }
# a test dependency (deploy/setup-debian.sh): its absence is an error, not a skip
command -v xmllint >/dev/null || { echo "xmllint (libxml2-utils) is missing" >&2; exit 99; }

# wellformed FILE: FILE parses as XML with an <svg> root
wellformed() {
	xmllint --noout "$1" || fail "$1 is not well-formed XML"
	[ "$(xmllint --xpath 'local-name(/*)' "$1" 2>/dev/null)" = svg ] || fail "$1: root is not svg"
}

# points FILE: the polylines' points, one "x y" pair per line
points() {
	xmllint --xpath '//*[local-name()="polyline"]/@points' "$1" 2>/dev/null |
		sed 's/ *points="\([^"]*\)"/\1\n/g' | tr ' ' '\n' | grep , | tr , ' '
}

# json_number FILE KEY: the number KEY has in the compact JSON answer in FILE
json_number() {
	sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p" "$1"
}

# ---- a sweep line: the lesson's Sweep 3, rebound over dampratio ----
printf '{"query": "drop", "vary": [{"path": "dampratio", "values": [0.1, 0.2, 0.3, 0.5, 0.7, 1, 2]}]}' \
	>"$tmp/line.json"
"$contact" sweep "$tmp/line.json" --plot "$tmp/line.svg" --field rebound >"$tmp/line.answer" ||
	fail "sweep --plot: exit $?"
"$contact" sweep "$tmp/line.json" --csv >"$tmp/line.csv" || fail "sweep --csv: exit $?"
wellformed "$tmp/line.svg"
# the answer printed is the sweep's usual one
"$contact" sweep "$tmp/line.json" | cmp -s - "$tmp/line.answer" || fail "--plot changed the answer"
points "$tmp/line.svg" >"$tmp/line.points"
# rebound is the CSV's third column (/geom/solref/1, peak_penetration, rebound, ...)
head -1 "$tmp/line.csv" | grep -q '^/geom/solref/1,peak_penetration,rebound,' ||
	fail "CSV header: $(head -1 "$tmp/line.csv")"
tail -n +2 "$tmp/line.csv" | cut -d, -f1,3 | tr , ' ' >"$tmp/line.expected"
awk 'NR == FNR { x[NR] = $1; y[NR] = $2; n = NR; next }
	{ m++; if ($1 + 0 != x[m] + 0 || $2 + 0 != y[m] + 0) bad = bad " " m }
	END { if (m != n || bad != "") { print "points differ from the CSV at" bad " (" m " of " n ")"; exit 1 } }' \
	"$tmp/line.expected" "$tmp/line.points" || fail "line: polyline != CSV"
grep -q '>drop: rebound (m)<' "$tmp/line.svg" || fail "line: no title with the unit"
# physical names and units on the axes, as the dashboard writes them
grep -q '>dampratio</text>' "$tmp/line.svg" || fail "line: no x axis title dampratio"
grep -q 'rotate(-90[^>]*>rebound (m)</text>' "$tmp/line.svg" || fail "line: no y axis title rebound (m)"
grep -q '>/geom/solref/1<' "$tmp/line.svg" && fail "line: a JSON Pointer as an axis title"

# ---- `contact plot` of the saved answer draws the same document ----
"$contact" plot "$tmp/line.answer" --field rebound >"$tmp/replot.svg" || fail "plot: exit $?"
cmp -s "$tmp/replot.svg" "$tmp/line.svg" || fail "contact plot differs from sweep --plot"
"$contact" plot --field rebound <"$tmp/line.answer" | cmp -s - "$tmp/line.svg" ||
	fail "contact plot from stdin differs"

# ---- a grid: a heat map of growth over timeconst x dampratio ----
printf '%s' '{"query": "stability", "vary": [{"path": "timeconst", "values": [0.002, 0.01, 0.02]},
	{"path": "dampratio", "values": [0.05, 0.3, 1, 2]}]}' >"$tmp/grid.json"
"$contact" sweep "$tmp/grid.json" --plot "$tmp/grid.svg" --field growth >/dev/null ||
	fail "grid --plot: exit $?"
"$contact" sweep "$tmp/grid.json" --csv >"$tmp/grid.csv" || fail "grid --csv: exit $?"
wellformed "$tmp/grid.svg"
head -1 "$tmp/grid.csv" | grep -q '^/solref/0,/solref/1,growth,' ||
	fail "grid CSV header: $(head -1 "$tmp/grid.csv")"
grep -o 'data-x="[^"]*" data-y="[^"]*" data-value="[^"]*"' "$tmp/grid.svg" |
	sed 's/data-[a-z]*="\([^"]*\)"/\1/g' >"$tmp/grid.cells"
[ "$(wc -l <"$tmp/grid.cells")" -eq 12 ] || fail "grid: $(wc -l <"$tmp/grid.cells") cells, not 12"
grep -q '>dampratio</text>' "$tmp/grid.svg" || fail "grid: no x axis title dampratio"
grep -q 'rotate(-90[^>]*>timeconst (s)</text>' "$tmp/grid.svg" || fail "grid: no y axis title timeconst (s)"
grep -q 'class="scale-title">growth per step</text>' "$tmp/grid.svg" || fail "grid: no colour bar title"
# each cell (x = dampratio, y = timeconst) holds the CSV's growth of that point
awk -F, 'NR == FNR { if (FNR > 1) g[($2 + 0) " " ($1 + 0)] = $3; next }
	{ k = ($1 + 0) " " ($2 + 0); if (!(k in g) || g[k] + 0 != $3 + 0) { print "cell " k ": " $3; bad = 1 } }
	END { exit bad }' "$tmp/grid.csv" FS=' ' "$tmp/grid.cells" || fail "grid: cells != CSV"

# ---- a hold line: creep against grip force, with their units ----
printf '{"query": "hold", "base": {"duration": 0.1}, "vary": [{"path": "grip_force", "values": [2, 5, 10]}]}' |
	"$contact" sweep - --plot "$tmp/hold.svg" >/dev/null || fail "hold sweep --plot: exit $?"
wellformed "$tmp/hold.svg"
grep -q '>grip force (N)</text>' "$tmp/hold.svg" || fail "hold: no x axis title grip force (N)"
grep -q 'rotate(-90[^>]*>creep velocity (m/s)</text>' "$tmp/hold.svg" ||
	fail "hold: no y axis title creep velocity (m/s)"

# trajectory FILE: the t and z of the drop answer in FILE, one "t z" pair per line
trajectory() {
	sed -n 's/.*"trajectory":{"t":\[\([^]]*\)\],"z":\[\([^]]*\)\]}.*/\1;\2/p' "$1" |
		awk -F';' '{ n = split($1, t, ","); split($2, z, ","); for (i = 1; i <= n; i++) print t[i], z[i] }'
}

# ---- a drop trajectory (the lesson's cube): the answer's own ----
"$contact" drop --plot "$tmp/drop.svg" >"$tmp/drop.answer" </dev/null || fail "drop --plot: exit $?"
grep -q '"trajectory"' "$tmp/drop.answer" && fail "drop --plot printed the trajectory it did not ask for"
printf '{"trajectory": true}' | "$contact" drop - >"$tmp/drop.traced" || fail "drop trajectory: exit $?"
wellformed "$tmp/drop.svg"
grep -q '>time (s)</text>' "$tmp/drop.svg" || fail "drop: no x axis title time (s)"
grep -q 'rotate(-90[^>]*>bottom height (m)</text>' "$tmp/drop.svg" || fail "drop: no y axis title"
points "$tmp/drop.svg" >"$tmp/drop.points"
trajectory "$tmp/drop.traced" >"$tmp/drop.expected"
[ -s "$tmp/drop.expected" ] || fail "no trajectory in $(head -c 200 "$tmp/drop.traced")"
awk 'NR == FNR { t[NR] = $1; z[NR] = $2; n = NR; next }
	{ m++; if ($1 + 0 != t[m] + 0 || $2 + 0 != z[m] + 0) bad = bad " " m }
	END { if (m != n || bad != "") { print "points differ from the trajectory at" bad " (" m " of " n ")"; exit 1 } }' \
	"$tmp/drop.expected" "$tmp/drop.points" || fail "drop: polyline != trajectory"
n=$(wc -l <"$tmp/drop.points")
[ "$n" -gt 100 ] && [ "$n" -le 2000 ] || fail "drop: $n points, expected 100 to 2000"
max=$(json_number "$tmp/drop.answer" max_height)
peak=$(json_number "$tmp/drop.answer" peak_penetration)
final=$(json_number "$tmp/drop.answer" final_penetration)
awk -v max="$max" -v peak="$peak" -v final="$final" '
	NR == 1 { if ($1 + 0 != 0 || $2 + 0 != 0.1) { print "start " $0; bad = 1 }; next }
	NR == 2 { hi = $2; lo = $2 }
	{ if ($2 > hi) hi = $2; if ($2 < lo) lo = $2; last = $2; t = $1 }
	END {
		if (hi != max + 0) { print "highest " hi " != max_height " max; bad = 1 }
		if (lo != -peak) { print "lowest " lo " != -peak_penetration " peak; bad = 1 }
		if (last != -final) { print "last " last " != -final_penetration " final; bad = 1 }
		if (t != 2) { print "ends at t = " t ", not 2 s"; bad = 1 }
		exit bad
	}' "$tmp/drop.points" || fail "drop: trajectory != answer"
# a bouncing sphere (Break it 2) keeps its extremes through the decimation too
printf '{"body": {"shape": "sphere"}, "geom": {"solref": [0.02, 0.07]}, "duration": 10}' \
	>"$tmp/bounce.json"
"$contact" drop "$tmp/bounce.json" --plot "$tmp/bounce.svg" >"$tmp/bounce.answer" </dev/null ||
	fail "bounce --plot: exit $?"
wellformed "$tmp/bounce.svg"
points "$tmp/bounce.svg" >"$tmp/bounce.points"
[ "$(wc -l <"$tmp/bounce.points")" -le 2000 ] || fail "bounce: not decimated"
max=$(json_number "$tmp/bounce.answer" max_height)
awk -v max="$max" 'NR > 1 && (NR == 2 || $2 > hi) { hi = $2 } END { exit hi != max + 0 }' \
	"$tmp/bounce.points" || fail "bounce: highest drawn height != max_height $max"

# ---- energy-gaining points: the README's headline sweep starts at one ----
# docs/examples/sweep-req.json: the 5 cm sphere from 0.1 m at eleven dampratios; at 0.05
# the contact gains energy (a 0.31 m rebound from 0.1 m). `contact plot -` of the answer
# piped in draws the rebound (the drop's headline field, as the README's text says), with
# the gaining point marked apart from the line and a legend saying why.
"$contact" sweep "$srcdir/docs/examples/sweep-req.json" --csv >"$tmp/gain.csv" || fail "gain --csv: exit $?"
"$contact" sweep "$srcdir/docs/examples/sweep-req.json" | "$contact" plot - >"$tmp/gain.svg" ||
	fail "sweep | plot -: exit $?"
wellformed "$tmp/gain.svg"
grep -qF '>drop: rebound (m)</text>' "$tmp/gain.svg" || fail "plot - does not draw the rebound"
# column FILE NAME: the index of CSV column NAME in FILE's header
column() {
	head -1 "$1" | tr , '\n' | grep -nx "$2" | cut -d: -f1
}
# the rows that gain energy, as (dampratio, rebound)
g=$(column "$tmp/gain.csv" energy_gain)
r=$(column "$tmp/gain.csv" rebound)
[ -n "$g" ] && [ -n "$r" ] || fail "gain CSV header: $(head -1 "$tmp/gain.csv")"
tail -n +2 "$tmp/gain.csv" | awk -F, -v g="${g:-1}" -v r="${r:-1}" '$g == "true" {print $1, $r}' >"$tmp/gain.expected"
[ -s "$tmp/gain.expected" ] || fail "the example sweep has no energy-gaining row"
xmllint --xpath '//*[local-name()="circle"][@class="energy-gain"]' "$tmp/gain.svg" 2>/dev/null |
	sed 's/<circle/\n<circle/g' | sed -n 's/.*data-x="\([^"]*\)" data-y="\([^"]*\)".*/\1 \2/p' >"$tmp/gain.marked"
awk 'NR == FNR { x[NR] = $1; y[NR] = $2; n = NR; next }
	{ m++; if ($1 + 0 != x[m] + 0 || $2 + 0 != y[m] + 0) bad = 1 }
	END { exit (m != n || bad) }' "$tmp/gain.expected" "$tmp/gain.marked" ||
	fail "the marked points are not the energy-gaining rows: $(cat "$tmp/gain.marked")"
grep -qF 'class="legend-energy-gain"' "$tmp/gain.svg" || fail "no legend for the energy-gaining points"
# the line leaves them out: no polyline point at a gaining row's dampratio
points "$tmp/gain.svg" >"$tmp/gain.points"
awk 'NR == FNR { g[$1 + 0] = 1; next } ($1 + 0) in g { bad = 1 } END { exit bad }' \
	"$tmp/gain.expected" "$tmp/gain.points" || fail "the line runs through an energy-gaining point"
[ "$(wc -l <"$tmp/gain.points")" -eq $(($(tail -n +2 "$tmp/gain.csv" | wc -l) - $(wc -l <"$tmp/gain.expected"))) ] ||
	fail "the line does not hold every other row"
# a grid: the gaining cells hatched and left out of the colour scale, whose top is the
# largest rebound of the other cells
printf '{"query": "drop", "base": {"body": {"shape": "sphere", "size": 0.05, "mass": 1}, "height": 0.1, "duration": 1}, "vary": [{"path": "dampratio", "values": [0.05, 0.1, 0.3, 1]}, {"path": "timeconst", "values": [0.005, 0.01, 0.02, 0.04]}]}' \
	>"$tmp/gaingrid.json"
"$contact" sweep "$tmp/gaingrid.json" --csv >"$tmp/gaingrid.csv" || fail "gain grid --csv: exit $?"
"$contact" sweep "$tmp/gaingrid.json" --plot "$tmp/gaingrid.svg" >/dev/null || fail "gain grid --plot: exit $?"
wellformed "$tmp/gaingrid.svg"
g=$(column "$tmp/gaingrid.csv" energy_gain)
r=$(column "$tmp/gaingrid.csv" rebound)
gaining=$(tail -n +2 "$tmp/gaingrid.csv" | awk -F, -v g="${g:-1}" '$g == "true"' | wc -l)
top=$(tail -n +2 "$tmp/gaingrid.csv" |
	awk -F, -v g="${g:-1}" -v r="${r:-1}" '$g != "true" && (!n++ || $r > hi) { hi = $r } END { printf "%g", hi }')
[ "$gaining" -gt 0 ] || fail "the gain grid has no energy-gaining cell"
[ "$(grep -c 'data-energy-gain="true"' "$tmp/gaingrid.svg")" -eq "$gaining" ] ||
	fail "the grid marks $(grep -c 'data-energy-gain="true"' "$tmp/gaingrid.svg") cells, not $gaining"
grep -qF ">$top</text>" "$tmp/gaingrid.svg" || fail "the colour scale's top is not $top, the largest other rebound"
grep -qF 'class="legend-energy-gain"' "$tmp/gaingrid.svg" || fail "no legend for the energy-gaining cells"

# ---- refusals ----
"$contact" rest --plot "$tmp/x.svg" </dev/null >/dev/null 2>&1
[ $? -eq 1 ] || fail "rest --plot: not a usage error"
"$contact" drop --field rebound --plot "$tmp/x.svg" </dev/null >/dev/null 2>&1
[ $? -eq 1 ] || fail "drop --field: not a usage error"
"$contact" plot "$tmp/line.answer" --field no_such >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "plot --field no_such: not status 2"
grep -qF '"error":"bad_value"' "$tmp/err" || fail "plot --field no_such: $(cat "$tmp/err")"
# a saved drop answer with its trajectory draws the same; one without has nothing to draw
"$contact" plot "$tmp/drop.traced" | cmp -s - "$tmp/drop.svg" || fail "plot of the drop answer differs"
"$contact" plot "$tmp/drop.answer" >/dev/null 2>&1
[ $? -eq 2 ] || fail "plot of a drop answer without trajectory: not status 2"

if [ "$failures" -ne 0 ]; then
	echo "$failures failure(s)" >&2
	exit 1
fi
echo "plot_test: all passed"
