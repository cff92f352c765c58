"""vyre-driver 0.7.2's grid_sync host split, ported to Python over gc_program's IR.

Provenance: vyre-driver 0.7.2's grid_sync split (segment_buffers.rs, live_buffers.rs) for the
per-segment buffer scan, the first-writer map, the (read, write) -> role table, the flag clearing
and the input/output name predicates; the fence detection, peeling, hoisting, cutting and let
propagation of grid_sync.rs / barrier_split.rs follow the written description of that code
(contains_grid_sync, hoist_grid_sync_barriers, try_split_on_grid_sync).

The planner is the system under test, so its 0.7.2 behaviour is kept on purpose, bugs included:
  A1-A3  a read_write buffer written but not read is write_only in that segment (row 7);
  A4     the first writer of an output is write_only on every pass (first_writer < k, strict);
  A5     a runtime-sized such buffer becomes a sizeless write_only buffer;
  B1     an output no segment references is omitted everywhere (row 2);
  D1-D5  locals cross a fence only by re-executing their `let` (assignments lost, side effects
         re-run, stale re-reads, definitions anywhere in a segment hide a use, last let wins);
  F1     the accumulator row keys on is_output / pipeline_live_out only;
  F2     async / trap / indirect_dispatch / opaque operands are not scanned;
  G3     output_byte_range stays on segment declarations;  G5 fences under if/loop stay put;
  G9     a uniform buffer that is read becomes a `read` storage buffer.
One departure, as gridcheck's vyre-0.7.2 profile: free names are resolved in sorted order (F4),
not in hash-set order.
"""

from gc_program import Program, ROOT_GENERATOR  # noqa: F401  (re-exported for callers)


class SplitError(Exception):
    pass


# ----------------------------------------------------------------------------------------------
# Fence detection, peeling, hoisting (grid_sync.rs)

def is_grid_sync(node):
    return node[0] == "barrier" and node[1] == "grid_sync"


def _contains_fence_deep(nodes):
    for n in nodes:
        k = n[0]
        if k == "barrier":
            if n[1] == "grid_sync":
                return True
        elif k == "if":
            if _contains_fence_deep(n[2]) or _contains_fence_deep(n[3]):
                return True
        elif k == "loop":
            if _contains_fence_deep(n[4]):
                return True
        elif k == "block":
            if _contains_fence_deep(n[1]):
                return True
        elif k == "region":
            if _contains_fence_deep(n[3]):
                return True
    return False


def peel(entry):
    """While the sequence is exactly one Region or Block, record it and descend.

    Returns (wrappers, inner) with wrappers outermost first; a wrapper is ('region', generator,
    source) or ('block',)."""
    wrappers = []
    seq = entry
    while len(seq) == 1 and seq[0][0] in ("region", "block"):
        n = seq[0]
        if n[0] == "region":
            wrappers.append(("region", n[1], n[2]))
            seq = n[3]
        else:
            wrappers.append(("block",))
            seq = n[1]
    return wrappers, seq


def contains_grid_sync(program):
    _, inner = peel(program.entry)
    return _contains_fence_deep(inner)


def _pieces(body):
    """Runs of non-fence nodes between top-level fences (empty runs kept)."""
    pieces = [[]]
    for n in body:
        if is_grid_sync(n):
            pieces.append([])
        else:
            pieces[-1].append(n)
    return pieces


def hoist_grid_sync_barriers(nodes):
    out = []
    for n in nodes:
        k = n[0]
        if k == "block":
            nb = hoist_grid_sync_barriers(n[1])
            if any(is_grid_sync(c) for c in nb):
                for i, piece in enumerate(_pieces(nb)):
                    if i:
                        out.append(("barrier", "grid_sync"))
                    out.append(("block", piece))
            else:
                out.append(("block", nb))
        elif k == "region":
            nb = hoist_grid_sync_barriers(n[3])
            if any(is_grid_sync(c) for c in nb):
                for i, piece in enumerate(_pieces(nb)):
                    if i:
                        out.append(("barrier", "grid_sync"))
                    out.append(("region", n[1], n[2], piece))
            else:
                out.append(("region", n[1], n[2], nb))
        else:
            out.append(n)  # If, Loop and everything else: unchanged, nested fences included
    return out


