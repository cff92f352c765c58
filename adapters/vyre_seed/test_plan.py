#!/usr/bin/env python3
"""Compare vyre-seed's plans with gridcheck's built-in vyre-0.7.2 port, case by case.

For every corpus case (corpus/*.gc, corpus/fuzz/*.gc, corpus/dag/*.gc, plus any files or
directories given on the command line) whose program has a fence, this runs

    build/tools/gridcheck plan --profile vyre-0.7.2 --json FILE

and compares, segment by segment: the number of segments, each segment's buffer declarations
(order, access, binding, count, element, flags, range, kind), its inputs, outputs and let prefix,
the caller inputs and final outputs, and each segment's program text (gridcheck's `ir` text
normalised through this adapter's parser and printer, against the adapter's printed segment).
It also checks that every segment text the adapter prints is accepted by `gridcheck fmt` and
printed back unchanged (skip with --no-fmt).

Prints every disagreement, then `N passed, N failed`; exit 0 when all pass, 1 otherwise.

    python3 adapters/vyre_seed/test_plan.py [--gridcheck PATH] [--no-fmt] [--bench] [FILE|DIR ...]
"""

import glob
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import gc_program  # noqa: E402
import plan as planner  # noqa: E402
import vyre_split  # noqa: E402


def run_tool(argv, retries=5):
    """Run gridcheck, retrying while the binary is being relinked by someone else."""
    for attempt in range(retries):
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            if attempt + 1 == retries:
                raise
            time.sleep(2)


def program_part(case_text):
    """The program lines of a `gridcheck fmt` output (drops case/meta/grid/fixpoint/input/expect)."""
    out = []
    skipping_list = False
    for line in case_text.split("\n"):
        if skipping_list:
            if line.startswith("]"):
                skipping_list = False
            continue
        if line.startswith(("case ", "meta ", "grid ", "fixpoint ", "#", "expect ", "input ")):
            if line.rstrip().endswith("["):
                skipping_list = True
            continue
        out.append(line)
    s = "\n".join(out)
    while "\n\n\n" in s:
        s = s.replace("\n\n\n", "\n\n")
    return s.strip("\n") + "\n"


def buffer_row_gridcheck(b):
    r = b.get("output_byte_range")
    return (b["name"], b["element"], b["count"], b["access"], b["binding"], bool(b["is_output"]),
            bool(b["pipeline_live_out"]), tuple(r) if r is not None else None, b["kind"])


def buffer_row_seed(b):
    return (b.name, b.element, b.count, b.access, b.binding, b.is_output, b.live_out,
            tuple(b.range) if b.range is not None else None, b.kind)


def normalise(text):
    return gc_program.print_program(gc_program.parse_program(text))


def fmt_check(gridcheck, text, tmpdir):
    """None when gridcheck's parser accepts `text` and prints it back unchanged, else a message."""
    path = os.path.join(tmpdir, "segment.gc")
    with open(path, "w", encoding="utf-8") as f:
        f.write("case segment\n" + text)
    r = run_tool([gridcheck, "fmt", path])
    if r.returncode != 0:
        return "gridcheck fmt rejects the segment: " + (r.stderr.strip().splitlines() or ["?"])[0]
    back = program_part(r.stdout)
    if back != text:
        return "gridcheck fmt prints the segment differently:\n" + back
    return None


def compare(path, gc_plan, seed_plan):
    """List of disagreement strings."""
    d = []
    g_segs = gc_plan["segments"]
    s_segs = seed_plan.segments
    if len(g_segs) != len(s_segs):
        d.append("segment count: gridcheck %d, seed %d" % (len(g_segs), len(s_segs)))
    for k, (g, s) in enumerate(zip(g_segs, s_segs)):
        gb = [buffer_row_gridcheck(b) for b in g["buffers"]]
        sb = [buffer_row_seed(b) for b in s.program.buffers]
        if gb != sb:
            d.append("segment %d buffers:\n    gridcheck %s\n    seed      %s" % (k, gb, sb))
        for field, gv, sv in (("inputs", g["inputs"], s.input_names),
                              ("outputs", g["outputs"], s.output_names),
                              ("lets", g.get("let_prefix", []), s.lets)):
            if list(gv) != list(sv):
                d.append("segment %d %s: gridcheck %s, seed %s" % (k, field, gv, sv))
        if "ir" in g:
            mine = gc_program.print_program(s.program)
            try:
                theirs = normalise(g["ir"])
            except Exception as e:  # gridcheck printed something this parser rejects
                d.append("segment %d program: seed parser rejects gridcheck's text (%s)" % (k, e))
                continue
            if theirs != g["ir"]:
                d.append("segment %d program: gridcheck's text is not canonical for the seed printer" % k)
            if theirs != mine:
                d.append("segment %d program:\n--- gridcheck\n%s--- seed\n%s" % (k, theirs, mine))
    if list(gc_plan["caller_inputs"]) != seed_plan.caller_inputs:
        d.append("caller_inputs: gridcheck %s, seed %s" % (gc_plan["caller_inputs"], seed_plan.caller_inputs))
    if list(gc_plan["final_outputs"]) != seed_plan.final_outputs:
        d.append("final_outputs: gridcheck %s, seed %s" % (gc_plan["final_outputs"], seed_plan.final_outputs))
    return d


