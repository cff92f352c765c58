"""Parser and printer for gridcheck's `.gc` program syntax (docs/format.md).

Only the program part of a case file is modelled: `workgroup_size`, `buffer` declarations and the
`kernel { ... }` / `entry { ... }` block. The other directives of a case file (`case`, `meta`,
`grid`, `fixpoint`, `input`, `expect`) are skipped when present, so a whole case file can be read.

The IR is plain tuples (fast to build and compare):

Expressions
    ('lit', T, bits)            T in u32 i32 f32 bool; bits is the 32-bit word
    ('var', name)
    ('load', buf, index)
    ('len', buf)
    ('bi', kind, axis)          kind in gid lid wgid num_wg wg_size; axis 0..2
    ('bin', mnemonic, a, b)     mnemonic from the operator table (add, sub, ..., mul_high)
    ('un', mnemonic, x)
    ('select', c, t, f)
    ('cast', T, x)
    ('fma', a, b, c)
    ('atomic', mnemonic, buf, index, expected_or_None, value, ordering)

Statements
    ('let', name, e) ('assign', name, e) ('store', buf, index, value)
    ('if', cond, then_list, else_list) ('loop', var, from, to, body) ('block', body)
    ('region', generator, source_or_None, body) ('barrier', ordering[, memory]) ('return',)
    ('all_reduce', buf, op, group) ('broadcast', buf, root, group)
    ('all_gather', input, output, group) ('reduce_scatter', input, output, op, group)
    ('async_load' | 'async_store', source, destination, offset, size, tag) ('async_wait', tag)
    ('indirect_dispatch', buf, offset) ('trap', address, tag) ('opaque', extension)

The printer prints gridcheck's canonical form (what `gridcheck fmt` prints for the program part).
"""

import re
import struct

ROOT_GENERATOR = "vyre.program.root"

# (mnemonic, infix, precedence) from the operator table; infix '' = call form only.
BIN_OPS = [
    ("add", "+", 9), ("sub", "-", 9), ("mul", "*", 10), ("div", "/", 10), ("mod", "%", 10),
    ("wrapping_add", "", 0), ("wrapping_sub", "", 0),
    ("bit_and", "&", 5), ("bit_or", "|", 3), ("bit_xor", "^", 4), ("shl", "<<", 8), ("shr", ">>", 8),
    ("eq", "==", 6), ("ne", "!=", 6), ("lt", "<", 7), ("gt", ">", 7), ("le", "<=", 7), ("ge", ">=", 7),
    ("and", "&&", 2), ("or", "||", 1),
    ("abs_diff", "", 0), ("min", "", 0), ("max", "", 0),
    ("saturating_add", "", 0), ("saturating_sub", "", 0), ("saturating_mul", "", 0),
    ("rotate_left", "", 0), ("rotate_right", "", 0), ("mul_high", "", 0),
]
BIN_BY_MNEMONIC = {m: (i, p) for m, i, p in BIN_OPS}
BIN_BY_INFIX = {i: (m, p) for m, i, p in BIN_OPS if i}

UN_OPS = [
    ("negate", "-"), ("bit_not", "~"), ("not", "!"), ("popcount", ""), ("clz", ""), ("ctz", ""),
    ("reverse_bits", ""), ("cos", ""), ("sin", ""), ("abs", ""), ("sqrt", ""), ("floor", ""),
    ("ceil", ""), ("round", ""), ("trunc", ""), ("sign", ""), ("is_nan", ""), ("is_inf", ""),
    ("is_finite", ""), ("exp", ""), ("log", ""), ("log2", ""), ("exp2", ""), ("tan", ""),
    ("acos", ""), ("asin", ""), ("atan", ""), ("tanh", ""), ("sinh", ""), ("cosh", ""),
    ("inverse_sqrt", ""), ("unpack4_low", ""), ("unpack4_high", ""), ("unpack8_low", ""),
    ("unpack8_high", ""), ("reciprocal", ""),
]
UN_PREFIX = {m: p for m, p in UN_OPS}
UN_BY_PREFIX = {p: m for m, p in UN_OPS if p}

ATOMIC_OPS = {"atomic_add": False, "atomic_or": False, "atomic_and": False, "atomic_xor": False,
              "atomic_min": False, "atomic_max": False, "atomic_exchange": False,
              "atomic_compare_exchange": True}