# ----------------------------------------------------------------------------------------------
# Let propagation

def _expr_vars(e, out):
    """Var names read by an expression, in walk order (duplicates allowed)."""
    k = e[0]
    if k == "var":
        out.append(e[1])
    elif k == "bin":
        _expr_vars(e[2], out)
        _expr_vars(e[3], out)
    elif k == "load" or k == "cast":
        _expr_vars(e[2], out)
    elif k == "un":
        _expr_vars(e[2], out)
    elif k == "select" or k == "fma":
        _expr_vars(e[1], out)
        _expr_vars(e[2], out)
        _expr_vars(e[3], out)
    elif k == "atomic":
        _expr_vars(e[3], out)
        if e[4] is not None:
            _expr_vars(e[4], out)
        _expr_vars(e[5], out)
    # lit, len, bi: no variables


def _collect_global_lets(nodes, lets):
    """Pre-order walk (then before else, loop bodies, blocks, regions); the last let wins."""
    for n in nodes:
        k = n[0]
        if k == "let":
            lets[n[1]] = n
        elif k == "if":
            _collect_global_lets(n[2], lets)
            _collect_global_lets(n[3], lets)
        elif k == "loop":
            _collect_global_lets(n[4], lets)
        elif k == "block":
            _collect_global_lets(n[1], lets)
        elif k == "region":
            _collect_global_lets(n[3], lets)


def _locally_defined(nodes, names):
    """Every let name and loop variable anywhere in the segment, at any position."""
    for n in nodes:
        k = n[0]
        if k == "let":
            names.add(n[1])
        elif k == "loop":
            names.add(n[1])
            _locally_defined(n[4], names)
        elif k == "if":
            _locally_defined(n[2], names)
            _locally_defined(n[3], names)
        elif k == "block":
            _locally_defined(n[1], names)
        elif k == "region":
            _locally_defined(n[3], names)


def _referenced(nodes, out):
    """Var names read by statement operands (an assignment's target is not a reference)."""
    for n in nodes:
        k = n[0]
        if k == "let" or k == "assign":
            _expr_vars(n[2], out)
        elif k == "store":
            _expr_vars(n[2], out)
            _expr_vars(n[3], out)
        elif k == "if":
            _expr_vars(n[1], out)
            _referenced(n[2], out)
            _referenced(n[3], out)
        elif k == "loop":
            _expr_vars(n[2], out)
            _expr_vars(n[3], out)
            _referenced(n[4], out)
        elif k == "block":
            _referenced(n[1], out)
        elif k == "region":
            _referenced(n[3], out)
        elif k == "async_load" or k == "async_store":
            _expr_vars(n[3], out)
            _expr_vars(n[4], out)
        elif k == "trap":
            _expr_vars(n[1], out)


def free_name_order(names):
    # vyre 0.7.2 iterates a HashSet here (F4); like gridcheck's profile, sort for a stable plan.
    return sorted(names)


def propagate_lets(segment, global_lets):
    """Returns (prefix_lets, segment_with_prefix)."""
    defined = set()
    _locally_defined(segment, defined)
    refs = []
    _referenced(segment, refs)
    free = set(refs) - defined
    if not free:
        return [], segment
    resolved = set()
    prefix = []

    def resolve(name, depth=0):
        if name in resolved:
            return
        let = global_lets.get(name)
        if let is None:
            return  # silently ignored
        resolved.add(name)
        deps = []
        _expr_vars(let[2], deps)
        # Dependencies first, even ones the segment defines itself. Upstream collects them into a
        # hash set as well (iteration order unspecified, F4); sorted here like the free names.
        for d in free_name_order(set(deps)):
            resolve(d, depth + 1)
        prefix.append(let)

    for name in free_name_order(free):
        resolve(name)
    if not prefix:
        return [], segment
    return prefix, prefix + segment