def protocol_check():
    """Drive plan.py as gridcheck does: handshake, an ok plan, an error answer, ids in order."""
    program = ("workgroup_size 1 1 1\n\nbuffer buf: u32[4] read_write binding 0\n\n"
               "kernel {\n  buf[0] = 9\n  grid_sync\n}\n")
    lines = [{"type": "hello", "protocol": "gridcheck-plan/1"},
             {"type": "plan", "id": 7, "case": "a1", "program": program, "unknown_field": 1},
             {"type": "plan", "id": 8, "case": "broken", "program": "kernel {\n  x = \n}\n"}]
    stdin = "".join(json.dumps(x) + "\n" for x in lines)
    r = subprocess.run([sys.executable, os.path.join(HERE, "plan.py")], input=stdin,
                       capture_output=True, text=True, timeout=60)
    out = [json.loads(x) for x in r.stdout.splitlines()]
    problems = []
    if r.returncode != 0 or len(out) != 3:
        return ["plan.py exit %d, %d response lines" % (r.returncode, len(out))]
    if out[0] != {"type": "hello", "protocol": "gridcheck-plan/1", "planner": "vyre-seed", "version": "0.7.2"}:
        problems.append("handshake: %s" % out[0])
    ok = out[1]
    if ok.get("id") != 7 or ok.get("status") != "ok":
        problems.append("plan 7: %s" % ok)
    else:
        segs = ok["plan"]["segments"]
        want = [("write_only", [], ["buf"]), ("read_write", ["buf"], ["buf"])]
        got = [("write_only" if "write_only" in s["program"] else "read_write", s["inputs"], s["outputs"])
               for s in segs]
        if got != want or ok["plan"]["caller_inputs"] != ["buf"] or ok["plan"]["final_outputs"] != ["buf"]:
            problems.append("plan 7 (A1 shape): %s" % ok["plan"])
        if ok["plan"]["dispatch"] != {"convergence": "fingerprint", "grid": "per-segment"}:
            problems.append("plan 7 dispatch: %s" % ok["plan"]["dispatch"])
    if out[2].get("id") != 8 or out[2].get("status") != "error" or not out[2].get("message"):
        problems.append("plan 8 should be an error answer: %s" % out[2])
    return problems


def collect(args):
    files = []
    for a in args:
        if os.path.isdir(a):
            files += sorted(glob.glob(os.path.join(a, "*.gc")))
        else:
            files.append(a)
    return files


def bench(files):
    """Plans per second through the protocol handler (parse + split + print + JSON), one core."""
    texts = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            t = fh.read()
        try:
            if vyre_split.contains_grid_sync(gc_program.parse_program(t)):
                texts.append(t)
        except Exception:
            pass
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < 3.0:
        for i, t in enumerate(texts):
            line = json.dumps({"type": "plan", "id": i + 1, "case": "bench", "program": t})
            json.dumps(planner.answer(json.loads(line)), separators=(",", ":"))
            n += 1
    dt = time.perf_counter() - start
    print("bench: %d plans in %.2f s over %d programs: %.0f plans/s" % (n, dt, len(texts), n / dt))


def main(argv):
    sys.setrecursionlimit(20000)
    gridcheck = os.path.join(ROOT, "build", "tools", "gridcheck")
    use_fmt = True
    do_bench = False
    extra = []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--gridcheck":
            gridcheck = argv[i + 1]
            i += 2
            continue
        if a == "--no-fmt":
            use_fmt = False
        elif a == "--bench":
            do_bench = True
        else:
            extra.append(a)
        i += 1
    files = []
    for pattern in ("corpus/*.gc", "corpus/fuzz/*.gc", "corpus/dag/*.gc"):
        files += sorted(glob.glob(os.path.join(ROOT, pattern)))
    files += collect(extra)
    if do_bench:
        bench(files)
        return 0

    passed = failed = skipped = 0
    problems = protocol_check()
    if problems:
        failed += 1
        print("FAIL protocol")
        for p in problems:
            print("  " + p)
    else:
        passed += 1
    tmpdir = tempfile.mkdtemp(prefix="vyre_seed_test_")
    for path in files:
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        problems = []
        try:
            program = gc_program.parse_program(text)
        except Exception as e:
            r = run_tool([gridcheck, "fmt", path])
            if r.returncode != 0:
                skipped += 1  # not a parsable case for gridcheck either
                continue
            print("FAIL %s: seed parser rejects a case gridcheck accepts: %s" % (rel, e))
            failed += 1
            continue
        if not vyre_split.contains_grid_sync(program):
            skipped += 1
            continue
        r = run_tool([gridcheck, "plan", "--profile", "vyre-0.7.2", "--json", path])
        if r.returncode != 0:
            print("SKIP %s: gridcheck plan exit %d: %s" % (rel, r.returncode, r.stderr.strip()[:200]))
            skipped += 1
            continue
        gc_plan = json.loads(r.stdout)
        if not gc_plan.get("contains_fence", True):
            problems.append("routing: gridcheck finds no fence, seed does")
        try:
            seed_plan = vyre_split.plan_host_grid_sync_segments(program)
        except Exception as e:
            problems.append("seed planner failed: %s: %s" % (type(e).__name__, e))
            seed_plan = None
        if seed_plan is not None:
            problems += compare(rel, gc_plan, seed_plan)
            if use_fmt:
                for k, s in enumerate(seed_plan.segments):
                    msg = fmt_check(gridcheck, gc_program.print_program(s.program), tmpdir)
                    if msg:
                        problems.append("segment %d text: %s" % (k, msg))
        if problems:
            failed += 1
            print("FAIL %s" % rel)
            for p in problems:
                print("  " + p.replace("\n", "\n  "))
        else:
            passed += 1
    print("%d passed, %d failed (%d without a fence or not parsable, skipped)" % (passed, failed, skipped))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
