#!/usr/bin/env python3
"""The house in figures: what issue 55 measures before and after a refactor, from the main code of every module.

    scripts/house.py                 # a table per figure, for the tree it is run in
    scripts/house.py --json out.json # the same figures as JSON, to compare two commits
    scripts/house.py --compare before.json after.json

Per module (src/main/java): lines (non-blank), top-level types, public top-level types, public nested types,
`instanceof` occurrences. For the whole main code: the longest methods (lines from the signature to the closing
brace at the same indent), the largest classes (lines per file), constructors and records with more than 8
parameters. The parsing is by indentation and regular expressions, which the project's formatting (4 spaces, braces
at the end of the line) makes exact enough; a figure is for comparing two commits of this tree, not other code.
"""
import argparse
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOP_TYPE = re.compile(r"^(public\s+)?((abstract|final|sealed|non-sealed|static|strictfp)\s+)*"
                      r"(class|interface|enum|record|@interface)\s+(\w+)")
NESTED_PUBLIC = re.compile(r"^\s{4,}public\s+((abstract|final|sealed|non-sealed|static|strictfp)\s+)*"
                           r"(class|interface|enum|record|@interface)\s+\w+")
METHOD = re.compile(r"^(\s+)(?:(?:public|protected|private|static|final|synchronized|abstract|default|native)\s+)*"
                    r"(?:<[^>]+>\s+)?[\w.<>\[\], ?]+\s+(\w+)\s*\(")
CONSTRUCTOR_OR_RECORD = re.compile(r"^\s*(?:(?:public|protected|private|static|final)\s+)*(?:record\s+)?(\w+)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "new", "else", "try", "synchronized", "throw"}


def modules():
    for pom in sorted(ROOT.glob("*/pom.xml")):
        main = pom.parent / "src" / "main" / "java"
        if main.is_dir():
            yield pom.parent.name, main


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"//[^\n]*", "", text)


def methods(lines):
    """(name, first line, length) of each method or constructor whose body opens on its signature's lines."""
    out = []
    i = 0
    while i < len(lines):
        m = METHOD.match(lines[i]) or CONSTRUCTOR_OR_RECORD.match(lines[i])
        name = m.group(2) if m and m.re is METHOD else (m.group(1) if m else None)
        declares_type = re.search(r"\b(class|interface|enum|record)\s+\w+", lines[i])
        if m and name not in KEYWORDS and not declares_type and not lines[i].rstrip().endswith(";"):
            indent = len(lines[i]) - len(lines[i].lstrip())
            j = i
            while j < len(lines) and "{" not in lines[j] and not lines[j].rstrip().endswith(";"):
                j += 1
            if j < len(lines) and "{" in lines[j] and not lines[j].rstrip().endswith("};"):
                k = j + 1
                closing = " " * indent + "}"
                while k < len(lines) and not lines[k].rstrip() == closing:
                    k += 1
                if k < len(lines):
                    out.append((name, i + 1, k - i + 1))
                    i = j
        i += 1
    return out


def parameters(text):
    """(name, line, count) of constructors and records declared with more than 8 parameters."""
    out = []
    for m in re.finditer(r"(?:record\s+(\w+)|(?:public|protected|private)\s+(\w+))\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*"
                         r"(?:implements[^{]*|throws[^{]*)?\{", text):
        name = m.group(1) or m.group(2)
        params = m.group(3).strip()
        if not params or name in KEYWORDS:
            continue
        depth, count = 0, 1
        for ch in params:
            depth += ch in "<(" and 1 or 0
            depth -= ch in ">)" and 1 or 0
            count += ch == "," and depth == 0
        if count > 8:
            out.append((name, text[:m.start()].count("\n") + 1, count))
    return out


def measure():
    per_module, longest, largest, wide = {}, [], [], []
    for name, main in modules():
        figures = {"lines": 0, "types": 0, "public": 0, "publicNested": 0, "instanceof": 0, "files": 0}
        for f in sorted(main.rglob("*.java")):
            if f.name in ("package-info.java", "module-info.java"):
                continue
            text = strip_comments(f.read_text(encoding="utf-8"))
            lines = text.split("\n")
            code = [line for line in lines if line.strip()]
            rel = str(f.relative_to(ROOT))
            figures["files"] += 1
            figures["lines"] += len(code)
            figures["instanceof"] += len(re.findall(r"\binstanceof\b", text))
            for line in lines:
                t = TOP_TYPE.match(line)
                if t:
                    figures["types"] += 1
                    figures["public"] += bool(t.group(1))
                elif NESTED_PUBLIC.match(line):
                    figures["publicNested"] += 1
            largest.append((len(code), rel))
            longest.extend((n, rel + ":" + str(first) + " " + method) for method, first, n in methods(lines))
            wide.extend((count, rel + ":" + str(line) + " " + what) for what, line, count in parameters(text))
        per_module[name] = figures
    longest.sort(reverse=True)
    largest.sort(reverse=True)
    wide.sort(reverse=True)
    return {"modules": per_module,
            "methodsOver80": len([n for n, _ in longest if n > 80]),
            "longestMethods": longest[:15],
            "largestFiles": largest[:10],
            "over8Parameters": len(wide),
            "widest": wide[:15]}


def show(figures):
    print("| module | files | lines | types | public | public nested | instanceof |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    total = {k: 0 for k in ("files", "lines", "types", "public", "publicNested", "instanceof")}
    for name, m in figures["modules"].items():
        print(f"| {name} | {m['files']} | {m['lines']} | {m['types']} | {m['public']} | {m['publicNested']} | "
              f"{m['instanceof']} |")
        for k in total:
            total[k] += m[k]
    print(f"| all | {total['files']} | {total['lines']} | {total['types']} | {total['public']} | "
          f"{total['publicNested']} | {total['instanceof']} |")
    print(f"\nmethods over 80 lines: {figures['methodsOver80']}; the longest:")
    for n, where in figures["longestMethods"]:
        print(f"  {n:5d}  {where}")
    print("largest files (non-blank lines):")
    for n, where in figures["largestFiles"]:
        print(f"  {n:5d}  {where}")
    print(f"constructors and records over 8 parameters: {figures['over8Parameters']}; the widest:")
    for n, where in figures["widest"]:
        print(f"  {n:5d}  {where}")


def compare(before, after):
    print("| module | lines | public | instanceof |")
    print("| --- | --- | --- | --- |")
    for name in sorted(set(before["modules"]) | set(after["modules"])):
        b, a = before["modules"].get(name), after["modules"].get(name)
        cell = lambda k: f"{b[k] if b else '—'} → {a[k] if a else '—'}"
        print(f"| {name} | {cell('lines')} | {cell('public')} | {cell('instanceof')} |")
    for k in ("methodsOver80", "over8Parameters"):
        print(f"{k}: {before[k]} → {after[k]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args()
    if args.compare:
        compare(*(json.loads(pathlib.Path(p).read_text()) for p in args.compare))
        return 0
    figures = measure()
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(figures, indent=1))
    show(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
