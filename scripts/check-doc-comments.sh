#!/usr/bin/env bash
# Checks that every public declaration in Modules/ and Plugins/ has a doc comment (issue 17).
#
#   scripts/check-doc-comments.sh [--quiet] [PATH...]
#
# PATHs (files or folders) default to Modules and Plugins; folders whose name starts with "C" (the C-only
# targets: CZlib, CJPEG, CWebP...) and, unless named, Modules/FixtureServer (test infrastructure) are skipped. Prints "doc comments: N of M public declarations (P%)", a
# per-module table, and each undocumented declaration as file:line: name. --quiet prints only the summary
# line and the missing ones. Exits 1 when any declaration is missing its comment. No build is needed.
#
# Two checks run:
# 1. The toolchain's `swift format lint` with only the AllPublicDeclarationsHaveDocumentation rule enabled
#    (the configuration is generated from `swift format dump-configuration`, so it follows the toolchain).
# 2. Our own count, because that rule (swift-format 6.3) looks only at declarations spelled `public`, so it
#    misses: requirements of public protocols, cases of public enums, members of `public extension`s,
#    associated types, and anything declared `open`. The count below treats all of those as public. Like the
#    rule, it skips `override`s (their documentation is the overridden declaration's) and wants the doc
#    comment (`///` or `/** */`) directly above the declaration or its attributes: a blank line or a plain
#    `//` comment in between hides it. Both checks must pass.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

quiet=0
paths=()
for arg in "$@"; do
    case "$arg" in
        --quiet) quiet=1 ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) paths+=("$arg") ;;
    esac