COLLECTIVE_OPS = ("sum", "min", "max", "bit_and", "bit_or", "bit_xor")
ORDERINGS = ("relaxed", "acquire", "release", "acq_rel", "seq_cst", "grid_sync")
BARRIER_MEMORIES = ("all", "workgroup", "storage")
SCALAR_TYPES = ("u32", "i32", "f32", "bool")
ACCESSES = ("read", "read_write", "write_only", "uniform", "workgroup")
KINDS = ("global", "shared", "uniform", "local", "readonly", "persistent", "push")
BUILTINS = ("gid", "lid", "wgid", "num_wg", "wg_size")
AXES = "xyz"
SKIPPED_DIRECTIVES = ("case", "meta", "grid", "fixpoint", "oob", "uninit", "input", "expect")
DIRECTIVES = SKIPPED_DIRECTIVES + ("workgroup_size", "buffer", "kernel", "entry")


def derived_kind(access):
    return {"read": "readonly", "uniform": "uniform", "workgroup": "shared"}.get(access, "global")


class ParseError(Exception):
    pass


class Buffer:
    __slots__ = ("name", "element", "count", "access", "binding", "is_output", "live_out",
                 "range", "kind")

    def __init__(self, name, element, count, access, binding=0, is_output=False, live_out=False,
                 byte_range=None, kind=None):
        self.name = name
        self.element = element
        self.count = count
        self.access = access
        self.binding = binding
        self.is_output = is_output
        self.live_out = live_out
        self.range = byte_range
        self.kind = kind if kind is not None else derived_kind(access)

    def copy(self):
        return Buffer(self.name, self.element, self.count, self.access, self.binding,
                      self.is_output, self.live_out, self.range, self.kind)

    def key(self):
        return (self.name, self.element, self.count, self.access, self.binding, self.is_output,
                self.live_out, self.range, self.kind)

    def __repr__(self):
        return "Buffer%r" % (self.key(),)


class Program:
    __slots__ = ("workgroup_size", "buffers", "entry")

    def __init__(self, workgroup_size, buffers, entry):
        self.workgroup_size = tuple(workgroup_size)
        self.buffers = buffers
        self.entry = entry

    def with_entry(self, entry):
        return Program(self.workgroup_size, self.buffers, entry)

    def with_buffers(self, buffers):
        return Program(self.workgroup_size, buffers, self.entry)


# ----------------------------------------------------------------------------------------------
# Lexer

_TOKEN_RE = re.compile(r"""
 (?P<nl>\n)
|(?P<ws>[ \t\r]+|\#[^\n]*)
|(?P<str>"(?:[^"\\\n]|\\[^\n])*")
|(?P<qid>`(?:[^`\\\n]|\\[^\n])*`)
|(?P<num>0[xX][A-Za-z0-9_]*|[0-9](?:[A-Za-z0-9_]|\.(?=[0-9])|(?<=[eE])[+\-](?=[0-9]))*)
|(?P<id>[A-Za-z_][A-Za-z0-9_]*)
|(?P<p><<|>>|<=|>=|==|!=|&&|\|\||\.\.|->|[()\[\]{},:;=.+\-*/%&|^<>!~])
|(?P<bad>.)
""", re.VERBOSE)

_ESCAPES = {"\\": "\\", '"': '"', "`": "`", "n": "\n", "t": "\t", "r": "\r"}


def _unescape(body):
    if "\\" not in body:
        return body
    out = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1] if i + 1 < n else ""
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e == "x" and re.match(r"[0-9A-Fa-f]{2}", body[i + 2:i + 4]):
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
        else:
            raise ParseError("invalid escape sequence")
    return "".join(out)


def tokenize(text):
    """Tokens as (kind, text, offset); kinds nl str qid num id p. Strings/names decoded."""
    toks = []
    append = toks.append
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup
        if kind == "ws":
            continue
        s = m.group()
        if kind == "str" or kind == "qid":
            append((kind, _unescape(s[1:-1]), m.start()))
        elif kind == "bad":
            if s in "\"`":
                raise ParseError("line %d: unterminated string or quoted name" % (text.count("\n", 0, m.start()) + 1))
            raise ParseError("line %d: unexpected character %r" % (text.count("\n", 0, m.start()) + 1, s))
        else:
            append((kind, s, m.start()))
    append(("end", "", len(text)))
    return toks


# ----------------------------------------------------------------------------------------------
# Literals

