#!/usr/bin/env python3
"""Measures the first javadoc paragraph of every top-level type in the main sources.

A paragraph is long when it has more than two sentences or more than three lines. Prints the
long ones and the share; exits 1 when the share passes --max-share (a fraction, default 0.10).
Usage: scripts/javadoc-contracts.py [--max-share F] [DIR...]   (default: */src/main/java)
"""
import glob
import re
import sys

TYPE = re.compile(r'^(?:public |protected |private )?(?:abstract |final |sealed |non-sealed |static )*'
                  r'(?:class|interface|enum|record|@interface) (\w+)', re.M)
JAVADOC = re.compile(r'/\*\*(.*?)\*/\s*(?:@[\w.]+(?:\([^)]*\))?\s*)*$', re.S)


def first_paragraph(doc):
    lines = [re.sub(r'^\s*\* ?', '', l).rstrip() for l in doc.strip('\n').split('\n')]
    out = []
    for l in lines:
        if not l.strip():
            if out:
                break
            continue
        if l.lstrip().startswith('<p>') or l.lstrip().startswith('@'):
            break
        out.append(l.strip())
    return out


def sentences(text):
    # Drop inline tags and code, then count ". " / "? " / "! " ends and a final one.
    text = re.sub(r'\{@\w+[^}]*\}', 'X', text)
    text = re.sub(r'\b(e\.g|i\.e|etc|vs)\.', 'X', text)
    ends = re.findall(r'[.?!](?:\s|$)', text)
    return max(1, len(ends))


def main(argv):
    limit = 0.10
    dirs = []
    i = 0
    while i < len(argv):
        if argv[i] == '--max-share':
            limit = float(argv[i + 1])
            i += 2
        else:
            dirs.append(argv[i])
            i += 1
    files = []
    for d in dirs or glob.glob('*/src/main/java'):
        files += glob.glob(d + '/**/*.java', recursive=True)
    types = 0
    long_ones = []
    for f in sorted(files):
        if f.endswith('package-info.java'):
            continue
        src = open(f, encoding='utf-8').read()
        m = TYPE.search(src)
        if not m:
            continue
        types += 1
        before = src[:m.start()]
        doc = JAVADOC.search(before)
        if not doc:
            continue
        para = first_paragraph(doc.group(1))
        n = sentences(' '.join(para))
        if n > 2 or len(para) > 3:
            long_ones.append((f, len(para), n))
    for f, lines, n in long_ones:
        print(f'{f}: first paragraph {lines} lines, {n} sentences')
    share = len(long_ones) / types if types else 0
    print(f'{len(long_ones)} of {types} types open with a long first paragraph '
          f'({share:.0%}; limit {limit:.0%})')
    return 1 if share > limit else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
