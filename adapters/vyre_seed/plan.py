#!/usr/bin/env python3
"""vyre-seed: an external gridcheck planner (protocol gridcheck-plan/1, docs/plan-protocol.md).

A Python port of vyre-driver 0.7.2's grid_sync split (segment_buffers.rs, live_buffers.rs), bugs
included. Reads JSON lines on stdin, writes one JSON line per request on stdout, logs to stderr.

    python3 adapters/vyre_seed/plan.py            # serve the protocol on stdin/stdout
    python3 adapters/vyre_seed/plan.py FILE.gc    # print the plan response for one case file
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gc_program  # noqa: E402
import vyre_split  # noqa: E402

PROTOCOL = "gridcheck-plan/1"
PLANNER = "vyre-seed"
VERSION = "0.7.2"


def log(msg):
    sys.stderr.write("vyre-seed: %s\n" % msg)
    sys.stderr.flush()


def make_plan(program_text):
    """The `plan` object of an ok response for a program text (raises on bad input)."""
    program = gc_program.parse_program(program_text)
    plan = vyre_split.plan_host_grid_sync_segments(program)
    return {
        "segments": [{
            "program": gc_program.print_program(s.program),
            "inputs": s.input_names,
            "outputs": s.output_names,
            "lets": s.lets,
        } for s in plan.segments],
        "caller_inputs": plan.caller_inputs,
        "final_outputs": plan.final_outputs,
        "dispatch": {"convergence": "fingerprint", "grid": "per-segment"},
    }


def answer(request):
    """The response object for one request object."""
    kind = request.get("type") if isinstance(request, dict) else None
    if kind == "hello":
        proto = request.get("protocol")
        if proto != PROTOCOL:
            log("gridcheck speaks %r; answering with %s" % (proto, PROTOCOL))
        return {"type": "hello", "protocol": PROTOCOL, "planner": PLANNER, "version": VERSION}
    if kind == "plan":
        rid = request.get("id")
        program = request.get("program")
        if not isinstance(program, str):
            return {"type": "plan", "id": rid, "status": "error", "message": "request has no program text"}
        try:
            return {"type": "plan", "id": rid, "status": "ok", "plan": make_plan(program)}
        except RecursionError:
            return {"type": "plan", "id": rid, "status": "error", "message": "program nested too deeply"}
        except Exception as e:  # any failure is an `error` answer, never a crash
            msg = "%s: %s" % (type(e).__name__, e)
            log("case %s: %s" % (request.get("case"), msg))
            return {"type": "plan", "id": rid, "status": "error", "message": msg}
    return {"type": kind if isinstance(kind, str) else "error", "id": request.get("id") if isinstance(request, dict) else None,
            "status": "error", "message": "unknown request type %r" % (kind,)}


def serve(stdin, stdout):
    dumps = json.dumps
    for line in stdin:
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except ValueError as e:
            log("request is not JSON: %s" % e)
            request = {"type": "error"}
        try:
            response = answer(request)
        except Exception as e:
            response = {"type": "plan", "id": request.get("id") if isinstance(request, dict) else None,
                        "status": "error", "message": "%s: %s" % (type(e).__name__, e)}
        stdout.write(dumps(response, ensure_ascii=True, separators=(",", ":")) + "\n")
        stdout.flush()


def main(argv):
    sys.setrecursionlimit(20000)
    if len(argv) > 1:
        with open(argv[1], encoding="utf-8") as f:
            text = f.read()
        print(json.dumps(answer({"type": "plan", "id": 1, "case": argv[1], "program": text}), indent=2))
        return 0
    try:
        sys.stdin.reconfigure(encoding="utf-8", errors="replace")
    except (AttributeError, ValueError):
        pass
    try:
        serve(sys.stdin, sys.stdout)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