_NUM_RE = re.compile(r"^(?:(0[xX][0-9A-Fa-f]+)|([0-9]*(?:\.[0-9]+)?(?:[eE][+\-]?[0-9]+)?))([uif]?)$")


def f32_from_decimal(digits, negative):
    v = float(digits)
    try:
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
    except OverflowError:
        return None
    if (bits & 0x7F800000) == 0x7F800000:
        return None
    if negative:
        bits ^= 0x80000000
    return bits


def interpret_literal(text, negative):
    m = _NUM_RE.match(text)
    if not m or (m.group(1) is None and not re.match(r"[0-9]", m.group(2) or "")):
        raise ParseError("malformed number %s" % text)
    hexd, dec, suffix = m.group(1), m.group(2), m.group(3)
    fractional = dec is not None and ("." in dec or "e" in dec or "E" in dec)
    if fractional and suffix in ("u", "i"):
        raise ParseError("an integer literal cannot have a fraction or exponent")
    if fractional or suffix == "f":
        if hexd is not None:
            raise ParseError("hex f32 literals are written f32_bits(0x...)")
        bits = f32_from_decimal(dec, negative)
        if bits is None:
            raise ParseError("f32 literal is out of range")
        return ("lit", "f32", bits)
    mag = int(hexd, 16) if hexd is not None else int(dec)
    if hexd is not None and negative:
        raise ParseError("a hex literal gives raw bits and cannot take a sign")
    if suffix == "i":
        if hexd is not None:
            if mag > 0xFFFFFFFF:
                raise ParseError("i32 literal is out of range")
            return ("lit", "i32", mag)
        if mag > (0x80000000 if negative else 0x7FFFFFFF):
            raise ParseError("i32 literal is out of range")
        return ("lit", "i32", ((-mag) & 0xFFFFFFFF) if negative else mag)
    if negative:
        raise ParseError("u32 value cannot be negative; add suffix i for i32")
    if mag > 0xFFFFFFFF:
        raise ParseError("u32 literal is out of range")
    return ("lit", "u32", mag)


def _f32_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


_F32_CACHE = {}


def f32_decimal(bits):
    """Shortest decimal that reads back to the same f32 bits (std::to_chars style), or None."""
    if bits in _F32_CACHE:
        return _F32_CACHE[bits]
    result = None
    if (bits & 0x7F800000) != 0x7F800000:
        v = _f32_value(bits)
        neg = bool(bits & 0x80000000)
        a = abs(v)
        if a == 0.0:
            s = "0"
        else:
            s = None
            for p in range(0, 10):
                e_form = "%.*e" % (p, a)
                if f32_from_decimal(e_form, False) == (bits & 0x7FFFFFFF):
                    mant, exp = e_form.split("e")
                    digits = mant.replace(".", "").rstrip("0") or "0"
                    exp = int(exp)
                    # scientific
                    sci = digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + \
                        "e" + ("-" if exp < 0 else "+") + ("%02d" % abs(exp))
                    # fixed
                    point = exp + 1  # digits before the decimal point
                    if point <= 0:
                        fixed = "0." + "0" * (-point) + digits
                    elif point >= len(digits):
                        fixed = digits + "0" * (point - len(digits))
                    else:
                        fixed = digits[:point] + "." + digits[point:]
                    s = fixed if len(fixed) <= len(sci) else sci
                    break
            if s is None:
                s = repr(a)
        if "." not in s and "e" not in s:
            s += ".0"
        if neg:
            s = "-" + s
        body = s[1:] if neg else s
        if f32_from_decimal(body, neg) == bits:
            result = s
    _F32_CACHE[bits] = result
    return result


def format_literal(t, bits):
    if t == "u32":
        return str(bits)
    if t == "i32":
        return "%di" % (bits - (1 << 32) if bits & 0x80000000 else bits)
    if t == "bool":
        return "true" if bits else "false"
    s = f32_decimal(bits)
    return s if s is not None else "f32_bits(0x%08x)" % bits


# ----------------------------------------------------------------------------------------------
# Parser

