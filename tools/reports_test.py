#!/usr/bin/env python3
"""The reports CI systems read (docs/reports.md), checked on real gridcheck runs.

usage: reports_test.py GRIDCHECK REPO_ROOT WORK_DIR {json,sarif,github,junit}

json:   every --json document (run, diff, replay, validate, plan, plan-dag, fuzz, mutants,
        mutants-check, prove, devices) on a valid, a divergent and an invalid case validates against
        docs/schemas/gridcheck-<name>-1.schema.json, names it in its first key and carries seeds as
        strings, and so does diff --dump-launches DIR's DIR/index.json (launches), whose files are
        checked against it; documents broken on purpose are rejected by the same schemas.
sarif:  validate, replay and diff --sarif logs validate against the SARIF 2.1.0 schema (the OASIS
        schema, vendored as docs/schemas/sarif-2.1.0-rtm.5.schema.json), name a rule for every ruleId
        and locate each result; a broken log is rejected.
github: --github prints one ::error/::warning line per finding, escaped as GitHub's runner reads it.
junit:  replay --junit: <failure> for a failed case, <error> for a file that does not parse,
        <skipped> without a Vulkan device, every message starting with the file name, control
        characters in names escaped so the XML parses; an unwritable report is exit 2.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import jsonschema

GRIDCHECK, ROOT, WORK, PART = [os.path.abspath(a) for a in sys.argv[1:4]] + [sys.argv[4]]
SCHEMAS = os.path.join(ROOT, "docs", "schemas")
A1 = os.path.join(ROOT, "corpus", "s10_a1_rw_written_not_read.gc")  # sound matches, vyre-0.7.2 diverges
INVALID = os.path.join(ROOT, "corpus", "invalid", "v010_barrier_in_invocation_branch.gc")  # V010
UNPARSEABLE = os.path.join(ROOT, "tools", "bad_inputs", "cases", "p013_unclosed_brace.gc")  # P013
VALID = os.path.join(ROOT, "tools", "bad_inputs", "cases", "valid.gc")
failures = []


def failing_case():
    """A copy of A1 whose recorded launch count is wrong: replay fails it (expected 3 launches, got 2)."""
    path = os.path.join(WORK, "cases", "failing.gc")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(A1) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("expect H-cpu vyre-0.7.2 launches 2", "expect H-cpu vyre-0.7.2 launches 3"))
    return path


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL " + what)


def gridcheck(*args, rcs=(0, 1, 2)):
    p = subprocess.run([GRIDCHECK, *args], capture_output=True, cwd=WORK)
    check(p.returncode in rcs, f"gridcheck {' '.join(args)}: exit {p.returncode}, expected one of {rcs}\n"
          + p.stderr.decode(errors="replace")[-2000:])
    return p


def schema_validator(name):
    with open(os.path.join(SCHEMAS, f"gridcheck-{name}-1.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors_of(validator, document):
    return [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(document)]


def json_part():
    fuzz_out = os.path.join(WORK, "fuzz-out")
    shutil.rmtree(fuzz_out, ignore_errors=True)
    big_seed = "18446744073709551615"  # 2^64-1: a JSON number would read back as 18446744073709552000
    runs = [
        ("run", ["run", "--json", A1]), ("run", ["run", "--json", INVALID]), ("run", ["run", "--json", UNPARSEABLE]),
        ("diff", ["diff", "--json", A1]), ("diff", ["diff", "--json", A1, "--profile", "all"]),
        ("diff", ["diff", "--json", INVALID]), ("diff", ["diff", "--json", UNPARSEABLE]),
        ("diff", ["run", "--split", "cpu", "--json", A1]),
        ("replay", ["replay", "--json", A1, INVALID, UNPARSEABLE]),
        ("validate", ["validate", "--json", A1, INVALID, UNPARSEABLE]),
        ("plan", ["plan", "--json", A1]), ("plan-dag", ["plan", "--waves", "4", "--dag", "0>3,1>2", "--json"]),
        ("fuzz", ["fuzz", "--json", "--seconds", "0", "--max-cases", "20", "--seed", big_seed,
                  "--profile", "vyre-0.7.2", "--out", fuzz_out]),
        ("mutants", ["mutants", "--json", "--quick", "--only", "M1-drop-accumulator", "--oracles", "z3"]),
        ("mutants-check", ["mutants", "--json", "--check-case", os.path.join(ROOT, "corpus", "mutants", "F1-applied.gc")]),
        ("prove", ["prove", "--json", "--no-table"]), ("prove", ["prove", "--json", "--profile", "vyre-0.7.2"]),
        ("devices", ["devices", "--json"]),
    ]
    documents = {}
    for name, args in runs:
        p = gridcheck(*args, rcs=(0, 1, 2))
        try:
            pairs = json.loads(p.stdout, object_pairs_hook=lambda kv: kv)
            document = json.loads(p.stdout)
        except json.JSONDecodeError as e:
            check(False, f"gridcheck {' '.join(args)}: stdout is not one JSON document: {e}")
            continue
        check(isinstance(pairs, list) and pairs and pairs[0] == ("schema", f"gridcheck/{name}/1"),
              f"gridcheck {' '.join(args)}: the first key is not \"schema\": \"gridcheck/{name}/1\"")
        problems = errors_of(schema_validator(name), document)
        check(not problems, f"gridcheck {' '.join(args)}: does not validate against gridcheck/{name}/1: {problems[:3]}")
        if "exit_code" in document:
            check(document["exit_code"] == p.returncode, f"gridcheck {' '.join(args)}: exit_code {document['exit_code']} "
                  f"but the command exited {p.returncode}")
        documents.setdefault(name, document)
        print(f"ok {name}: gridcheck {' '.join(os.path.basename(a) for a in args)} (exit {p.returncode})")
    # diff --dump-launches DIR writes its document as DIR/index.json (gridcheck/launches/1), naming
    # every dumped file with its size and hash.
    for tag, extra in (("vyre", ["--profile", "vyre-0.7.2"]), ("sound", []), ("invalid", None)):
        out = os.path.join(WORK, f"launches-{tag}")
        shutil.rmtree(out, ignore_errors=True)
        args = ["diff", INVALID if extra is None else A1, *(extra or []), "--dump-launches", out]
        p = gridcheck(*args, rcs=(0, 1, 2))
        try:
            with open(os.path.join(out, "index.json")) as f:
                text = f.read()
            pairs = json.loads(text, object_pairs_hook=lambda kv: kv)
            document = json.loads(text)
        except (OSError, json.JSONDecodeError) as e:
            check(False, f"gridcheck {' '.join(args)}: no readable index.json: {e}")
            continue
        check(pairs and pairs[0] == ("schema", "gridcheck/launches/1"),
              f"gridcheck {' '.join(args)}: index.json's first key is not \"schema\": \"gridcheck/launches/1\"")
        problems = errors_of(schema_validator("launches"), document)
        check(not problems, f"gridcheck {' '.join(args)}: index.json does not validate against gridcheck/launches/1: {problems[:3]}")
        check(document["exit_code"] == p.returncode, f"gridcheck {' '.join(args)}: exit_code {document['exit_code']} "
              f"but the command exited {p.returncode}")
        named = [b for ph in document["reference"]["phases"] for b in ph["buffers"]]
        named += [b for s in document["splits"] for l in s["launches"] for b in l["buffers"]]
        for b in named:
            path = os.path.join(out, b["file"])
            check(os.path.isfile(path) and os.path.getsize(path) == b["bytes"],
                  f"gridcheck {' '.join(args)}: {b['file']} is missing or not {b['bytes']} bytes")
        check(sorted(os.listdir(out)) == sorted([b["file"] for b in named] + ["index.json"]),
              f"gridcheck {' '.join(args)}: the directory holds files index.json does not name")
        documents.setdefault("launches", document)
        print(f"ok launches: gridcheck {' '.join(os.path.basename(a) for a in args)} (exit {p.returncode}, {len(named)} files)")
    check(documents.get("fuzz", {}).get("seed") == big_seed, "fuzz --json does not carry the seed 2^64-1 exactly as a string")
    check(documents.get("mutants", {}).get("seed") == "1", "mutants --json: the seed is not the string \"1\"")

    # The schemas reject what they must: a seed as a number, a wrong version, a missing field, an unknown field.
    broken = []
    fuzz = dict(documents["fuzz"]); fuzz["seed"] = 7; broken.append(("fuzz", fuzz, "a numeric seed"))
    run = dict(documents["run"]); run["schema"] = "gridcheck/run/2"; broken.append(("run", run, "schema version 2"))
    diff = dict(documents["diff"]); del diff["exit_code"]; broken.append(("diff", diff, "no exit_code"))
    validate = dict(documents["validate"]); validate["extra"] = 1; broken.append(("validate", validate, "an unknown key"))
    replay = json.loads(json.dumps(documents["replay"])); replay["cases"][0]["result"] = "maybe"
    broken.append(("replay", replay, "an unknown case result"))
    dag = dict(documents["plan-dag"]); dag["groups"] = [[-1]]; broken.append(("plan-dag", dag, "a negative wave"))
    launches = json.loads(json.dumps(documents["launches"])); launches["splits"][0]["launches"][0]["segment"] = "zero"
    broken.append(("launches", launches, "a segment that is not an index"))
    for name, document, what in broken:
        check(errors_of(schema_validator(name), document), f"gridcheck/{name}/1 accepts a document with {what}")
    # Every schema file in docs/schemas is a valid schema and is exercised above.
    names = sorted(f[len("gridcheck-"):-len("-1.schema.json")] for f in os.listdir(SCHEMAS) if f.startswith("gridcheck-"))
    check(names == sorted(documents), f"schemas {names} vs documents checked {sorted(documents)}")


def sarif_validator():
    with open(os.path.join(SCHEMAS, "sarif-2.1.0-rtm.5.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def sarif_part():
    validator = sarif_validator()
    runs = [
        (["validate", INVALID, UNPARSEABLE, A1], {"V010", "P013"}),
        (["replay", A1, INVALID, UNPARSEABLE, failing_case()], {"P013", "expectation-failed"}),
        (["diff", A1, "--profile", "all"], {"divergence"}),
        (["diff", INVALID], {"V010"}),
        (["diff", UNPARSEABLE], {"P013"}),
        (["validate", VALID], set()),
    ]
    last = None
    for k, (args, rules) in enumerate(runs):
        path = os.path.join(WORK, f"log{k}.sarif")
        if os.path.exists(path):
            os.remove(path)
        gridcheck(*args, "--sarif", path)
        with open(path) as f:
            log = json.load(f)
        problems = errors_of(validator, log)
        check(not problems, f"gridcheck {' '.join(args)} --sarif: not SARIF 2.1.0: {problems[:3]}")
        run = log["runs"][0]
        ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
        used = {r["ruleId"] for r in run["results"]}
        check(used == set(ids) and len(ids) == len(set(ids)), f"{args[0]}: rules {ids} vs ruleIds used {sorted(used)}")
        check(rules <= used, f"gridcheck {' '.join(args)} --sarif: expected rules {sorted(rules)}, got {sorted(used)}")
        check(bool(rules) == bool(run["results"]), f"gridcheck {' '.join(args)} --sarif: results {len(run['results'])}")
        for r in run["results"]:
            check(ids[r["ruleIndex"]] == r["ruleId"], f"{args[0]}: ruleIndex of {r['ruleId']}")
            loc = r["locations"][0]["physicalLocation"]
            check(loc["artifactLocation"]["uri"].endswith(".gc"), f"{args[0]}: result without the case's uri: {loc}")
            if r["ruleId"] in ("V010", "P013", "divergence"):
                check(loc.get("region", {}).get("startLine", 0) >= 1, f"{args[0]}: {r['ruleId']} has no line: {loc}")
        last = log
        print(f"ok sarif: gridcheck {' '.join(os.path.basename(a) for a in args)}: {len(run['results'])} results, rules {ids}")
    bad = json.loads(json.dumps(last)); bad["version"] = "2.0.0"
    check(errors_of(validator, bad), "the SARIF schema accepts version 2.0.0")
    bad = json.loads(json.dumps(last)); bad["runs"][0]["results"] = [{"ruleId": "X", "level": "fatal", "message": {"text": "m"}}]
    check(errors_of(validator, bad), "the SARIF schema accepts level fatal")
    p = gridcheck("validate", A1, "--sarif", "/nonexistent/dir/log.sarif", rcs=(2,))
    check(b"error[P008]" in p.stderr, "an unwritable --sarif path is not reported as P008")


ANNOTATION = re.compile(r"^::(error|warning|notice) ((?:[a-z]+=[^,:]*)(?:,[a-z]+=[^,:]*)*)::(.*)$")


def github_part():
    odd_dir = os.path.join(WORK, "odd")
    os.makedirs(odd_dir, exist_ok=True)
    odd = os.path.join(odd_dir, "a,b:100%.gc")  # every character a property must escape
    shutil.copy(INVALID, odd)
    p = gridcheck("validate", "--github", odd, A1, rcs=(2,))
    lines = p.stdout.decode().splitlines()
    check(len(lines) >= 1, "validate --github printed no annotation")
    for line in lines:
        m = ANNOTATION.match(line)
        check(m is not None, f"not an annotation: {line!r}")
        if not m:
            continue
        props = dict(kv.split("=", 1) for kv in m.group(2).split(","))
        check(props.get("file") == odd.replace("%", "%25").replace(":", "%3A").replace(",", "%2C"),
              f"file property not escaped as GitHub reads it: {props.get('file')!r}")
        check(int(props.get("line", "0")) >= 1 and int(props.get("col", "0")) >= 1, f"no line/col: {line!r}")
        check("\n" not in m.group(3) and "%0A" in m.group(3) or "note" not in m.group(3), f"message not escaped: {line!r}")
    check(any(line.startswith("::error ") and "V010" in line for line in lines), f"no ::error for V010 in {lines}")
    p = gridcheck("diff", A1, "--github", "--profile", "all", rcs=(1,))
    hits = [l for l in p.stdout.decode().splitlines() if l.startswith("::error ")]
    check(len(hits) == 1 and "vyre-0.7.2 diverges from R" in hits[0] and "line=" in hits[0], f"diff --github: {hits}")
    p = gridcheck("diff", "--github", A1, rcs=(0,))
    check(not [l for l in p.stdout.decode().splitlines() if l.startswith("::error")], "diff --github on a match prints ::error")
    p = gridcheck("replay", "--github", A1, rcs=(0,))
    check("::" not in p.stdout.decode(), "replay --github on a passing case prints an annotation")
    gridcheck("diff", "--github", "--json", A1, rcs=(2,))  # one stdout, one format
    print(f"ok github: {len(lines)} annotations from validate, escaping checked")


def parse_xml(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        return ET.fromstring(data)
    except ET.ParseError as e:
        check(False, f"{path} does not parse as XML: {e}")
        return None


def junit_part():
    cases = os.path.join(WORK, "junit-cases")
    shutil.rmtree(cases, ignore_errors=True)
    os.makedirs(cases)
    passing = os.path.join(cases, "passing.gc")
    shutil.copy(A1, passing)
    failing = os.path.join(cases, "failing.gc")
    shutil.copy(failing_case(), failing)
    controls = "".join(chr(c) for c in range(1, 32) if chr(c) != "/") + "&<>\"'\x7f"
    unparseable = os.path.join(cases, f"bad{controls}.gc").encode() + b"\xff.gc"
    shutil.copy(UNPARSEABLE, unparseable)
    report = os.path.join(WORK, "junit.xml")
    p = gridcheck("replay", "--junit", report, cases, rcs=(2,))
    root = parse_xml(report)
    if root is None:
        return
    suite = root.find("testsuite")
    check(suite.get("tests") == "3" and suite.get("failures") == "1" and suite.get("errors") == "1"
          and suite.get("skipped") == "0", f"junit counts: {suite.attrib}")
    by_file = {tc.get("file"): tc for tc in suite.iter("testcase")}
    check(len(list(by_file[passing])) == 0, "the passing case is not a bare <testcase/>")
    failure = by_file[failing].find("failure")
    check(failure is not None and failure.get("message", "").startswith(failing + ": ")
          and "expected 3 launches" in failure.get("message", "") , f"failure element: {failure is not None and failure.attrib}")
    errored = [tc for f, tc in by_file.items() if f.startswith(os.path.join(cases, "bad"))]
    check(len(errored) == 1, f"the unparseable file's testcase: {list(by_file)}")
    if errored:
        error = errored[0].find("error")
        name = errored[0].get("file")
        check(error is not None and error.get("message", "").startswith(name + ": ") and "P013" in error.get("message", ""),
              f"error element: {error is not None and error.attrib}")
        check("\\x01" in name and "\\x1F" in name and "\t" in name and "\n" in name and "&<>\"'" in name
              and "\ufffd" in name, f"control characters in the file name not kept visibly: {name!r}")

    # No Vulkan device for H-gpu: every case that ran is skipped, never failed.
    report = os.path.join(WORK, "junit-skipped.xml")
    p = gridcheck("replay", "--junit", report, "--backend", "gpu", "--device", "no-such-device", passing, failing, rcs=(1,))
    root = parse_xml(report)
    if root is not None:
        suite = root.find("testsuite")
        check(suite.get("skipped") == "2" and suite.get("failures") == "0" and suite.get("errors") == "0",
              f"junit counts without a device: {suite.attrib}")
        for tc in suite.iter("testcase"):
            skipped = tc.find("skipped")
            check(skipped is not None and skipped.get("message", "").startswith(tc.get("file") + ": ")
                  and "Vulkan" in skipped.get("message", ""), f"skipped element: {skipped is not None and skipped.attrib}")
    check(b"2 skipped" in p.stdout, "replay's summary does not count the skipped cases")

    # A report that cannot be written: a diagnostic and exit 2, before any case runs.
    p = gridcheck("replay", "--junit", "/nonexistent/dir/report.xml", passing, rcs=(2,))
    check(b"/nonexistent/dir/report.xml: error[P008]" in p.stderr and b"PASS" not in p.stdout,
          f"unwritable --junit: {p.stderr!r}")
    print("ok junit: failure, error, skipped, escaping, unwritable report")


os.makedirs(WORK, exist_ok=True)
{"json": json_part, "sarif": sarif_part, "github": github_part, "junit": junit_part}[PART]()
if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print(f"reports {PART}: all checks passed")