# ----------------------------------------------------------------------------------------------
# try_split_on_grid_sync

class RawSegment:
    __slots__ = ("program", "lets")

    def __init__(self, program, lets):
        self.program = program
        self.lets = lets


def _rewrap(wrappers, body):
    # innermost first; a re-wrapped region keeps its generator and loses its source region
    for w in reversed(wrappers):
        if w[0] == "region":
            body = [("region", w[1], None, body)]
        else:
            body = [("block", body)]
    return body


def try_split_on_grid_sync(program):
    wrappers, inner = peel(program.entry)
    hoisted = hoist_grid_sync_barriers(inner)
    split_count = sum(1 for n in hoisted if is_grid_sync(n))
    if split_count == 0:
        return [RawSegment(program, [])]
    lists = _pieces(hoisted)
    global_lets = {}
    _collect_global_lets(hoisted, global_lets)
    segments = []
    for seg in lists:
        prefix, body = propagate_lets(seg, global_lets)
        segments.append(RawSegment(program.with_entry(_rewrap(wrappers, body)),
                                   [let[1] for let in prefix]))
    return segments


# ----------------------------------------------------------------------------------------------
# segment_buffers.rs

def _visit_expr_buffer_accesses(e, reads, writes):
    k = e[0]
    if k == "load":
        reads.add(e[1])
        _visit_expr_buffer_accesses(e[2], reads, writes)
    elif k == "len":
        reads.add(e[1])
    elif k == "bin":
        _visit_expr_buffer_accesses(e[2], reads, writes)
        _visit_expr_buffer_accesses(e[3], reads, writes)
    elif k == "un" or k == "cast":
        _visit_expr_buffer_accesses(e[2], reads, writes)
    elif k == "select" or k == "fma":
        _visit_expr_buffer_accesses(e[1], reads, writes)
        _visit_expr_buffer_accesses(e[2], reads, writes)
        _visit_expr_buffer_accesses(e[3], reads, writes)
    elif k == "atomic":
        reads.add(e[2])
        writes.add(e[2])
        _visit_expr_buffer_accesses(e[3], reads, writes)
        if e[4] is not None:
            _visit_expr_buffer_accesses(e[4], reads, writes)
        _visit_expr_buffer_accesses(e[5], reads, writes)


def collect_segment_buffer_targets(node, reads, writes):
    k = node[0]
    if k == "let" or k == "assign":
        _visit_expr_buffer_accesses(node[2], reads, writes)
    elif k == "store":
        writes.add(node[1])
        _visit_expr_buffer_accesses(node[2], reads, writes)
        _visit_expr_buffer_accesses(node[3], reads, writes)
    elif k == "if":
        _visit_expr_buffer_accesses(node[1], reads, writes)
        for c in node[2]:
            collect_segment_buffer_targets(c, reads, writes)
        for c in node[3]:
            collect_segment_buffer_targets(c, reads, writes)
    elif k == "loop":
        _visit_expr_buffer_accesses(node[2], reads, writes)
        _visit_expr_buffer_accesses(node[3], reads, writes)
        for c in node[4]:
            collect_segment_buffer_targets(c, reads, writes)
    elif k == "block":
        for c in node[1]:
            collect_segment_buffer_targets(c, reads, writes)
    elif k == "region":
        for c in node[3]:
            collect_segment_buffer_targets(c, reads, writes)
    elif k == "all_reduce" or k == "broadcast":
        reads.add(node[1])
        writes.add(node[1])
    elif k == "all_gather" or k == "reduce_scatter":
        reads.add(node[1])
        writes.add(node[2])
    # indirect_dispatch, return, barrier, async_*, trap, opaque: nothing (F2)


def scan_segment(program):
    reads, writes = set(), set()
    for node in program.entry:
        collect_segment_buffer_targets(node, reads, writes)
    return reads, writes


def first_writer_segment_per_buffer(scans):
    first_writer = {}
    for idx, (_, writes) in enumerate(scans):
        for name in writes:
            first_writer.setdefault(name, idx)
    return first_writer