class _Parser:
    def __init__(self, text):
        self.text = text
        self.toks = tokenize(text)
        self.i = 0
        self.depth = 0

    # token helpers
    def err(self, msg, tok=None):
        tok = tok or self.toks[self.i]
        line = self.text.count("\n", 0, tok[2]) + 1
        raise ParseError("line %d: %s (at %r)" % (line, msg, tok[1] if tok[0] != "nl" else "end of line"))

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else self.toks[-1]

    def next(self):
        t = self.toks[self.i]
        if t[0] != "end":
            self.i += 1
        return t

    def at_p(self, s):
        t = self.toks[self.i]
        return t[0] == "p" and t[1] == s

    def expect_p(self, s):
        if not self.at_p(s):
            self.err("expected %r" % s)
        return self.next()

    def skip_nl(self):
        toks = self.toks
        while toks[self.i][0] == "nl":
            self.i += 1

    def is_name(self, t):
        return t[0] == "id" or t[0] == "qid"

    def expect_name(self, what):
        t = self.peek()
        if not self.is_name(t):
            self.err("expected " + what)
        self.next()
        return t[1]

    def expect_kw(self, word):
        t = self.peek()
        if t[0] != "id" or t[1] != word:
            self.err("expected " + word)
        self.next()

    def expect_str(self, what):
        t = self.peek()
        if t[0] != "str":
            self.err("expected " + what)
        self.next()
        return t[1]

    def uint_arg(self, what, maximum=0xFFFFFFFF):
        t = self.peek()
        if t[0] != "num":
            self.err("expected " + what)
        self.next()
        m = re.match(r"^(0[xX][0-9A-Fa-f]+|[0-9]+)u?$", t[1])
        if not m:
            self.err("expected " + what, t)
        v = int(m.group(1), 0) if m.group(1)[:2].lower() == "0x" else int(m.group(1))
        if v > maximum:
            self.err(what + " is out of range", t)
        return v

    def end_line(self):
        t = self.peek()
        if t[0] not in ("nl", "end"):
            self.err("expected end of line")

    # top level
    def parse_program(self):
        wg = (1, 1, 1)
        buffers = []
        entry = None
        toks = self.toks
        while True:
            t = toks[self.i]
            if t[0] == "nl":
                self.i += 1
                continue
            if t[0] == "end":
                break
            if t[0] != "id":
                self.err("expected a directive")
            w = t[1]
            if w == "workgroup_size":
                self.next()
                wg = (self.uint_arg("x"), self.uint_arg("y"), self.uint_arg("z"))
                self.end_line()
            elif w == "buffer":
                self.next()
                buffers.append(self.parse_buffer())
                self.end_line()
            elif w == "kernel" or w == "entry":
                self.next()
                if entry is not None:
                    self.err("a second kernel/entry block")
                body = self.parse_block()
                entry = [("region", ROOT_GENERATOR, None, body)] if w == "kernel" else body
            elif w in SKIPPED_DIRECTIVES:
                self.skip_directive()
            else:
                self.err("unknown directive")
        if entry is None:
            raise ParseError("missing kernel/entry block")
        return Program(wg, buffers, entry)

    def skip_directive(self):
        depth = 0
        toks = self.toks
        while True:
            t = toks[self.i]
            if t[0] == "end":
                return
            if t[0] == "nl" and depth <= 0:
                return
            if t[0] == "p":
                if t[1] in ("[", "("):
                    depth += 1
                elif t[1] in ("]", ")"):
                    depth -= 1
            self.i += 1

    def parse_buffer(self):
        name = self.expect_name("a buffer name")
        self.expect_p(":")
        t = self.next()
        if t[0] != "id" or t[1] not in SCALAR_TYPES:
            self.err("unknown element type", t)
        element = t[1]
        self.expect_p("[")
        count = 0
        if self.peek()[0] == "num":
            count = self.uint_arg("the element count", 1 << 28)
        self.expect_p("]")
        t = self.next()
        if t[0] != "id" or t[1] not in ACCESSES:
            self.err("unknown access mode", t)
        b = Buffer(name, element, count, t[1])
        seen = set()
        while True:
            t = self.peek()
            if t[0] in ("nl", "end"):
                break
            if t[0] != "id" or t[1] in seen:
                self.err("expected a buffer attribute")
            seen.add(t[1])
            self.next()
            if t[1] == "binding":
                b.binding = self.uint_arg("the binding number")
            elif t[1] == "output":
                b.is_output = True
            elif t[1] == "live_out":
                b.live_out = True
            elif t[1] == "range":
                lo = self.uint_arg("the first byte", 1 << 32)
                self.expect_p("..")
                hi = self.uint_arg("the end byte", 1 << 32)
                b.range = (lo, hi)
            elif t[1] == "kind":
                k = self.next()
                if k[0] != "id" or k[1] not in KINDS:
                    self.err("unknown memory kind", k)
                b.kind = k[1]
            else:
                self.err("expected a buffer attribute", t)
        if "binding" not in seen and b.access != "workgroup":
            self.err("storage buffer needs a binding number")
        return b

    # statements
    def parse_block(self):
        self.expect_p("{")
        self.depth += 1
        if self.depth > 200:
            self.err("blocks are nested too deeply")
        body = []
        toks = self.toks
        while True:
            t = toks[self.i]
            while t[0] == "nl" or (t[0] == "p" and t[1] == ";"):
                self.i += 1
                t = toks[self.i]
            if t[0] == "p" and t[1] == "}":
                self.i += 1
                break
            if t[0] == "end":
                self.err("this brace is never closed")
            body.append(self.parse_statement())
            t = toks[self.i]
            if not (t[0] == "nl" or (t[0] == "p" and t[1] in (";", "}"))):
                self.err("expected a newline or semicolon after the statement")
        self.depth -= 1
        return body

    def parse_statement(self):
        t = self.peek()
        if self.is_name(t):
            n1 = self.peek(1)
            if n1[0] == "p" and n1[1] == "=":
                self.i += 2
                return ("assign", t[1], self.parse_expr())
            if n1[0] == "p" and n1[1] == "[":
                self.i += 2
                self.skip_nl()
                idx = self.parse_expr()
                self.skip_nl()
                self.expect_p("]")
                self.expect_p("=")
                return ("store", t[1], idx, self.parse_expr())
        if t[0] != "id":
            self.err("expected a statement")
        w = t[1]
        self.next()
        if w == "let":
            name = self.expect_name("the name of the new local")
            self.expect_p("=")
            return ("let", name, self.parse_expr())
        if w == "if":
            return self.parse_if()
        if w == "loop":
            var = self.expect_name("the loop variable")
            self.expect_kw("in")
            a = self.parse_expr()
            self.expect_p("..")
            b = self.parse_expr()
            return ("loop", var, a, b, self.parse_block())
        if w == "block":
            return ("block", self.parse_block())
        if w == "region":
            gen = self.expect_str("the region's generator")
            src = None
            p = self.peek()
            if p[0] == "id" and p[1] == "from":
                self.next()
                src = self.expect_str("the source region")
            return ("region", gen, src, self.parse_block())
        if w == "grid_sync":
            return ("barrier", "grid_sync")
        if w == "return":
            return ("return",)
        if w == "barrier":
            ordering = "seq_cst"
            p = self.peek()
            ends = p[0] in ("nl", "end") or (p[0] == "p" and p[1] in (";", "}"))
            if not ends and not (p[0] == "id" and p[1] == "memory"):
                if p[0] != "id" or p[1] not in ORDERINGS:
                    self.err("unknown memory ordering")
                self.next()
                ordering = p[1]
            memory = "all"
            p = self.peek()
            if p[0] == "id" and p[1] == "memory":
                self.next()
                p = self.peek()
                if p[0] != "id" or p[1] not in BARRIER_MEMORIES:
                    self.err("unknown barrier memory")
                self.next()
                memory = p[1]
            return ("barrier", ordering, memory)
        if w == "all_reduce":
            buf = self.expect_name("a buffer name")
            op = self.collective()
            return ("all_reduce", buf, op, self.group())
        if w == "broadcast":
            buf = self.expect_name("a buffer name")
            self.expect_kw("root")
            root = self.uint_arg("the root rank")
            return ("broadcast", buf, root, self.group())
        if w == "all_gather" or w == "reduce_scatter":
            inp = self.expect_name("the input buffer")
            self.expect_p("->")
            out = self.expect_name("the output buffer")
            if w == "reduce_scatter":
                op = self.collective()
                return ("reduce_scatter", inp, out, op, self.group())
            return ("all_gather", inp, out, self.group())
        if w == "async_load" or w == "async_store":
            src = self.expect_name("the source buffer")
            self.expect_p("->")
            dst = self.expect_name("the destination buffer")
            self.expect_kw("offset")
            off = self.parse_expr()
            self.expect_kw("size")
            size = self.parse_expr()
            self.expect_kw("tag")
            return (w, src, dst, off, size, self.expect_str("the tag"))
        if w == "async_wait":
            return ("async_wait", self.expect_str("the tag"))
        if w == "indirect_dispatch":
            buf = self.expect_name("the count buffer")
            self.expect_kw("offset")
            return ("indirect_dispatch", buf, self.uint_arg("the byte offset"))
        if w == "trap":
            e = self.parse_expr()
            self.expect_kw("tag")
            return ("trap", e, self.expect_str("the tag"))
        if w == "opaque":
            return ("opaque", self.expect_str("the extension id"))
        self.i -= 1
        self.err("unknown statement")

    def collective(self):
        t = self.next()
        if t[0] != "id" or t[1] not in COLLECTIVE_OPS:
            self.err("unknown collective operator", t)
        return t[1]

    def group(self):
        p = self.peek()
        if p[0] == "id" and p[1] == "group":
            self.next()
            return self.uint_arg("the group number")
        return 0

    def parse_if(self):
        cond = self.parse_expr()
        then = self.parse_block()
        other = []
        p = self.peek()
        if p[0] == "id" and p[1] == "else":
            self.next()
            p = self.peek()
            if p[0] == "id" and p[1] == "if":
                self.next()
                self.depth += 1
                other = [self.parse_if()]
                self.depth -= 1
            else:
                other = self.parse_block()
        return ("if", cond, then, other)

    # expressions
    def parse_expr(self, min_prec=1):
        lhs = self.parse_unary()
        toks = self.toks
        while True:
            t = toks[self.i]
            if t[0] != "p":
                break
            op = BIN_BY_INFIX.get(t[1])
            if op is None or op[1] < min_prec:
                break
            self.i += 1
            self.skip_nl()
            rhs = self.parse_expr(op[1] + 1)
            lhs = ("bin", op[0], lhs, rhs)
        return lhs

    def parse_unary(self):
        self.depth += 1
        if self.depth > 400:
            self.err("expression nested too deeply")
        t = self.toks[self.i]
        try:
            if t[0] == "p":
                m = UN_BY_PREFIX.get(t[1])
                if m is not None:
                    self.i += 1
                    if m == "negate" and self.toks[self.i][0] == "num":
                        n = self.next()
                        try:
                            return interpret_literal(n[1], True)
                        except ParseError as e:
                            self.err(str(e), n)
                    return ("un", m, self.parse_unary())
                if t[1] == "(":
                    self.i += 1
                    self.skip_nl()
                    inner = self.parse_expr()
                    self.skip_nl()
                    self.expect_p(")")
                    return inner
            return self.parse_primary()
        finally:
            self.depth -= 1

    def parse_primary(self):
        t = self.next()
        kind = t[0]
        if kind == "num":
            try:
                return interpret_literal(t[1], False)
            except ParseError as e:
                self.err(str(e), t)
        if kind != "id" and kind != "qid":
            self.i -= 1
            self.err("expected an expression")
        name = t[1]
        nxt = self.toks[self.i]
        if kind == "id":
            if name == "true" or name == "false":
                return ("lit", "bool", 1 if name == "true" else 0)
            if nxt[0] == "p" and nxt[1] == "(":
                return self.parse_call(name)
            if nxt[0] == "p" and nxt[1] == "." and name in BUILTINS:
                self.i += 1
                ax = self.next()
                if ax[0] != "id" or ax[1] not in ("x", "y", "z"):
                    self.err("unknown axis; use x, y or z", ax)
                return ("bi", name, AXES.index(ax[1]))
        if nxt[0] == "p" and nxt[1] == "[":
            self.i += 1
            self.skip_nl()
            idx = self.parse_expr()
            self.skip_nl()
            self.expect_p("]")
            return ("load", name, idx)
        return ("var", name)

    def call_args(self, fn, arity):
        self.expect_p("(")
        args = []
        self.skip_nl()
        if not self.at_p(")"):
            while True:
                args.append(self.parse_expr())
                self.skip_nl()
                if not self.at_p(","):
                    break
                self.next()
                self.skip_nl()
        self.expect_p(")")
        if len(args) != arity:
            self.err("%s takes %d argument(s), found %d" % (fn, arity, len(args)))
        return args

    def parse_call(self, fn):
        if fn == "len":
            self.expect_p("(")
            buf = self.expect_name("a buffer name")
            self.expect_p(")")
            return ("len", buf)
        if fn == "f32_bits":
            self.expect_p("(")
            bits = self.uint_arg("the bits of an f32")
            self.expect_p(")")
            return ("lit", "f32", bits)
        if fn in ATOMIC_OPS:
            has_expected = ATOMIC_OPS[fn]
            self.expect_p("(")
            self.skip_nl()
            buf = self.expect_name("the atomic's buffer")
            args = []
            for _ in range(3 if has_expected else 2):
                self.skip_nl()
                self.expect_p(",")
                self.skip_nl()
                args.append(self.parse_expr())
            ordering = "seq_cst"
            self.skip_nl()
            if self.at_p(","):
                self.next()
                self.skip_nl()
                o = self.next()
                if o[0] != "id" or o[1] not in ORDERINGS:
                    self.err("unknown memory ordering", o)
                ordering = o[1]
                self.skip_nl()
            self.expect_p(")")
            if has_expected:
                return ("atomic", fn, buf, args[0], args[1], args[2], ordering)
            return ("atomic", fn, buf, args[0], None, args[1], ordering)
        if fn == "select" or fn == "fma":
            a = self.call_args(fn, 3)
            return (fn, a[0], a[1], a[2])
        if fn in SCALAR_TYPES:
            return ("cast", fn, self.call_args(fn, 1)[0])
        if fn in BIN_BY_MNEMONIC:
            a = self.call_args(fn, 2)
            return ("bin", fn, a[0], a[1])
        if fn in UN_PREFIX:
            return ("un", fn, self.call_args(fn, 1)[0])
        self.err("unknown function %s" % fn)


