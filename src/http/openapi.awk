# openapi.awk: assemble the served OpenAPI document from its parts (src/http/openapi/*.json)
# and the lists the endpoint table decides (openapi-lists, a file of lines "NAME<TAB>value...").
#
#   awk -v lists=FILE -f openapi.awk PART.json...
#
# Each part is a JSON object laid out as the served document is (two spaces a level), holding
# any of the document's members: openapi, info and servers (the first part), paths, and
# components' schemas and securitySchemes. The document is the parts' top-level members, then
# every part's paths in the parts' order, then every part's schemas, then every part's
# security schemes; each member's lines are copied as written, so the document reads byte
# for byte as its parts do.
#
# In a part, a value "@NAME@" is the list NAME as a JSON array of strings, and "@NAME or@"
# inside a string is the list as prose ("a, b or c"; a one-value list's is its value:
# "@headline.drop or@" is "rebound"). "@aliases untold@" inside a string is the sweepable
# kinds' aliases (lists aliases.KIND) that the string does not already name with their
# pointers, as prose (nothing when it names them all): a new kind's aliases are
# documented in sweep's and find's path without an edit there. An unknown list, or a
# line the layout does not allow, stops the build naming the part and line.

function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg >"/dev/stderr"
	failed = 1
	exit 1
}

function indent_of(s) {
	match(s, /^ */)
	return RLENGTH
}

function spaces(n,    s) {
	s = ""
	while (n-- > 0)
		s = s " "
	return s
}

# The list NAME as prose: "a", "a or b", "a, b or c".
function prose(name,    n, i, s) {
	n = count[name]
	s = ""
	for (i = 1; i <= n; i++)
		s = s (i == 1 ? "" : i == n ? " or " : ", ") value[name, i]
	return s
}

# Whether text names alias a as the prose does: the word, then "," or " (".
function names_alias(text, a,    off, at, pos, pre, post) {
	off = 0
	while ((at = index(substr(text, off + 1), a)) > 0) {
		pos = off + at
		pre = pos > 1 ? substr(text, pos - 1, 1) : " "
		post = substr(text, pos + length(a), 2)
		if (pre == " " && (substr(post, 1, 1) == "," || post == " ("))
			return 1
		off = pos
	}
	return 0
}

# Whether text gives pointer p: whole, after "(" or " " and before one of ");,. ", or its
# array as a range ("/geom/solimp/0..4" for "/geom/solimp/2").
function names_pointer(text, p,    off, at, pos, pre, post, dir) {
	off = 0
	while ((at = index(substr(text, off + 1), p)) > 0) {
		pos = off + at
		pre = pos > 1 ? substr(text, pos - 1, 1) : ""
		post = substr(text, pos + length(p), 1)
		if ((pre == "(" || pre == " ") && post != "" && index(");,. ", post) > 0)
			return 1
		off = pos
	}
	if (p !~ /.\/[0-9]+$/)
		return 0
	dir = p
	sub(/\/[0-9]+$/, "", dir)
	return index(text, dir "/0..") > 0
}

# The aliases (lists aliases.KIND, each value "NAME POINTER") that line does not name with
# their pointers, as prose: " Slide aliases: force (/force)." per kind; "" when it names all.
function untold(line,    k, kind, list, i, sp, name, ptr, got, s) {
	s = ""
	for (k = 1; k <= count["sweepable"]; k++) {
		kind = value["sweepable", k]
		list = "aliases." kind
		if (!(list in count))
			fail("no list " list)
		got = ""
		for (i = 1; i <= count[list]; i++) {
			sp = index(value[list, i], " ")
			name = substr(value[list, i], 1, sp - 1)
			ptr = substr(value[list, i], sp + 1)
			if (!names_alias(line, name) || !names_pointer(line, ptr))
				got = got (got == "" ? "" : ", ") name " (" ptr ")"
		}
		if (got != "")
			s = s " " toupper(substr(kind, 1, 1)) substr(kind, 2) " aliases: " got "."
	}
	return s
}

