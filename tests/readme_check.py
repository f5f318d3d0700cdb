"""readme_check.py: the README's "First questions" examples against a running daemon.

Usage: readme_check.py README PORT CONTACT

Every command of the section's indented blocks (a line starting `curl ` or `./contact `,
with its `\\` continuations) is run as written by sh, in a scratch directory that holds
`docs` (the source tree's) and `contact` (the build's), with `localhost:8750` rewritten to
the daemon's port. The lines printed after a command are its answer as the README shows
it: canonical JSON in which `...` stands for omitted keys (or array elements). Each
printed `"key":value` must equal the daemon's: numbers by their text (the daemon writes
the shortest round-trip real, so the text is the value), strings and literals exactly,
objects and arrays element by element; keys in the README's order must be in the
answer's (sorted) order, and an object or array without `...` must be complete. A command
with no printed answer must succeed: exit 0, no JSON error, every `.svg` it names an SVG.
Prints each mismatch with its README line; exits 1 on any.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ELLIPSIS = object()  # `...` in an object's members or an array's elements


class ParseError(Exception):
    pass


class Obj:
    """A parsed object: its members in order, and whether `...` omitted some."""

    def __init__(self, members, open_):
        self.members = members
        self.open = open_


class Arr:
    def __init__(self, items):
        self.items = items


TOKEN = re.compile(
    r'\s*(?:(\.\.\.)|("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)'
    r"|(true|false|null)|([{}\[\]:,]))"
)


def tokens(text):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise ParseError("cannot read %r" % text[pos : pos + 20])
        out.append(m.group(m.lastindex) if m.lastindex != 1 else "...")
        pos = m.end()
    return out


def parse(text):
    """JSON with `...` allowed as a member or an element; numbers kept as their text."""
    toks = tokens(text)
    value, i = parse_value(toks, 0)
    if i != len(toks):
        raise ParseError("text after the value: %r" % " ".join(toks[i : i + 3]))
    return value


def parse_value(toks, i):
    if i >= len(toks):
        raise ParseError("the text ends inside a value")
    t = toks[i]
    if t == "{":
        return parse_container(toks, i + 1, "}")
    if t == "[":
        return parse_container(toks, i + 1, "]")
    if t[0] == '"':
        return ("s", json.loads(t)), i + 1
    if t in ("true", "false", "null"):
        return ("l", t), i + 1
    if t[0] == "-" or t[0].isdigit():
        return ("n", t), i + 1
    raise ParseError("unexpected %r" % t)


def parse_container(toks, i, close):
    items, open_ = [], False
    if i < len(toks) and toks[i] == close:
        return (Obj(items, False) if close == "}" else Arr(items)), i + 1
    while True:
        if i < len(toks) and toks[i] == "...":
            if close == "}":
                open_ = True
            else:
                items.append(ELLIPSIS)
            i += 1
        elif close == "}":
            if i >= len(toks) or toks[i][0] != '"':
                raise ParseError("a member's key expected")
            key = json.loads(toks[i])
            if i + 1 >= len(toks) or toks[i + 1] != ":":
                raise ParseError("':' expected after %r" % key)
            value, i = parse_value(toks, i + 2)
            items.append((key, value))
        else:
            value, i = parse_value(toks, i)
            items.append(value)
        if i >= len(toks):
            raise ParseError("the text ends inside a container")
        if toks[i] == close:
            return (Obj(items, open_) if close == "}" else Arr(items)), i + 1
        if toks[i] != ",":
            raise ParseError("',' or %r expected, not %r" % (close, toks[i]))
        i += 1


def show(v):
    if isinstance(v, Obj):
        return "{" + ",".join(json.dumps(k) + ":" + show(x) for k, x in v.members) + "}"
    if isinstance(v, Arr):
        return "[" + ",".join("..." if x is ELLIPSIS else show(x) for x in v.items) + "]"
    return json.dumps(v[1]) if v[0] == "s" else v[1]


def match(printed, actual, where, errors):
    """Appends to errors each way the printed value differs from the daemon's."""
    if isinstance(printed, Obj):
        if not isinstance(actual, Obj):
            errors.append("%s: README shows an object, the daemon %s" % (where, show(actual)))
            return
        got = dict(actual.members)
        order = [k for k, _ in actual.members]
        last = -1
        for key, value in printed.members:
            if key not in got:
                errors.append("%s/%s: README shows it, the daemon's answer has no such key" % (where, key))
                continue
            if order.index(key) < last:
                errors.append("%s/%s: out of the answer's key order" % (where, key))
            last = order.index(key)
            match(value, got[key], where + "/" + key, errors)
        if not printed.open:
            missing = [k for k in order if k not in dict(printed.members)]
            if missing:
                errors.append("%s: README shows no `...` but omits %s" % (where, ", ".join(missing)))
        return
    if isinstance(printed, Arr):
        if not isinstance(actual, Arr) or not match_items(printed.items, actual.items):
            errors.append("%s: README %s, daemon %s" % (where, show(printed), show(actual)))
        return
    if printed != actual:
        errors.append("%s: README %s, daemon %s" % (where, show(printed), show(actual)))