def parse_program(text):
    """Parse a program (or a whole case file; its other directives are skipped)."""
    return _Parser(text).parse_program()


# ----------------------------------------------------------------------------------------------
# Printer

_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NAME_CACHE = {}


def _escaped(s, quote):
    out = [quote]
    for c in s:
        if c == "\\":
            out.append("\\\\")
        elif c == '"':
            out.append('\\"')
        elif c == "`":
            out.append("\\`")
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append("\\x%02x" % ord(c))
        else:
            out.append(c)
    out.append(quote)
    return "".join(out)


def print_name(s):
    r = _NAME_CACHE.get(s)
    if r is None:
        if _PLAIN_NAME.match(s) and len(s) <= 256 and s not in ("true", "false"):
            r = s
        else:
            r = _escaped(s, "`")
        _NAME_CACHE[s] = r
    return r


def quoted(s):
    return _escaped(s, '"')


def _is_numeric_literal(e):
    return e[0] == "lit" and e[1] != "bool"


def print_expr(e, min_prec=0):
    k = e[0]
    if k == "bin":
        op = e[1]
        infix, prec = BIN_BY_MNEMONIC[op]
        if infix:
            s = print_expr(e[2], prec) + " " + infix + " " + print_expr(e[3], prec + 1)
            return "(" + s + ")" if prec < min_prec else s
        return "%s(%s, %s)" % (op, print_expr(e[2]), print_expr(e[3]))
    if k == "lit":
        return format_literal(e[1], e[2])
    if k == "var":
        return print_name(e[1])
    if k == "load":
        return "%s[%s]" % (print_name(e[1]), print_expr(e[2]))
    if k == "bi":
        return "%s.%s" % (e[1], AXES[e[2]])
    if k == "len":
        return "len(%s)" % print_name(e[1])
    if k == "un":
        prefix = UN_PREFIX[e[1]]
        if not prefix:
            return "%s(%s)" % (e[1], print_expr(e[2]))
        x = e[2]
        if e[1] == "negate" and _is_numeric_literal(x):
            return prefix + "(" + print_expr(x) + ")"
        return prefix + print_expr(x, 100)
    if k == "select" or k == "fma":
        return "%s(%s, %s, %s)" % (k, print_expr(e[1]), print_expr(e[2]), print_expr(e[3]))
    if k == "cast":
        return "%s(%s)" % (e[1], print_expr(e[2]))
    if k == "atomic":
        parts = [print_name(e[2]), print_expr(e[3])]
        if e[4] is not None:
            parts.append(print_expr(e[4]))
        parts.append(print_expr(e[5]))
        if e[6] != "seq_cst":
            parts.append(e[6])
        return "%s(%s)" % (e[1], ", ".join(parts))
    raise ValueError("printer: unknown expression %r" % (k,))


