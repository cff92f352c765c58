#!/usr/bin/env python3
"""Checks that every documentation reference in the repository resolves inside it.

    tools/check_docs.py [ROOT]

Scans the sources, scripts, corpus cases and Markdown files of ROOT (default: the repository of
this script) and reports, as `file:line:col: error: ...`:
  - a path `docs/NAME.md` (or a relative Markdown link to a file) that does not exist;
  - `docs/NAME.md §N.M` whose doc has no anchor `sN-M`, and `docs/NAME.md#anchor` or a Markdown
    link `NAME.md#anchor` whose doc has no `<a id="anchor">` (nor a heading with that slug);
  - a bare `§N` on a line that names no doc before it (it must say which doc it means);
  - a reference to material outside the repository: the background note's "spec" citations, the
    research note itself, the seed files,
    `../shared`, the background notes on toolchain, style or anchors.
Exit 0 when everything resolves, 1 otherwise (one line per problem, then a count).
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
SKIP_DIRS = {'.git', 'out', 'dist', '.cache', '__pycache__', 'node_modules'}
EXTS = ('.cpp', '.hpp', '.h', '.md', '.gc', '.sh', '.py', '.cmake', '.cl', '.json', '.txt')

OUTSIDE = [
    (re.compile(r'\bspec\s§'), 'cites the background spec: name a doc of this repository instead'),
    (re.compile(r'vyre-0\.7\.2-spec'), 'names the research note, which is not in this repository'),
    (re.compile(r'\.\./shared|shared/seeds|shared/docs'), 'points outside the repository'),
    (re.compile(r'toolchain\.md|toolchain notes'), 'names a toolchain note that is not in this repository (docs/building.md)'),
    (re.compile(r'style-anchors|anchors\.md'), 'names a background note that is not in this repository (docs/engineering.md)'),
]
DOC_PATH = re.compile(r'(?<![\w./-])((?:\.\./)*docs/[\w.-]+\.md)(?:#([\w-]+)|`? ?§ ?(\d+(?:\.\d+)*))?')
MD_LINK = re.compile(r'\]\(([^)\s]+?)\)')
BARE_SECTION = re.compile(r'§ ?(\d+(?:\.\d+)*)')
ANCHOR = re.compile(r'<a id="([\w-]+)"></a>')
HEADING = re.compile(r'(?m)^#{1,6} (.+)$')


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(' ', '-')


_anchor_cache = {}


def anchors_of(path):
    if path not in _anchor_cache:
        text = open(path, encoding='utf-8').read()
        ids = set(ANCHOR.findall(text))
        ids.update(slug(h) for h in HEADING.findall(text))
        _anchor_cache[path] = ids
    return _anchor_cache[path]


def walk():
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith('build'))
        for f in sorted(filenames):
            if f.endswith(EXTS) or f == 'CMakeLists.txt':
                yield os.path.join(dirpath, f)


def main():
    problems = []
    # The checker and its tests quote broken references on purpose.
    exempt = {os.path.abspath(__file__), os.path.join(os.path.dirname(os.path.abspath(__file__)), 'check_scripts_test.py')}

    def report(path, lineno, col, message):
        problems.append(f'{os.path.relpath(path, ROOT)}:{lineno}:{col}: error: {message}')

    def check_target(path, lineno, col, target, anchor, section):
        if not os.path.isfile(target):
            report(path, lineno, col, f'{os.path.relpath(target, ROOT)} does not exist')
            return
        if not target.endswith('.md'):
            return
        if section is not None:
            want = 's' + section.replace('.', '-')
            if want not in anchors_of(target):
                report(path, lineno, col, f'{os.path.relpath(target, ROOT)} has no section §{section} (anchor "{want}")')
        if anchor is not None and anchor not in anchors_of(target):
            report(path, lineno, col, f'{os.path.relpath(target, ROOT)} has no anchor "#{anchor}"')

    for path in walk():
        if os.path.abspath(path) in exempt:
            continue
        try:
            lines = open(path, encoding='utf-8').read().split('\n')
        except UnicodeDecodeError:
            continue
        is_md = path.endswith('.md')
        for lineno, line in enumerate(lines, 1):
            for pattern, message in OUTSIDE:
                for m in pattern.finditer(line):
                    report(path, lineno, m.start() + 1, message)
            named = []  # (column, doc) of the docs this line names, for bare § references after them
            for m in DOC_PATH.finditer(line):
                rel = m.group(1)
                base = os.path.dirname(path) if rel.startswith('..') else ROOT
                target = os.path.normpath(os.path.join(base, rel))
                if not rel.startswith('..') and not os.path.isfile(target) and is_md:
                    target = os.path.normpath(os.path.join(os.path.dirname(path), rel))
                check_target(path, lineno, m.start() + 1, target, m.group(2), m.group(3))
                named.append((m.start(), target))
            if is_md:
                for m in MD_LINK.finditer(line):
                    link = m.group(1)
                    if re.match(r'^[a-z]+:', link) or link.startswith('#'):
                        if link.startswith('#') and link[1:] not in anchors_of(path):
                            report(path, lineno, m.start() + 3, f'no anchor "{link}" in this file')
                        continue
                    file_part, _, anchor = link.partition('#')
                    target = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                    check_target(path, lineno, m.start() + 3, target, anchor or None, None)
                    if target.endswith('.md'):
                        named.append((m.start(), target))
            doc_spans = [(m.start(), m.end()) for m in DOC_PATH.finditer(line)]
            for m in BARE_SECTION.finditer(line):
                if any(a <= m.start() < b for a, b in doc_spans):
                    continue  # the § of a `docs/NAME.md §N` reference, checked above
                if is_md and line.rfind('[', 0, m.start()) > line.rfind(']', 0, m.start()):
                    continue  # inside a Markdown link's text: the link target is checked
                before = [doc for col, doc in named if col < m.start()]
                if not before and is_md:
                    before = [path]  # a Markdown file's bare § means its own sections
                if not before:
                    report(path, lineno, m.start() + 1, f'§{m.group(1)} does not say which doc it means')
                    continue
                doc = before[-1]
                if doc.endswith('.md') and os.path.isfile(doc):
                    want = 's' + m.group(1).replace('.', '-')
                    if want not in anchors_of(doc):
                        report(path, lineno, m.start() + 1,
                               f'{os.path.relpath(doc, ROOT)} has no section §{m.group(1)} (anchor "{want}")')

    for p in problems:
        print(p)
    print(f'check_docs: {len(problems)} problem{"s" if len(problems) != 1 else ""}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