done
skipped='(^|/)(Modules|Plugins)/C[^/]*/'
if [ ${#paths[@]} -eq 0 ]; then
    paths=(Modules Plugins)
    skipped+='|(^|/)Modules/FixtureServer/'
fi

# The Swift files to check, C-only folders left out, and by default the fixture server: a library for the tests
# and the benchmarks (documented all the same), not part of the surface an app depends on, which this counts.
mapfile -t files < <(find "${paths[@]}" -name '*.swift' -not -path '*/.build/*' | grep -Ev "$skipped" | sort)
if [ ${#files[@]} -eq 0 ]; then
    echo "error: no Swift files under ${paths[*]}" >&2
    exit 2
fi

config="$(mktemp)"
trap 'rm -f "$config"' EXIT
swift format dump-configuration | python3 -c '
import json, sys
config = json.load(sys.stdin)
config["rules"] = {name: name == "AllPublicDeclarationsHaveDocumentation" for name in config["rules"]}
json.dump(config, open(sys.argv[1], "w"))
' "$config"

# swift format also reports layout (its pretty-printer runs in lint mode); keep only the rule's findings.
lint_findings="$(swift format lint --configuration "$config" --parallel "${files[@]}" 2>&1 \
    | grep '\[AllPublicDeclarationsHaveDocumentation\]' || true)"

QUIET="$quiet" LINT_FINDINGS="$lint_findings" python3 - "${files[@]}" <<'PY'
import os, re, sys
from collections import defaultdict

DECL_KEYWORDS = ("func", "init", "subscript", "var", "let", "typealias", "associatedtype", "struct", "class",
                 "enum", "actor", "protocol", "case", "extension", "macro")
TYPE_KEYWORDS = ("struct", "class", "enum", "actor", "protocol", "extension")
# Modifiers that may come before the keyword. `private(set)` and friends only narrow the setter.
MODIFIER = r"(?:@[A-Za-z_][\w.]*(?:\([^)]*\))?|public|open|internal|fileprivate|private|package|static|final|class|" \
           r"override|mutating|nonmutating|nonisolated(?:\(unsafe\))?|convenience|required|lazy|weak|unowned|" \
           r"indirect|dynamic|optional|consuming|borrowing|distributed|(?:public|internal|fileprivate|private|package)\(set\))"
DECL = re.compile(r"^\s*((?:" + MODIFIER + r"\s+)*)(" + "|".join(DECL_KEYWORDS) + r")\b(.*)$")
ACCESS = re.compile(r"(?<![\w@])(public|open|internal|fileprivate|private|package)(?!\s*\(set\))\b")

def strip_code(text):
    """Blanks out string literals and comments (keeping line breaks) so braces can be counted."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j): depth += 1; j += 2
                elif text.startswith("*/", j): depth -= 1; j += 2
                else: j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif text.startswith("\"\"\"", i) or text.startswith("#\"\"\"", i):
            start = i; i = text.find("\"\"\"", i + 3 + (text[i] == "#"))
            i = n if i < 0 else i + 3 + (i + 3 < n and text[i + 3] == "#")
            out.append(re.sub(r"[^\n]", " ", text[start:i]))
        elif text[i] == "\"":
            j = i + 1; depth = 0
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "(":
                    depth += 1; j += 2; continue
                if text[j] == "\\": j += 2; continue
                if depth and text[j] == "(": depth += 1
                elif depth and text[j] == ")": depth -= 1
                elif not depth and text[j] == "\"": break
                j += 1
            j = min(j, n - 1)
            end = j if text[j] == "\n" else j + 1  # an unterminated string keeps its line break
            out.append(" " * (end - i)); i = end
        else:
            out.append(text[i]); i += 1
    return "".join(out)

def has_doc_comment(lines, index):
    """True when the declaration at lines[index] has `///` or `/** */` right above it or its attributes."""
    j = index - 1
    while j >= 0 and re.match(r"^\s*(@\w[\w.]*(\(.*?\))?\s*)+$", lines[j]):
        j -= 1
    if j < 0:
        return False
    above = lines[j].strip()
    if above.startswith("///"):
        return True
    if above.endswith("*/"):
        k = j
        while k >= 0 and "/*" not in lines[k]:
            k -= 1
        return k >= 0 and lines[k].lstrip().startswith("/**")
    return False

def declared_name(keyword, rest):
    """A readable name for the report: `func name(label:label:)`, `init(label:)`, `var name`..."""
    rest = rest.strip()
    match = re.match(r"(`?[^\s(:=]+?`?)(?=[\s(:=]|<[^=<>]*>\(|$)", rest)
    name = "" if keyword in ("init", "subscript") else match.group(1) if match else rest.split("=")[0].strip()
    if keyword in ("func", "init", "subscript"):
        params = re.search(r"\(([^)]*)\)?", rest)
        labels = [p.strip().split(":")[0].split(" ")[0] for p in params.group(1).split(",")] if params else []
        return ("%s %s(%s)" if name else "%s%s(%s)") % (keyword, name, "".join(l + ":" for l in labels if l))
    return "%s %s" % (keyword, name)

total = defaultdict(int)
missing = []
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    raw_lines = text.split("\n")
    code_lines = strip_code(text).split("\n")
    # Each open brace pushes a context: ("type", kind, members_public_by_default, type_is_public)
    # for struct/class/enum/actor/protocol/extension bodies, ("block",) for everything else.
    stack = []
    pending = None
    for index, code in enumerate(code_lines):
        in_type = not stack or stack[-1][0] == "type"
        match = DECL.match(code) if in_type else None
        if match:
            modifiers, keyword, rest = match.groups()
            parent = stack[-1] if stack else None
            access = ACCESS.findall(modifiers)
            explicit = access[0] if access else None
            if keyword == "class" and re.match(r"\s*(func|var|let|subscript)\b", rest):
                # `class func` / `class var`: the real keyword follows.
                keyword, rest = re.match(r"\s*(\w+)\b(.*)$", rest).groups()
            if parent is None:
                public = explicit in ("public", "open")
            elif parent[1] == "protocol" or (parent[1] == "enum" and keyword == "case"):
                public = parent[3]
            elif explicit:
                public = explicit in ("public", "open")
            else:
                public = parent[2]
            counted = public and keyword != "extension" and not re.search(r"\boverride\b", modifiers)
            if counted:
                module = "/".join(path.split("/")[:2])
                if keyword == "case":
                    # `case a, b(Int)` declares two cases; the doc comment above covers both.
                    names = ["case " + re.match(r"\s*(`?\w+`?)", c).group(1)
                             for c in re.split(r",(?![^(]*\))", rest) if c.strip()]
                else:
                    names = [declared_name(keyword, rest)]
                documented = has_doc_comment(raw_lines, index)
                for name in names:
                    total[module] += 1
                    if not documented:
                        missing.append((path, index + 1, name))
            if keyword in TYPE_KEYWORDS:
                # Members of a public type are public only when they say so (protocol requirements and enum
                # cases are handled above); members of a `public extension` are public unless they say not.
                members_public = keyword == "extension" and explicit == "public"
                pending = ("type", keyword, members_public, members_public if keyword == "extension" else public)
            else:
                pending = ("block",)
        for ch in code:
            if ch == "{":
                stack.append(pending or ("block",))
                pending = None
            elif ch == "}" and stack:
                stack.pop()

# The rule's findings should all be in our list; any that are not (two declarations on one line, say) are
# added to the count so that the total stays honest.
lint = [l.replace(os.getcwd() + "/", "") for l in os.environ.get("LINT_FINDINGS", "").split("\n") if l.strip()]
for finding in lint:
    path, line = finding.split(":")[:2]
    name = re.search(r"comment for '([^'(]*)", finding).group(1).strip()
    if not any(p == path and l == int(line) and name in n for p, l, n in missing):
        module = "/".join(path.split("/")[:2])
        total[module] += 1
        missing.append((path, int(line), name + " (found by swift format lint)"))
missing.sort(key=lambda m: (m[0], m[1]))

quiet = os.environ.get("QUIET") == "1"
all_total = sum(total.values())
documented = all_total - len(missing)
percent = 100.0 * documented / all_total if all_total else 100.0
if not quiet:
    by_module = defaultdict(int)
    for path, _, _ in missing:
        by_module["/".join(path.split("/")[:2])] += 1
    print("%-32s %10s %7s" % ("module", "documented", "public"))
    for module in sorted(total):
        print("%-32s %10d %7d" % (module, total[module] - by_module[module], total[module]))
print("doc comments: %d of %d public declarations (%.1f%%)" % (documented, all_total, percent))
if missing:
    print("missing doc comments:")
    for path, line, name in missing:
        print("  %s:%d: %s" % (path, line, name))
sys.exit(1 if missing else 0)
PY
