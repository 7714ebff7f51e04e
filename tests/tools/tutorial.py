#!/usr/bin/env python3
"""Runs the commands of tutorial pages and checks their printed output, so the
docs cannot drift from the tool.

    tutorial.py check FILE.md...    # what the test does
    tutorial.py update FILE.md...   # rewrite the outputs from real runs

In a ```console block, a line starting with "$ " is a command (a trailing
backslash continues it on the next line); the lines after it, up to the next
command or the end of the block, are its expected output (stdout and stderr).
In an expected line, "..." matches any text (for timings that vary from run
to run). Every page runs in its own empty directory, with `streamdisk` on
PATH (the binary in $STREAMDISK); files made by one command stay for the next.
"""
import os
import re
import subprocess
import sys
import tempfile


def parse(lines):
    """Yields (block_start, block_end, [(cmd, cmd_lines, expected)])."""
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        start, i, items = i, i + 1, []
        while i < len(lines) and lines[i].strip() != "```":
            if lines[i].startswith("$ "):
                cmd_lines = [lines[i]]
                while cmd_lines[-1].rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    cmd_lines.append(lines[i])
                cmd = "\n".join(l[2:] if k == 0 else l for k, l in enumerate(cmd_lines))
                items.append([cmd, cmd_lines, []])
            elif items:
                items[-1][2].append(lines[i])
            i += 1
        yield start, i, items
        i += 1


def matches(expected, actual):
    if "..." not in expected:
        return expected.rstrip() == actual.rstrip()
    pattern = ".*".join(re.escape(p) for p in expected.rstrip().split("..."))
    return re.fullmatch(pattern, actual.rstrip()) is not None


def run(cmd, cwd, env):
    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=300, text=True)
    out = p.stdout.rstrip("\n")
    return p.returncode, out.split("\n") if out else []


def process(path, update):
    lines = open(path, encoding="utf-8").read().split("\n")
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(env["STREAMDISK"])) + ":" + env["PATH"]
    env["LC_ALL"] = "C"
    failures, out_lines, last = [], [], 0
    commands = 0
    with tempfile.TemporaryDirectory() as cwd:
        for start, end, items in parse(lines):
            out_lines += lines[last:start + 1]
            for cmd, cmd_lines, expected in items:
                commands += 1
                rc, actual = run(cmd, cwd, env)
                if rc != 0:
                    failures.append("%s: `%s` exited with %d:\n%s" % (path, cmd, rc, "\n".join(actual[-5:])))
                ok = len(expected) == len(actual) and all(matches(e, a) for e, a in zip(expected, actual))
                if not ok and not update:
                    diff = [("  - " + e, "  + " + a) for e, a in zip(expected + [""] * len(actual),
                                                                    actual + [""] * len(expected)) if not matches(e, a)]
                    failures.append("%s: output of `%s` differs (- documented, + actual):\n%s" % (
                        path, cmd, "\n".join(d for pair in diff[:8] for d in pair)))
                out_lines += cmd_lines
                out_lines += expected if ok else actual
            out_lines.append(lines[end] if end < len(lines) else "```")
            last = end + 1
        out_lines += lines[last:]
    if update:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(out_lines))
    if commands == 0:
        failures.append("%s: no ```console commands found" % path)
    return failures, commands


def main():
    mode, files = sys.argv[1], sys.argv[2:]
    if mode not in ("check", "update") or not files:
        sys.exit(__doc__)
    all_failures, total = [], 0
    for f in files:
        fails, n = process(f, mode == "update")
        all_failures += fails
        total += n
    for f in all_failures:
        print(f)
    print("%d commands in %d pages: %s" % (total, len(files), "ok" if not all_failures else "%d problems" % len(all_failures)))
    sys.exit(1 if all_failures else 0)


main()
