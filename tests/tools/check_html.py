#!/usr/bin/env python3
"""Strict check of a streamdisk report: usage check_html.py FILE [MIN_FIGURES].

Stricter than browsers: every non-void element must be closed in order, ids
unique, no scripts, no external resources; every inline <svg> must also be
well-formed XML. Prints what is wrong and exits 1, or prints a summary."""
import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Strict(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.ids, self.seen, self.doctype = [], [], set(), {}, False

    def where(self):
        return "line %d" % self.getpos()[0]

    def check_attrs(self, tag, attrs):
        for k, v in attrs:
            if v is None:
                continue
            if k == "id":
                if v in self.ids:
                    self.errors.append("%s: duplicate id %r" % (self.where(), v))
                self.ids.add(v)
            if k in ("src", "href") and not v.startswith("#"):
                self.errors.append("%s: <%s %s=%r> points outside the page" % (self.where(), tag, k, v))
            if k != "xmlns" and re.match(r"(https?:)?//", v):
                self.errors.append("%s: external reference %s=%r" % (self.where(), k, v))

    def handle_decl(self, decl):
        self.doctype = decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        self.seen[tag] = self.seen.get(tag, 0) + 1
        if tag == "script":
            self.errors.append("%s: <script> in a report" % self.where())
        self.check_attrs(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.seen[tag] = self.seen.get(tag, 0) + 1
        self.check_attrs(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            self.errors.append("%s: end tag for void element <%s>" % (self.where(), tag))
        elif not self.stack or self.stack[-1] != tag:
            self.errors.append("%s: </%s> closes <%s>" % (self.where(), tag, self.stack[-1] if self.stack else "nothing"))
        else:
            self.stack.pop()


def main():
    path, min_fig = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
    text = open(path, encoding="utf-8").read()
    p = Strict()
    p.feed(text)
    p.close()
    errs = p.errors
    if not p.doctype:
        errs.append("no <!DOCTYPE html>")
    if p.stack:
        errs.append("unclosed elements at the end: %s" % p.stack)
    for tag in ("html", "head", "title", "body"):
        if p.seen.get(tag) != 1:
            errs.append("expected exactly one <%s>, found %d" % (tag, p.seen.get(tag, 0)))
    svgs = re.findall(r"<svg\b.*?</svg>", text, flags=re.S)
    for i, s in enumerate(svgs):
        try:
            root = ET.fromstring(s)
        except ET.ParseError as e:
            errs.append("svg %d is not well-formed XML: %s" % (i + 1, e))
            continue
        texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
        if len(texts) < 6:
            errs.append("svg %d has only %d text labels (axes, ticks, title expected)" % (i + 1, len(texts)))
    figs = p.seen.get("figure", 0)
    if figs < min_fig or len(svgs) < min_fig or p.seen.get("figcaption", 0) != figs:
        errs.append("expected at least %d figures each with an svg and a caption: %d figures, %d svgs, %d captions"
                    % (min_fig, figs, len(svgs), p.seen.get("figcaption", 0)))
    if errs:
        print("\n".join("%s: %s" % (path, e) for e in errs))
        sys.exit(1)
    print("%s: valid, %d figures, %d tables" % (path, figs, p.seen.get("table", 0)))


main()