# line with its "@aliases untold@" and "@NAME or@" expanded, or a whole "@NAME@" value as a
# multi-line array.
function expand(line,    pad, key, name, comma, out, i, n, head, tail, at) {
	while ((at = index(line, "@aliases untold@")) > 0)
		line = substr(line, 1, at - 1) untold(line) substr(line, at + 16)
	while (match(line, /@[a-z][a-z0-9_.]* or@/)) {
		name = substr(line, RSTART + 1, RLENGTH - 5)
		if (!(name in count))
			fail("unknown list " name)
		line = substr(line, 1, RSTART - 1) prose(name) substr(line, RSTART + RLENGTH)
	}
	if (!match(line, /"@[a-z][a-z0-9_.]*@",?$/))
		return line
	head = substr(line, 1, RSTART - 1)
	tail = substr(line, RSTART)
	comma = tail ~ /,$/ ? "," : ""
	name = tail
	sub(/^"@/, "", name)
	sub(/@",?$/, "", name)
	if (!(name in count))
		fail("unknown list " name)
	if (head !~ /^ *("([^"\\]|\\.)*": )?$/)
		fail("a list stands for a whole value")
	pad = indent_of(head)
	n = count[name]
	if (n == 0)
		return head "[]" comma
	out = head "["
	for (i = 1; i <= n; i++)
		out = out "\n" spaces(pad + 2) "\"" value[name, i] "\"" (i < n ? "," : "")
	return out "\n" spaces(pad) "]" comma
}

function start_member(    key) {
	key = $0
	sub(/^ *"/, "", key)
	sub(/": .*/, "", key)
	if ((section, key) in seen)
		fail(section " " key " is in two parts")
	seen[section, key] = 1
	members[section]++
	text[section, members[section]] = expand($0)
	inside = $0 ~ /[[{]$/
}

BEGIN {
	if (lists == "") {
		print "openapi.awk: -v lists=FILE is required" >"/dev/stderr"
		failed = 1
		exit 1
	}
	while ((rc = (getline line < lists)) > 0) {
		n = split(line, field, "\t")
		count[field[1]] = n - 1
		for (i = 2; i <= n; i++)
			value[field[1], i - 1] = field[i]
	}
	if (rc < 0) {
		print "openapi.awk: cannot read " lists >"/dev/stderr"
		failed = 1
		exit 1
	}
	close(lists)
	nsections = split("top paths schemas securitySchemes", order, " ")
}

FNR == 1 {
	if (NR > 1 && !closed) {
		printf "%s: ends before its closing }\n", part >"/dev/stderr"
		failed = 1
		exit 1
	}
	part = FILENAME
	if ($0 != "{")
		fail("a part is one JSON object: { on its first line")
	section = ""
	inside = 0
	closed = 0
	next
}

closed {
	fail("text after the part's closing }")
}

# Within a member: its lines, until the one that closes it at the member's indentation.
inside {
	text[section, members[section]] = text[section, members[section]] "\n" expand($0)
	if (indent_of($0) == member_indent && $0 ~ /^ *[]}],?$/) {
		inside = 0
		if (section == "top")
			section = ""
	}
	next
}

section == "components" && /^    "(schemas|securitySchemes)": {$/ {
	section = $0
	sub(/^    "/, "", section)
	sub(/".*/, "", section)
	member_indent = 6
	next
}

section == "components" && /^  },?$/ {
	section = ""
	next
}

# The end of paths, schemas or securitySchemes.
(section == "paths" || section == "schemas" || section == "securitySchemes") &&
    indent_of($0) == member_indent - 2 && /^ *},?$/ {
	section = section == "paths" ? "" : "components"
	next
}

# A member's first line: the whole member, or its opening { or [.
(section == "paths" || section == "schemas" || section == "securitySchemes") &&
    indent_of($0) == member_indent && /^ *"/ {
	start_member()
	next
}

section == "" && /^  "paths": {$/ {
	section = "paths"
	member_indent = 4
	next
}

section == "" && /^  "components": {$/ {
	section = "components"
	next
}

# openapi, info, servers: copied whole, in the parts' order.
section == "" && /^  "/ {
	section = "top"
	member_indent = 2
	start_member()
	if (!inside)
		section = ""
	next
}

section == "" && /^}$/ {
	closed = 1
	next
}

{
	fail("not where a part's layout allows: " $0)
}

# Each section's members joined, a trailing comma dropped from each.
function joined(name,    i, s, member) {
	s = ""
	for (i = 1; i <= members[name]; i++) {
		member = text[name, i]
		sub(/,$/, "", member)
		s = s (i > 1 ? ",\n" : "") member
	}
	return s
}

END {
	if (failed)
		exit 1
	if (!closed) {
		printf "%s: ends before its closing }\n", part >"/dev/stderr"
		exit 1
	}
	out = members["top"] ? joined("top") : ""
	if (members["paths"])
		out = out (out != "" ? ",\n" : "") "  \"paths\": {\n" joined("paths") "\n  }"
	comp = ""
	if (members["schemas"])
		comp = "    \"schemas\": {\n" joined("schemas") "\n    }"
	if (members["securitySchemes"])
		comp = comp (comp != "" ? ",\n" : "") "    \"securitySchemes\": {\n" \
		    joined("securitySchemes") "\n    }"
	if (comp != "")
		out = out (out != "" ? ",\n" : "") "  \"components\": {\n" comp "\n  }"
	printf "{\n%s\n}\n", out
}