ROLE_PASSTHROUGH = "read-write passthrough"
ROLE_OMIT = "not referenced"
ROLE_WORKGROUP = "workgroup memory"
ROLE_ACCUMULATOR = "accumulator"
ROLE_RW = "read and written"
ROLE_READ = "read only"
ROLE_WRITE = "written only"


def rewrite_segment_buffers_for_host_split(source, segment, segment_idx, first_writer, scan):
    reads, writes = scan
    buffers = []
    rules = []
    for buffer in source.buffers:
        name = buffer.name
        reads_this = name in reads
        writes_this = name in writes
        readwrite_passthrough = (buffer.access == "read_write" and not buffer.is_output
                                 and not buffer.live_out and not reads_this and not writes_this)
        if not reads_this and not writes_this and not readwrite_passthrough:
            rules.append((name, ROLE_OMIT))
            continue
        rewritten = buffer.copy()
        if rewritten.access == "workgroup":
            buffers.append(rewritten)
            rules.append((name, ROLE_WORKGROUP))
            continue
        is_source_output = buffer.is_output or buffer.live_out
        fw = first_writer.get(name)
        earlier_segment_wrote_output = is_source_output and fw is not None and fw < segment_idx
        if readwrite_passthrough:
            access, rule = "read_write", ROLE_PASSTHROUGH
        elif earlier_segment_wrote_output and writes_this:
            access, rule = "read_write", ROLE_ACCUMULATOR
        elif reads_this and writes_this:
            access, rule = "read_write", ROLE_RW
        elif reads_this:
            access, rule = "read", ROLE_READ
        elif writes_this:
            access, rule = "write_only", ROLE_WRITE
        else:
            access, rule = "read_write", ROLE_PASSTHROUGH  # (false, false): unreachable
        # rewrite_segment_buffer_access
        rewritten.kind = {"read": "readonly", "uniform": "uniform",
                          "workgroup": "shared"}.get(access, "global")
        rewritten.access = access
        rewritten.is_output = False
        rewritten.live_out = False
        buffers.append(rewritten)
        rules.append((name, rule))
    return segment.with_buffers(buffers), rules


def segment_buffer_consumes_input(b):
    if b.is_output or b.live_out:
        return False
    return b.access in ("read", "read_write", "uniform")


def segment_buffer_produces_output(b):
    return b.is_output or b.live_out or b.access in ("read_write", "write_only")


def segment_input_names(program):
    return [b.name for b in program.buffers
            if b.access != "workgroup" and segment_buffer_consumes_input(b)]


def segment_output_names(program):
    return [b.name for b in program.buffers
            if b.access != "workgroup" and segment_buffer_produces_output(b)]


original_input_names = segment_input_names
original_output_names = segment_output_names


class PlannedSegment:
    __slots__ = ("program", "input_names", "output_names", "lets", "rules")

    def __init__(self, program, input_names, output_names, lets, rules):
        self.program = program
        self.input_names = input_names
        self.output_names = output_names
        self.lets = lets
        self.rules = rules


class SplitPlan:
    __slots__ = ("segments", "caller_inputs", "final_outputs")

    def __init__(self, segments, caller_inputs, final_outputs):
        self.segments = segments
        self.caller_inputs = caller_inputs
        self.final_outputs = final_outputs


def plan_host_grid_sync_segments(program):
    split = try_split_on_grid_sync(program)
    if not split:
        raise SplitError("grid-sync split produced no segments")
    scans = [scan_segment(s.program) for s in split]
    first_writer = first_writer_segment_per_buffer(scans)
    planned = []
    for idx, seg in enumerate(split):
        rewritten, rules = rewrite_segment_buffers_for_host_split(
            program, seg.program, idx, first_writer, scans[idx])
        planned.append(PlannedSegment(rewritten, segment_input_names(rewritten),
                                      segment_output_names(rewritten), seg.lets, rules))
    return SplitPlan(planned, original_input_names(program), original_output_names(program))
