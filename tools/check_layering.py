#!/usr/bin/env python3
"""Checks the include structure of the repository against its layering (docs/engineering.md).

    tools/check_layering.py [ROOT]

Reports, as `file:line:col: error: ...`:
  - an include of a library that its directory may not use (the library DAG ir <- interp,
    ir <- planner <- gpu <- props <- tools, and gpu + interp <- repro <- tools, repro never used
    by props; fuzzers may use ir, interp, planner and props; bench and corpus may use everything);
  - an include between props/ concept folders against the props pipeline (props/README.md); tests
    (`*_test.cpp`) are leaves that nothing includes, so they may use any folder to check theirs;
  - an include cycle between files;
  - a props/ source file (not a test) longer than the limit (500 lines).
Exit 0 when the tree follows the rules, 1 otherwise.
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))

# Which top-level libraries each directory may include (itself always).
LIBRARIES = {
    'ir': set(),
    'interp': {'ir'},
    'planner': {'ir'},
    'gpu': {'ir', 'planner'},
    'repro': {'ir', 'interp', 'planner', 'gpu'},
    'props': {'ir', 'interp', 'planner', 'gpu'},
    'tools': {'ir', 'interp', 'planner', 'gpu', 'repro', 'props'},
    'bench': {'ir', 'interp', 'planner', 'gpu', 'repro', 'props', 'tools'},
    'fuzzers': {'ir', 'interp', 'planner', 'props'},
    'corpus': {'ir', 'interp', 'planner', 'gpu', 'repro', 'props', 'tools'},
}
# The props pipeline: which concept folders each folder may include (itself always).
PROPS_FOLDERS = {
    'gen': set(),
    'oracle': {'gen'},
    'reduce': {'gen', 'oracle'},
    'prove': {'gen', 'oracle'},
    'campaign': {'gen', 'oracle', 'reduce'},
    'mutants': {'gen', 'oracle', 'reduce', 'campaign', 'prove'},
}
PROPS_LINE_LIMIT = 500
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE = re.compile(r'\.(cpp|hpp|h)$')


def acyclic(graph):
    state = {}

    def visit(n):
        state[n] = 1
        for m in graph.get(n, ()):
            if state.get(m) == 1 or (m not in state and not visit(m)):
                return False
        state[n] = 2
        return True

    return all(state.get(n) == 2 or visit(n) for n in graph)


def main():
    problems = []

    def report(path, line, col, message):
        problems.append(f'{path}:{line}:{col}: error: {message}')

    for name, graph in (('library', LIBRARIES), ('props folder', PROPS_FOLDERS)):
        if not acyclic({k: v for k, v in graph.items()}):
            report('tools/check_layering.py', 1, 1, f'the allowed {name} dependencies have a cycle')

    files = []
    for top in LIBRARIES:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames.sort()
            for f in sorted(filenames):
                if SOURCE.search(f):
                    files.append(os.path.relpath(os.path.join(dirpath, f), ROOT))

    edges = {}
    for path in files:
        parts = path.split('/')
        top = parts[0]
        folder = parts[1] if top == 'props' and len(parts) > 2 else None
        lines = open(os.path.join(ROOT, path), encoding='utf-8').read().split('\n')
        for lineno, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            col = line.index('"') + 1
            tparts = target.split('/')
            if tparts[0] not in LIBRARIES:
                continue
            if not os.path.isfile(os.path.join(ROOT, target)):
                report(path, lineno, col, f'includes "{target}", which does not exist')
                continue
            edges.setdefault(path, set()).add(target)
            if tparts[0] != top and tparts[0] not in LIBRARIES[top]:
                report(path, lineno, col, f'{top}/ may not include {tparts[0]}/ ("{target}")')
            if folder and tparts[0] == 'props' and not path.endswith('_test.cpp'):
                tfolder = tparts[1] if len(tparts) > 2 else None
                if tfolder is None:
                    report(path, lineno, col, f'includes "{target}" outside the props concept folders')
                elif tfolder != folder and tfolder not in PROPS_FOLDERS.get(folder, set()):
                    report(path, lineno, col, f'props/{folder}/ may not include props/{tfolder}/ ("{target}")')
        if top == 'props':
            if folder is None:
                report(path, 1, 1, 'props/ sources live in its concept folders (props/README.md)')
            elif folder not in PROPS_FOLDERS:
                report(path, 1, 1, f'props/{folder}/ is not a concept folder of props/README.md')
            if not path.endswith('_test.cpp') and len(lines) > PROPS_LINE_LIMIT + 1:
                report(path, PROPS_LINE_LIMIT + 1, 1,
                       f'{len(lines) - 1} lines: props/ sources stay under {PROPS_LINE_LIMIT} (split it by job)')

    # Include cycles between files: depth-first search over the include graph.
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                cycle = stack[stack.index(m):] + [m]
                report(n, 1, 1, 'include cycle: ' + ' -> '.join(cycle))
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(edges):
        if n not in state:
            visit(n)

    for p in problems:
        print(p)
    print(f'check_layering: {len(files)} files, {sum(len(v) for v in edges.values())} includes, '
          f'{len(problems)} problem{"s" if len(problems) != 1 else ""}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
