#!/usr/bin/env python3
"""Checks that docs/ARCHITECTURE.md names only code that exists, so the walk-through cannot drift silently.

    scripts/check-architecture-doc.py [MARKDOWN...]

Every backticked span outside fenced code blocks is read as code when it looks like code:
- a Swift or C file (`Foo.swift`, `Modules/Trove/Foo.swift`): a file with that name (or ending in that path) must
  exist under Modules, Plugins, Tools or Tests;
- a type (`ImagePipeline`), or the types in a qualified name (`ImageRequest.Options.keepsColorProfile`,
  `CacheWriter.storeFetched`): each UpperCamelCase part must be declared (class, struct, enum, protocol, actor,
  typealias, associatedtype) in those folders, or be a target in Package.swift;
- a member after a type (`DiskCache.entry(forKey:)`, `TroveError.cancelled`): a func, var, let, case or init of
  that name must be declared in a file that declares or extends the type (a type not ours: anywhere);
- a function on its own (`cacheKey(for:)`, `performFetch`): camelCase or with an argument list, it must be
  declared as one of those too;
- a path in the repository (`Modules/Trove/Pipeline/`, `scripts/lint.sh`) must exist;
and every relative link must lead to a file that exists, and every `#anchor` to a heading of the document.
`--self-test` checks a document of names that do not exist, and fails unless each is reported.
Prints each name that is missing with its line and exits 1; exits 0 printing one summary line. No build is
needed; it reads the sources as text.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDERS = ["Modules", "Plugins", "Tools", "Tests"]

SCOPE_DECL = re.compile(r"\b(?:class|struct|enum|protocol|actor|extension)\s+([A-Za-z_][\w.]*)")
TYPE_DECL = re.compile(r"\b(?:class|struct|enum|protocol|actor|typealias|associatedtype)\s+([A-Za-z_]\w*)")
MEMBER_DECL = re.compile(r"\b(?:func|var|let)\s+([A-Za-z_]\w*)")
CASE_LINE = re.compile(r"^\s*(?:indirect\s+)?case\s+([a-z_`].*)$")
TYPE_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$")
MEMBER_NAME = re.compile(r"^[a-z_][A-Za-z0-9_]*$")
# A function named alone: camelCase, or any identifier with an argument list (`run(url:)`, `drain()`).
ARGUMENTS = r"\((?:\w+:)*\)"
FUNCTION_ALONE = re.compile(r"^([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*|[a-z]\w*(?=\())(" + ARGUMENTS + r")?$")
QUALIFIED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*(?:" + ARGUMENTS + r")?)+$")
SOURCE_FILE = re.compile(r"^[\w+./-]+\.(?:swift|c|h)$")
# A path in the repository: `Modules/Trove/Pipeline/`, `Tools/Fuzz`, `scripts/lint.sh`.
REPO_PATH = re.compile(r"^(?:Modules|Plugins|Tools|Tests|scripts|docs)/[\w+./<>-]*$")
# Names the doc rightly uses that are not declared in our sources: HTTP fields, and the types of the
# dependencies the server plugs into. Add to it only what is not ours.
NOT_OURS = {
    "Accept", "Age", "Expires", "Range", "Location",  # HTTP fields
    "HTTPServerBuilder", "HTTP1ToHTTPServerCodec", "ChannelShouldQuiesceEvent",  # Hummingbird, SwiftNIO
    "MaximumAvailableConnections",
    "InstrumentationSystem", "ServiceContext",  # swift-distributed-tracing
}


def sources():
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.swift"):
            if ".build" not in path.parts:
                yield path


def declarations():
    types, members, scoped = set(NOT_OURS), {"init"}, {}
    files = [p.relative_to(ROOT).as_posix() for f in FOLDERS for p in (ROOT / f).rglob("*") if ".build" not in p.parts]
    for path in sources():
        text = path.read_text(errors="replace")
        types.update(TYPE_DECL.findall(text))
        declared = set(MEMBER_DECL.findall(text))
        for line in text.splitlines():
            match = CASE_LINE.match(line)
            if not match or ":" in re.sub(r"\([^()]*\)", "", match.group(1)):
                continue  # a switch's case, not an enum's
            rest = match.group(1)
            while "(" in rest:
                stripped = re.sub(r"\([^()]*\)", "", rest)
                if stripped == rest:
                    break
                rest = stripped
            for part in rest.split(","):
                name = part.split("=")[0].strip().strip("`")
                if MEMBER_NAME.match(name):
                    declared.add(name)
        members.update(declared)
        for name in SCOPE_DECL.findall(text):
            scoped.setdefault(name.split(".")[-1], set()).update(declared | {"init"})
    package = (ROOT / "Package.swift").read_text()
    types.update(re.findall(r'name:\s*"([A-Za-z]\w*)"', package))
    return types, (members, scoped), files


def spans(markdown):
    fenced = False
    for number, line in enumerate(markdown.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            for span in re.findall(r"`([^`\n]+)`", line):
                yield number, span.strip()


def problems(markdown, types, members, files):
    def file_exists(name):
        return name == "Package.swift" or any(f == name or f.endswith("/" + name) for f in files)

    for number, span in spans(markdown):
        if REPO_PATH.match(span):
            if "<" not in span and not (ROOT / span).exists():
                yield number, span, "no such path"
        elif SOURCE_FILE.match(span):
            if not file_exists(span):
                yield number, span, "no such file"
        elif TYPE_NAME.match(span):
            if span not in types:
                yield number, span, "no such type"
        elif QUALIFIED.match(span):
            parts = [part.split("(")[0] for part in span.split(".")]
            if not TYPE_NAME.match(parts[0]):
                continue  # `key.processed`, `memory.countLimit`: a value's field, not a declaration to find
            for position, part in enumerate(parts):
                if TYPE_NAME.match(part):
                    if part not in types:
                        yield number, span, f"no such type {part}"
                elif position > 0 and MEMBER_NAME.match(part):
                    owner = parts[position - 1]
                    known = members[1].get(owner, members[0])
                    if part not in known:
                        yield number, span, f"no such member {part}" + (f" of {owner}" if owner in members[1] else "")
        elif FUNCTION_ALONE.match(span):
            name = span.split("(")[0]
            if name not in members[0]:
                yield number, span, "no such function or property"


def link_problems(markdown, document):
    headings = set()
    for line in markdown.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            headings.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    for number, line in enumerate(markdown.splitlines(), 1):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"^[a-z]+:", target):
                continue  # https:, mailto:
            path, _, anchor = target.partition("#")
            if path and not (document.parent / path).exists():
                yield number, target, "link to no such file"
            elif not path and anchor not in headings:
                yield number, target, "link to no such heading"


SELF_TEST = """# Doc
`Tools/FixtureServer` `NoSuchFile.swift` `Modules/Trove/NoSuch.swift` `NoSuchType` `ImagePipeline.noSuchMember`
`NoSuchType.image(for:)` `noSuchFunction(for:)` `noSuchCamelCase` [a](#no-such-heading) [b](NO-SUCH.md)
`ImagePipeline` `ImagePipeline.image(for:)` `TroveError.cancelled` `ImagePipeline.storeFetched`
`DiskCache+Reading.swift` `Accept` [c](#doc)
"""


def self_test():
    types, members, files = declarations()
    document = ROOT / "docs" / "SELF-TEST.md"
    found = [span for _, span, _ in problems(SELF_TEST, types, members, files)]
    found += [target for _, target, _ in link_problems(SELF_TEST, document)]
    expected = [
        "Tools/FixtureServer", "NoSuchFile.swift", "Modules/Trove/NoSuch.swift", "NoSuchType",
        "ImagePipeline.noSuchMember", "NoSuchType.image(for:)", "noSuchFunction(for:)", "noSuchCamelCase",
        "ImagePipeline.storeFetched", "#no-such-heading", "NO-SUCH.md",
    ]
    if found != expected:
        print(f"self-test: expected {expected}\n           found    {found}", file=sys.stderr)
        return 1
    print(f"self-test: all {len(expected)} missing names reported, nothing else")
    return 0


def main(arguments):
    if arguments == ["--self-test"]:
        return self_test()
    documents = [pathlib.Path(a) for a in arguments] or [ROOT / "docs" / "ARCHITECTURE.md"]
    types, members, files = declarations()
    failed = 0
    checked = 0
    for document in documents:
        markdown = document.read_text()
        checked += sum(1 for _ in spans(markdown))
        found = list(problems(markdown, types, members, files)) + list(link_problems(markdown, document))
        for number, span, reason in sorted(found):
            print(f"{document.relative_to(ROOT) if document.is_absolute() else document}:{number}: `{span}`: {reason}")
            failed += 1
    if failed:
        print(f"architecture doc: {failed} names that no longer exist; fix the doc (or the code)", file=sys.stderr)
        return 1
    print(f"architecture doc: every file, type and function named exists ({checked} backticked spans read)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
