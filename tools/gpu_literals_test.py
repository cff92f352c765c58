#!/usr/bin/env python3
"""--gpu-literals through the CLI (docs/gpu.md, "Program literals"): whether H-gpu's shaders show program
literals to the driver's compiler as constants or hide them as (literal ^ gc.zero).

usage: gpu_literals_test.py GRIDCHECK WORK_DIR TEST

dump       `run --split gpu --dump-glsl`: visible shaders hold no gc.zero; hidden ones (and the default's) XOR
           every literal that becomes a value with it and leave the one that only steers (a branch condition)
           a constant; all-hidden ones XOR that one too; all match R
mesa_fold  `out[i] = select(in[i] > 5, 1.0, -0.0)`: hidden matches R on any device; visible diverges with
           +0.0 for -0.0 on Mesa's lavapipe (its constant folding takes the select of the words of 1.0 and
           -0.0 for a bool-to-float conversion: why literals are hidden by default)
"""

import glob
import json
import os
import shutil
import subprocess
import sys

GRIDCHECK, WORK = [os.path.abspath(a) for a in sys.argv[1:3]]
TEST = sys.argv[3]
failures = []

ARITHMETIC = """case "literals_in_arithmetic"
workgroup_size 4 1 1
grid 2 1 1

buffer in: u32[8] read binding 0
buffer out: u32[8] read_write binding 1

kernel {
  let v = in[gid.x] * 3 + 7
  if gid.x < 6 {
    out[gid.x] = (v ^ 0xF0F0) >> 2
  }
}

input in = [1, 2, 3, 4, 5, 6, 7, 8]
"""

SELECT_OF_MINUS_ZERO = """case "select_of_one_and_minus_zero"
workgroup_size 4 1 1
grid 1 1 1

buffer in: u32[4] read binding 0
buffer out: f32[4] write_only binding 1 output

kernel {
  out[gid.x] = select(in[gid.x] > 5, 1.0, -0.0)
}

input in = [1, 9, 3, 7]
"""


def check(condition, message):
    if not condition:
        failures.append(message)


def write_case(name, text):
    path = os.path.join(WORK, name + ".gc")
    with open(path, "w") as f:
        f.write(text)
    return path


def run(case, literals, dump=None):
    args = [GRIDCHECK, "run", case, "--split", "gpu"] + (["--gpu-literals", literals] if literals else [])
    if dump:
        args += ["--dump-glsl", dump]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def default_device_name():
    p = subprocess.run([GRIDCHECK, "devices", "--json"], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"devices --json: exit {p.returncode}\n{p.stderr}")
    devices = json.loads(p.stdout)["devices"] if p.returncode == 0 else []
    chosen = [d["name"] for d in devices if d.get("default")]
    check(len(chosen) == 1, f"devices --json names {len(chosen)} default devices")
    return chosen[0] if chosen else ""


def dumped_glsl(case, literals):
    dump = os.path.join(WORK, "dump-" + (literals or "default"))
    shutil.rmtree(dump, ignore_errors=True)
    p = run(case, literals, dump)
    check(p.returncode == 0, f"--gpu-literals {literals}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    check("match" in p.stdout, f"--gpu-literals {literals}: no match\n{p.stdout}")
    texts = [open(f).read() for f in sorted(glob.glob(os.path.join(dump, "*.comp")))]
    check(len(texts) > 0, f"--gpu-literals {literals}: no shader dumped in {dump}")
    return texts


def test_dump():
    case = write_case("arithmetic", ARITHMETIC)
    visible = dumped_glsl(case, "visible")
    hidden = dumped_glsl(case, "hidden")
    for text in visible:
        check("gc.zero" not in text, f"a visible shader XORs with gc.zero:\n{text}")
        check("* 3u" in text or "3u *" in text, f"a visible shader lacks the literal 3u:\n{text}")
    for text in hidden:
        check("(3u ^ gc.zero)" in text, f"a hidden shader shows the literal 3u:\n{text}")
        check("< 6u)" in text, f"a hidden shader hides the branch condition's 6u:\n{text}")
    for text in dumped_glsl(case, "all-hidden"):
        check("(3u ^ gc.zero)" in text and "(6u ^ gc.zero)" in text, f"an all-hidden shader shows a literal:\n{text}")
    check(dumped_glsl(case, None) == hidden, "the default's shaders are not the hidden ones")


def test_mesa_fold():
    case = write_case("select", SELECT_OF_MINUS_ZERO)
    hidden = run(case, "hidden")
    check(hidden.returncode == 0 and "match" in hidden.stdout,
          f"hidden: exit {hidden.returncode}, expected a match\n{hidden.stdout}{hidden.stderr}")
    visible = run(case, "visible")
    name = default_device_name()
    if "llvmpipe" in name:
        check(visible.returncode == 1 and "-0 (0x80000000)" in visible.stdout,
              f"visible on lavapipe: exit {visible.returncode}, expected the -0.0 divergence\n{visible.stdout}{visible.stderr}")
    else:  # another driver may fold it right or wrong; either is a verdict, not an error
        check(visible.returncode in (0, 1), f"visible on {name}: exit {visible.returncode}\n{visible.stderr}")


def exported_shaders(case, extra):
    bundle = os.path.join(WORK, "bundle" + "".join(extra))
    shutil.rmtree(bundle, ignore_errors=True)
    p = subprocess.run([GRIDCHECK, "export", case, "--bundle", bundle] + extra, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"export {extra}: exit {p.returncode}\n{p.stderr}")
    texts = [open(f).read() for f in sorted(glob.glob(os.path.join(bundle, "*.comp")))]
    check(len(texts) > 0, f"export {extra}: no shader in {bundle}")
    return texts


def test_export():
    case = write_case("arithmetic", ARITHMETIC)
    for text in exported_shaders(case, []):
        check("(3u ^ gc.zero)" in text, f"an exported shader shows the literal 3u by default:\n{text}")
    for text in exported_shaders(case, ["--gpu-literals", "all-hidden"]):
        check("(6u ^ gc.zero)" in text, f"an exported shader under --gpu-literals all-hidden shows 6u:\n{text}")
    for text in exported_shaders(case, ["--gpu-literals", "visible"]):
        check("gc.zero" not in text, f"an exported shader under --gpu-literals visible XORs with gc.zero:\n{text}")


os.makedirs(WORK, exist_ok=True)
{"dump": test_dump, "mesa_fold": test_mesa_fold, "export": test_export}[TEST]()
if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"gpu_literals_test {TEST}: ok")
