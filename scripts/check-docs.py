#!/usr/bin/env python3
"""Checks a built Trove.doccarchive: the landing page links the four articles, each article rendered with
its title, text and code listings, and the navigator index lists them. Usage: check-docs.py ARCHIVE"""
import json
import sys
from pathlib import Path

ARTICLES = {
    "gettingstarted": "Getting started",
    "composingapipeline": "Composing a pipeline",
    "writingaplugin": "Writing a plugin",
    "cachingtiersandpolicies": "Caching tiers and policies",
}


def fail(message):
    print(f"check-docs: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 2:
        fail("usage: check-docs.py ARCHIVE")
    archive = Path(sys.argv[1])
    data = archive / "data/documentation"
    if not (archive / "index.html").is_file():
        fail(f"{archive} has no index.html: not a DocC archive (run `make docs`)")
    landing = json.loads((data / "trove.json").read_text())
    linked = {i.rsplit("/", 1)[-1].lower() for s in landing.get("topicSections", []) for i in s["identifiers"]}
    index = set()

    def walk(nodes):
        for node in nodes:
            index.add(node.get("path", "").lower())
            walk(node.get("children", []))

    for nodes in json.loads((archive / "index/index.json").read_text())["interfaceLanguages"].values():
        walk(nodes)
    for slug, title in ARTICLES.items():
        page = data / "trove" / f"{slug}.json"
        if not page.is_file():
            fail(f"article {title!r} was not rendered ({page} missing)")
        article = json.loads(page.read_text())
        if article["metadata"].get("title") != title or article["metadata"].get("role") != "article":
            fail(f"{page}: expected the article {title!r}, found {article['metadata']}")
        kinds = [c["type"] for s in article["primaryContentSections"] for c in s.get("content", [])]
        if kinds.count("paragraph") < 2 or "heading" not in kinds:
            fail(f"{title!r} rendered without its text ({kinds})")
        if "codeListing" not in kinds:
            fail(f"{title!r} rendered without its code listings")
        if slug not in linked:
            fail(f"the landing page does not link {title!r}")
        if f"/documentation/trove/{slug}" not in index:
            fail(f"the navigator index does not list {title!r}")
    print(f"check-docs: {len(ARTICLES)} articles rendered, linked from the landing page and indexed in {archive}")


main()
