#!/usr/bin/env python3
"""Twin tests of tools/check_docs.py and tools/check_layering.py: each checker stays silent on a
small tree that follows the rules and reports every kind of problem it promises on one that does
not (a checker that never fails proves nothing).

    tools/check_scripts_test.py
Prints one line per case and `N passed, N failed`; exit 1 on any failure.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def write(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w', encoding='utf-8') as f:
            f.write(text)


def run(script, files):
    with tempfile.TemporaryDirectory() as root:
        write(root, files)
        p = subprocess.run([sys.executable, os.path.join(HERE, script), root], capture_output=True, text=True)
        return p.returncode, p.stdout


GOOD_DOCS = {
    'docs/semantics.md': '<a id="s3"></a>\n## 3. Execution\n\n<a id="s3-2"></a>\n### 3.2 Locals\n\nSee §3.\n',
    'docs/vyre-0.7.2.md': '<a id="s10"></a>\n## 10. Classes\n\n<a id="g5"></a>**G5** fence under if.\n'
                          'Scoping: [§3.2](semantics.md#s3-2).\n',
    'README.md': 'Read [the semantics](docs/semantics.md#s3) and [G5](docs/vyre-0.7.2.md#g5).\n',
    'ir/a.hpp': '// Locals (docs/semantics.md §3.2); fences under if: docs/vyre-0.7.2.md#g5, §10.\n',
    'corpus/c.gc': 'meta origin "docs/vyre-0.7.2.md §10; §10 again"\n',
}
BAD_DOCS = {
    'docs/semantics.md': '<a id="s3"></a>\n## 3. Execution\n',
    'README.md': 'See [missing](docs/nothere.md) and [bad anchor](docs/semantics.md#s9).\n',
    'ir/a.hpp': '// ' + 'spec' + ' §3.2 says so; docs/semantics.md §4 too; docs/semantics.md#zz.\n'
                '// the split of §6.8 alone\n'
                '// background in ../shared/docs and docs/toolchain.md\n',
}

GOOD_TREE = {
    'ir/program.hpp': '#pragma once\n',
    'interp/run.hpp': '#pragma once\n#include "ir/program.hpp"\n',
    'props/gen/g.hpp': '#pragma once\n#include "ir/program.hpp"\n',
    'props/oracle/o.hpp': '#pragma once\n#include "props/gen/g.hpp"\n',
    'props/gen/g_test.cpp': '#include "props/oracle/o.hpp"\n',  # tests may look downstream
}
BAD_TREE = {
    'ir/program.hpp': '#pragma once\n#include "interp/run.hpp"\n',      # ir may use nothing
    'interp/run.hpp': '#pragma once\n#include "ir/program.hpp"\n',      # ... and this closes a cycle
    'props/gen/g.hpp': '#pragma once\n#include "props/oracle/o.hpp"\n',  # gen is upstream of oracle
    'props/oracle/o.hpp': '#pragma once\n#include "props/gen/g.hpp"\n',
    'props/flat.cpp': '// not in a concept folder\n',
    'props/gen/long.cpp': '//\n' * 600,
    'planner/p.hpp': '#pragma once\n#include "ir/missing.hpp"\n',
}


def main():
    cases = []

    def case(name, ok):
        cases.append((name, ok))
        print(f'{"PASS" if ok else "FAIL"} {name}')

    rc, out = run('check_docs.py', GOOD_DOCS)
    case('check_docs is silent on a tree whose references resolve', rc == 0 and '0 problems' in out)
    if rc != 0:
        print(out)
    rc, out = run('check_docs.py', BAD_DOCS)
    case('check_docs fails on a tree with broken references', rc == 1)
    for needle in ['docs/nothere.md does not exist', 'no anchor "#s9"', 'cites the background spec',
                   'has no section §4', 'no anchor "#zz"', '§6.8 does not say which doc it means',
                   'points outside the repository', 'toolchain note', 'ir/a.hpp:1:']:
        case(f'check_docs reports: {needle}', needle in out)

    rc, out = run('check_layering.py', GOOD_TREE)
    case('check_layering is silent on a layered tree', rc == 0 and '0 problems' in out)
    if rc != 0:
        print(out)
    rc, out = run('check_layering.py', BAD_TREE)
    case('check_layering fails on a tree that breaks the layering', rc == 1)
    for needle in ['ir/ may not include interp/', 'include cycle:', 'props/gen/ may not include props/oracle/',
                   'props/ sources live in its concept folders', 'lines: props/ sources stay under 500',
                   'includes "ir/missing.hpp", which does not exist']:
        case(f'check_layering reports: {needle}', needle in out)

    failed = sum(1 for _, ok in cases if not ok)
    print(f'{len(cases) - failed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
