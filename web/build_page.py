#!/usr/bin/env python3
"""Inlines the model's WebAssembly (base64), its loader, the page script and
the style sheet into web/lesson.html: one self-contained HTML file.

usage: build_page.py web/lesson.html build/.../streamdisk_model.wasm OUT.html
"""
import base64
import os
import sys


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: build_page.py lesson.html model.wasm out.html\n")
        return 2
    template, wasm, out = argv[1:]
    web = os.path.dirname(os.path.abspath(template))

    def read(name):
        with open(os.path.join(web, name), encoding="utf-8") as f:
            return f.read()

    with open(wasm, "rb") as f:
        blob = base64.b64encode(f.read()).decode("ascii")
    page = read(os.path.basename(template))
    for marker, text in (("/*LESSON_CSS*/", read("lesson.css")), ("/*MODEL_JS*/", read("model.js")),
                         ("/*WASM_BASE64*/", blob), ("/*LESSON_JS*/", read("lesson.js"))):
        if page.count(marker) != 1:
            sys.stderr.write(f"build_page.py: {template} must hold {marker} exactly once\n")
            return 2
        page = page.replace(marker, text)
    # Written whole or not at all.
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