def match_items(pattern, items):
    """An array's elements in order, `...` standing for any number of them."""
    if not pattern:
        return not items
    if pattern[0] is ELLIPSIS:
        return any(match_items(pattern[1:], items[k:]) for k in range(len(items) + 1))
    if not items:
        return False
    errors = []
    match(pattern[0], items[0], "", errors)
    return not errors and match_items(pattern[1:], items[1:])


def examples(readme):
    """(line number, command, printed answer text or None) of the First questions section."""
    lines = open(readme, encoding="utf-8").read().split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("## First questions"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    out, i = [], start
    while i < end:
        text = lines[i].strip()
        if lines[i].startswith("    ") and (text.startswith("curl ") or text.startswith("./contact ")):
            lineno, command = i + 1, text
            while command.endswith("\\"):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            answer = []
            i += 1
            while i < end and lines[i].startswith("    ") and lines[i].strip():
                text = lines[i].strip()
                if text.startswith("curl ") or text.startswith("./contact "):
                    break
                answer.append(text)
                i += 1
            out.append((lineno, command, "".join(answer) if answer else None))
            continue
        i += 1
    return out


def main():
    readme, port, contact = sys.argv[1], sys.argv[2], sys.argv[3]
    scratch = tempfile.mkdtemp(prefix="readme_check.")
    try:
        os.symlink(os.path.abspath(os.path.join(os.path.dirname(readme), "docs")), os.path.join(scratch, "docs"))
        os.symlink(os.path.abspath(contact), os.path.join(scratch, "contact"))
        return run(readme, port, scratch)
    finally:
        shutil.rmtree(scratch)


def run(readme, port, scratch):
    found = examples(readme)
    checked = sum(1 for _, _, a in found if a is not None)
    failures = 0
    if checked == 0:
        print("FAIL: %s: no example with a printed answer in First questions" % readme)
        return 1
    for lineno, command, answer in found:
        where = "%s:%d" % (os.path.basename(readme), lineno)
        if "localhost:8750" not in command and not command.startswith("./contact "):
            print("FAIL: %s: a curl example not at localhost:8750: %s" % (where, command))
            failures += 1
            continue
        run_it = command.replace("localhost:8750", "127.0.0.1:" + port)
        done = subprocess.run(["sh", "-c", run_it], cwd=scratch, capture_output=True, timeout=120)
        out = done.stdout.decode("utf-8", "replace")
        errors = []
        if done.returncode != 0:
            errors.append("exit %d: %s" % (done.returncode, done.stderr.decode("utf-8", "replace")[:400]))
        elif answer is not None:
            try:
                printed = parse(answer)
            except ParseError as e:
                errors.append("the printed answer does not read: %s" % e)
            else:
                try:
                    match(printed, parse(out), "", errors)
                except ParseError as e:
                    errors.append("the daemon's answer does not read (%s): %s" % (e, out[:400]))
        else:
            if out.lstrip().startswith('{"error"'):
                errors.append("refused: %s" % out[:400])
            for svg in re.findall(r"[\w./-]+\.svg", command):
                path = os.path.join(scratch, svg)
                if not os.path.exists(path) or b"<svg" not in open(path, "rb").read(4096):
                    errors.append("%s is not an SVG" % svg)
        if errors:
            print("FAIL: %s: %s\n  %s" % (where, command, "\n  ".join(errors)))
            failures += 1
    print("%d README examples run, %d answers compared, %d failed" % (len(found), checked, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