def _group(g):
    return " group %d" % g if g else ""


def _print_block(body, depth, out):
    if not body:
        out.append("{}")
        return
    out.append("{\n")
    ind = "  " * (depth + 1)
    for s in body:
        out.append(ind)
        _print_stmt(s, depth + 1, out)
        out.append("\n")
    out.append("  " * depth + "}")


def _print_stmt(s, depth, out):
    k = s[0]
    if k == "let":
        out.append("let %s = %s" % (print_name(s[1]), print_expr(s[2])))
    elif k == "assign":
        out.append("%s = %s" % (print_name(s[1]), print_expr(s[2])))
    elif k == "store":
        out.append("%s[%s] = %s" % (print_name(s[1]), print_expr(s[2]), print_expr(s[3])))
    elif k == "if":
        out.append("if %s " % print_expr(s[1]))
        _print_block(s[2], depth, out)
        other = s[3]
        if other:
            out.append(" else ")
            if len(other) == 1 and other[0][0] == "if":
                _print_stmt(other[0], depth, out)
            else:
                _print_block(other, depth, out)
    elif k == "loop":
        out.append("loop %s in %s..%s " % (print_name(s[1]), print_expr(s[2]), print_expr(s[3])))
        _print_block(s[4], depth, out)
    elif k == "block":
        out.append("block ")
        _print_block(s[1], depth, out)
    elif k == "region":
        out.append("region %s " % quoted(s[1]))
        if s[2] is not None:
            out.append("from %s " % quoted(s[2]))
        _print_block(s[3], depth, out)
    elif k == "barrier":
        o = s[1]
        memory = s[2] if len(s) > 2 else "all"
        if o == "grid_sync" and memory == "all":
            out.append("grid_sync")
        else:
            out.append("barrier" if o == "seq_cst" else "barrier " + o)
        if memory != "all":
            out.append(" memory " + memory)
    elif k == "return":
        out.append("return")
    elif k == "all_reduce":
        out.append("all_reduce %s %s%s" % (print_name(s[1]), s[2], _group(s[3])))
    elif k == "broadcast":
        out.append("broadcast %s root %d%s" % (print_name(s[1]), s[2], _group(s[3])))
    elif k == "all_gather":
        out.append("all_gather %s -> %s%s" % (print_name(s[1]), print_name(s[2]), _group(s[3])))
    elif k == "reduce_scatter":
        out.append("reduce_scatter %s -> %s %s%s" % (print_name(s[1]), print_name(s[2]), s[3], _group(s[4])))
    elif k == "async_load" or k == "async_store":
        out.append("%s %s -> %s offset %s size %s tag %s" % (
            k, print_name(s[1]), print_name(s[2]), print_expr(s[3]), print_expr(s[4]), quoted(s[5])))
    elif k == "async_wait":
        out.append("async_wait %s" % quoted(s[1]))
    elif k == "indirect_dispatch":
        out.append("indirect_dispatch %s offset %d" % (print_name(s[1]), s[2]))
    elif k == "trap":
        out.append("trap %s tag %s" % (print_expr(s[1]), quoted(s[2])))
    elif k == "opaque":
        out.append("opaque %s" % quoted(s[1]))
    else:
        raise ValueError("printer: unknown statement %r" % (k,))


def print_buffer(b):
    s = "buffer %s: %s[%s] %s" % (print_name(b.name), b.element, b.count if b.count else "", b.access)
    if b.access != "workgroup" or b.binding != 0:
        s += " binding %d" % b.binding
    if b.is_output:
        s += " output"
    if b.live_out:
        s += " live_out"
    if b.range is not None:
        s += " range %d..%d" % b.range
    if b.kind != derived_kind(b.access):
        s += " kind " + b.kind
    return s


def print_program(p):
    out = ["workgroup_size %d %d %d\n" % p.workgroup_size]
    if p.buffers:
        out.append("\n")
        for b in p.buffers:
            out.append(print_buffer(b))
            out.append("\n")
    out.append("\n")
    e = p.entry
    if len(e) == 1 and e[0][0] == "region" and e[0][1] == ROOT_GENERATOR and e[0][2] is None:
        out.append("kernel ")
        _print_block(e[0][3], 0, out)
    else:
        out.append("entry ")
        _print_block(e, 0, out)
    out.append("\n")
    return "".join(out)
