#!/usr/bin/env python3
"""A fake external planner for gridcheck's protocol tests (docs/plan-protocol.md).

Usage: fake_planner.py MODE [ARG]. It answers the handshake, then each plan request as MODE says:

  good           one segment per top-level fence-separated part of the kernel, every buffer declared
                 as in the source except that write_only becomes read_write and the output, live_out
                 and range attributes are dropped (so every storage buffer threads through the live
                 map); correct for straight-line programs without locals or workgroup memory across
                 a fence. convergence exact, grid whole-program.
  chatter        good, with lines on stderr before and after each answer
  crash          killed by SIGSEGV on the first plan request
  crash-once     ARG is a marker file: crash if it does not exist (creating it), else good
  exit-early     exits with status 3 on the first plan request, without answering
  once           good for the first plan request, then exits with status 4 on the next one
  hang           never answers a plan request
  garbage        answers a line that is not JSON
  wrong-id       answers with another id
  unknown-buffer good, plus a declaration of a buffer the source does not have
  contradict     good, with the first buffer's element type changed
  unparsable     good, with a segment that does not parse (line 4)
  refused        status refused, code X001
  error          status error
  bad-protocol   the handshake answers gridcheck-plan/0
  bad-dispatch   good, with convergence "sometimes"
"""
import json
import os
import re
import signal
import sys
import time

BUFFER = re.compile(r"^buffer (\S+): (\w+)\[(\d*)\] (\w+)(.*)$")


def declarations(program):
    """(header lines without buffers, buffer lines, kernel body lines)."""
    lines = program.split("\n")
    header, buffers, body = [], [], []
    k = 0
    while k < len(lines) and not lines[k].startswith("kernel"):
        line = lines[k]
        if line.startswith("buffer "):
            buffers.append(line)
        elif line:
            header.append(line)
        k += 1
    if k < len(lines) and lines[k].strip() != "kernel {}":
        k += 1
        while k < len(lines) and lines[k] != "}":
            body.append(lines[k])
            k += 1
    return header, buffers, body


def parse_buffer(line):
    m = BUFFER.match(line)
    name, elem, count, access, rest = m.groups()
    words = rest.split()
    flags = set(words)
    return {"name": name, "elem": elem, "count": count, "access": access, "rest": words,
            "output": "output" in flags, "live_out": "live_out" in flags}


def threaded(b):
    """The declaration every segment uses: storage buffers read_write without output flags."""
    if b["access"] == "workgroup":
        return "buffer {}: {}[{}] workgroup".format(b["name"], b["elem"], b["count"])
    access = "read_write" if b["access"] == "write_only" else b["access"]
    words, keep, k = b["rest"], [], 0
    while k < len(words):
        w = words[k]
        if w in ("output", "live_out"):
            k += 1
            continue
        if w == "range":
            k += 2
            continue
        if w == "kind" and access == "read_write" and b["access"] == "write_only":
            k += 2
            continue
        keep.append(w)
        k += 1
    return "buffer {}: {}[{}] {} {}".format(b["name"], b["elem"], b["count"], access, " ".join(keep)).rstrip()


def good_plan(program):
    header, buffer_lines, body = declarations(program)
    buffers = [parse_buffer(l) for l in buffer_lines]
    parts, current = [], []
    for line in body:
        if line == "  grid_sync":
            parts.append(current)
            current = []
        else:
            current.append(line)
    parts.append(current)
    decls = [threaded(b) for b in buffers]
    storage = [b for b in buffers if b["access"] != "workgroup"]
    inputs = [b["name"] for b in storage if b["access"] in ("read", "read_write", "uniform", "write_only")]
    outputs = [b["name"] for b in storage if b["access"] in ("read_write", "write_only")]
    segments = []
    for part in parts:
        text = "\n".join(header) + "\n\n" + "\n".join(decls) + "\n\n"
        text += ("kernel {\n" + "\n".join(part) + "\n}\n") if part else "kernel {}\n"
        segments.append({"program": text, "inputs": inputs, "outputs": outputs, "lets": []})
    caller = [b["name"] for b in storage
              if b["access"] in ("read", "read_write", "uniform") and not b["output"] and not b["live_out"]]
    final = [b["name"] for b in storage
             if b["output"] or b["live_out"] or b["access"] in ("read_write", "write_only")]
    return {"segments": segments, "caller_inputs": caller, "final_outputs": final,
            "dispatch": {"convergence": "exact", "grid": "whole-program"}}


def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "good"
    arg = sys.argv[2] if len(sys.argv) > 2 else ""
    plans = 0
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] == "hello":
            protocol = "gridcheck-plan/0" if mode == "bad-protocol" else "gridcheck-plan/1"
            answer({"type": "hello", "protocol": protocol, "planner": "fake-" + mode, "version": "1"})
            continue
        rid = request["id"]
        plans += 1
        if mode == "once" and plans > 1:
            sys.exit(4)
        if mode == "crash-once":
            if not os.path.exists(arg):
                open(arg, "w").close()
                os.kill(os.getpid(), signal.SIGSEGV)
            mode_now = "good"
        else:
            mode_now = mode
        if mode_now == "crash":
            sys.stderr.write("fake planner: about to crash\n")
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGSEGV)
        if mode_now == "exit-early":
            sys.exit(3)
        if mode_now == "hang":
            time.sleep(3600)
        if mode_now == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        if mode_now == "wrong-id":
            answer({"type": "plan", "id": rid + 1000, "status": "error", "message": "wrong"})
            continue
        if mode_now == "refused":
            answer({"type": "plan", "id": rid, "status": "refused", "code": "X001", "message": "fence inside a loop"})
            continue
        if mode_now == "error":
            answer({"type": "plan", "id": rid, "status": "error", "message": "unsupported node: atomic"})
            continue
        plan = good_plan(request["program"])
        first = plan["segments"][0]
        if mode_now == "unknown-buffer":
            first["program"] = first["program"].replace(
                "\n\nkernel", "\nbuffer ghost: u32[4] read_write binding 99\n\nkernel", 1)
        if mode_now == "contradict":
            m = re.search(r"^buffer (\S+): (\w+)\[", first["program"], re.M)
            other = "f32" if m.group(2) != "f32" else "u32"
            first["program"] = first["program"].replace(m.group(0), "buffer {}: {}[".format(m.group(1), other), 1)
        if mode_now == "unparsable":
            first["program"] = "workgroup_size 1 1 1\n\nkernel {\n  let x = (3 +\n}\n"
            first["inputs"] = []
            first["outputs"] = []
        if mode_now == "bad-dispatch":
            plan["dispatch"]["convergence"] = "sometimes"
        if mode_now == "chatter":
            sys.stderr.write("planning case {}\n".format(request.get("case", "?")))
            sys.stderr.flush()
        answer({"type": "plan", "id": rid, "status": "ok", "plan": plan})
        if mode_now == "chatter":
            sys.stderr.write("planned case {}\n".format(request.get("case", "?")))
            sys.stderr.flush()


if __name__ == "__main__":
    main()
