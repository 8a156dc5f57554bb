#!/usr/bin/env python3
"""Fails when the modules of a Rust crate depend on each other in a circle.

    python3 tests/module_cycles.py [SRC_DIR]     # default core/src: exit 1 and each cycle
    python3 tests/module_cycles.py --map SRC_DIR # every module and the modules it uses
    python3 tests/module_cycles.py --self-test   # the fixtures in tests/module_cycles/

A module is a file (`lib.rs`, `foo.rs`, `foo/mod.rs`) or an inline `mod name { ... }` in one
(a `#[cfg(test)] mod tests` is its own module, as in Rust: it may use anything above it). Module
A uses module B when A's code names, by a `crate::`, `super::`, `self::` or child-module path
(in a `use` or in an expression, type, attribute or macro), an item B defines. A path through a
re-export (`pub use b::X` in a facade `mod.rs`) counts as using the module that defines `X`, and
the re-export itself as the facade using it; comments, doc comments (and their doctests and
links) and string literals name nothing. A module nesting another is not, by that alone, a use
of it.

Standard library only (Python 3.8+): cargo-modules would answer the same question through
rust-analyzer, whose build costs more CPU time than CI's budget on a fresh machine has.
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ITEM_KEYWORDS = {"fn", "struct", "enum", "trait", "type", "const", "static", "union"}


def tokens(text):
    """(kind, value, line) for identifiers and punctuation; comments, strings, chars and
    numbers are dropped (a brace or a path inside them is not code)."""
    i, n, line = 0, len(text), 1
    out = []
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        elif c in "rb" and raw_string_at(text, i):
            j = i + (2 if text.startswith("br", i) else 1)
            hashes = 0
            while text[j] == "#":
                hashes, j = hashes + 1, j + 1
            end = text.find('"' + "#" * hashes, j + 1)
            end = n if end < 0 else end + 1 + hashes
            line += text.count("\n", i, end)
            i = end
        elif c == '"' or (c == "b" and text.startswith('b"', i)):
            i += 2 if c == "b" else 1
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    i += 1
                line += text[i] == "\n"
                i += 1
            i += 1
        elif c == "'" or (c == "b" and text.startswith("b'", i)):
            # A char literal ('x', '\n', '\u{1F600}', b'x') or a lifetime ('a, 'static).
            j = i + (2 if c == "b" else 1)
            if text[j] == "\\":
                end = text.find("'", j + 2)
                i = end + 1
            elif j + 1 < n and text[j + 1] == "'":
                i = j + 2
            else:
                i = j
                while i < n and (text[i].isalnum() or text[i] == "_"):
                    i += 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            if word.startswith("r#"):
                word = word[2:]
            out.append(("id", word, line))
            i = j
        elif c.isdigit():
            while i < n and (text[i].isalnum() or text[i] in "_."):
                if text[i] == "." and not (i + 1 < n and text[i + 1].isdigit()):
                    break
                i += 1
        elif text.startswith("::", i):
            out.append(("p", "::", line))
            i += 2
        else:
            out.append(("p", c, line))
            i += 1
    return out


def raw_string_at(text, i):
    j = i + (2 if text.startswith("br", i) else 1 if text[i] == "r" else 0)
    if j == i or (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")):
        return False
    k = j
    while k < len(text) and text[k] == "#":
        k += 1
    return k < len(text) and text[k] == '"'


class Module:
    def __init__(self, key, file, line):
        self.key = key  # ("segment", "client", "buffer"); () is the crate root
        self.file = file
        self.line = line
        self.children = {}  # name -> key
        self.defines = set()
        self.imports = {}  # bound name -> (path, line)
        self.refs = []  # (path, line): every path its code names
        self.child_files = []  # (name, line) of `mod name;`

    def name(self, root):
        rel = self.file.relative_to(root)
        inline = self.key[len(file_key(rel)):]
        return str(rel) + "".join("::" + k for k in inline)


def file_key(rel):
    parts = list(rel.with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return tuple(parts)


def parse_use_tree(toks, i, prefix, leaves):
    """Reads one use tree at toks[i]; appends (path, bound name) leaves; returns the next index."""
    kind, value, _ = toks[i]
    if value == "{":
        i += 1
        while toks[i][1] != "}":
            i = parse_use_tree(toks, i, prefix, leaves)
            if toks[i][1] == ",":
                i += 1
        return i + 1
    if value == "*":
        leaves.append((prefix + ["*"], None))
        return i + 1
    if value == "::" and not prefix:
        leaves.append((["::"], None))  # an absolute path: another crate
        while toks[i][1] not in (",", ";", "}"):
            i += 1
        return i
    if toks[i + 1][1] == "::":
        return parse_use_tree(toks, i + 2, prefix + [value], leaves)
    path = prefix + [value]
    bound = prefix[-1] if value == "self" and prefix else value
    i += 1
    if toks[i][1] == "as":
        bound = toks[i + 1][1]
        i += 2
    if value == "self":
        path = prefix
    leaves.append((path, None if bound == "_" else bound))
    return i


def parse_file(path, key, root, modules):
    toks = tokens(path.read_text(encoding="utf-8"))
    top = Module(key, path, 1)
    modules[key] = top
    stack = [(top, 0)]  # (module, brace depth of its items)
    depth = 0
    i = 0
    while i < len(toks):
        kind, value, line = toks[i]
        mod, mod_depth = stack[-1]
        prev = toks[i - 1][1] if i else ""
        if value == "{":
            depth += 1
        elif value == "}":
            depth -= 1
            if depth < mod_depth:
                stack.pop()
        elif kind == "id" and value == "mod" and toks[i + 1][0] == "id":
            name = toks[i + 1][1]
            if toks[i + 2][1] == ";":
                if len(stack) == 1:
                    mod.child_files.append((name, line))
                i += 3
                continue
            if toks[i + 2][1] == "{":
                child = Module(mod.key + (name,), path, line)
                modules[child.key] = child
                mod.children[name] = child.key
                depth += 1
                stack.append((child, depth))
                i += 3
                continue
        elif kind == "id" and value == "use" and prev not in ("::",):
            leaves = []
            j = parse_use_tree(toks, i + 1, [], leaves)
            for p, bound in leaves:
                if p == ["::"]:
                    continue
                mod.refs.append((p, line))
                if bound and depth == mod_depth:
                    mod.imports[bound] = (p, line)
            i = j + 1 if j < len(toks) and toks[j][1] == ";" else j
            continue
        elif kind == "id" and depth == mod_depth and i + 1 < len(toks):
            nxt = toks[i + 1]
            if value in ITEM_KEYWORDS and nxt[0] == "id" and nxt[1] != "fn":
                mod.defines.add(nxt[1])
            elif value == "macro_rules" and nxt[1] == "!":
                mod.defines.add(toks[i + 2][1])
        if kind == "id" and prev != "::" and prev != "$" and toks[i + 1 : i + 2] and toks[i + 1][1] == "::":
            p = [value]
            j = i + 1
            while j + 1 < len(toks) and toks[j][1] == "::" and toks[j + 1][0] == "id":
                p.append(toks[j + 1][1])
                j += 2
            if len(p) > 1 or value in ("crate", "super", "self"):
                mod.refs.append((p, line))
            i = j
            continue
        i += 1
    for name, line in top.child_files:
        rel = path.relative_to(root)
        base = path.parent if rel.name in ("mod.rs", "lib.rs", "main.rs") else path.with_suffix("")
        for f in (base / f"{name}.rs", base / name / "mod.rs"):
            if f.exists():
                top.children[name] = key + (name,)
                parse_file(f, key + (name,), root, modules)
                break
        else:
            sys.exit(f"{path}:{line}: `mod {name};` has no file {base / name}.rs or {base / name}/mod.rs")


def load(src):
    src = Path(src)
    root_file = next((src / f for f in ("lib.rs", "main.rs") if (src / f).exists()), None)
    if root_file is None:
        sys.exit(f"{src}: no lib.rs or main.rs")
    modules = {}
    parse_file(root_file, (), src, modules)
    return modules


def resolve(modules, at, path, seen=None):
    """The key of the module that defines what `path`, named in module `at`, names; None for
    another crate's item or a local name."""
    seen = seen or set()
    mod = modules[at]
    first = path[0]
    if first == "crate":
        cur, i = (), 1
    elif first == "super":
        cur, i = at, 0
        while i < len(path) and path[i] == "super":
            cur, i = cur[:-1], i + 1
    elif first == "self":
        cur, i = at, 1
    elif first in mod.children:
        cur, i = at, 0
    elif first in mod.imports and (at, first) not in seen:
        seen.add((at, first))
        used, _ = mod.imports[first]
        return resolve(modules, at, used + path[1:], seen)
    else:
        return None
    while i < len(path) and path[i] in modules[cur].children:
        cur, i = modules[cur].children[path[i]], i + 1
    if i == len(path) or path[i] == "*":
        return cur
    name, owner = path[i], modules[cur]
    if name not in owner.defines and name in owner.imports and (cur, name) not in seen:
        seen.add((cur, name))
        used, _ = owner.imports[name]
        return resolve(modules, cur, used, seen) or cur
    return cur


def graph(modules):
    """module key -> {used module key: first line of the module's code that names it}"""
    edges = {k: {} for k in modules}
    for key, mod in modules.items():
        for path, line in mod.refs:
            target = resolve(modules, key, path)
            if target is not None and target != key and target not in edges[key]:
                edges[key][target] = line
    return edges


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan), each as a list."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def one_cycle(edges, comp):
    """A shortest circle through the component's first module, as a list of keys."""
    members, start = set(comp), comp[0]
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v]):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return [start]


def check(src, out=sys.stdout):
    modules = load(src)
    edges = graph(modules)
    root = Path(src)
    found = cycles(edges)
    for comp in found:
        names = ", ".join(modules[k].name(root) for k in comp)
        print(f"{root}: {len(comp)} modules use each other in a circle: {names}", file=out)
        circle = one_cycle(edges, comp)
        for a, b in zip(circle, circle[1:]):
            m = modules[a]
            print(f"  {m.file}:{edges[a][b]}: {m.name(root)} uses {modules[b].name(root)}", file=out)
    if not found:
        print(f"{root}: {len(modules)} modules, no cycle", file=out)
    return 1 if found else 0


def print_map(src):
    modules = load(src)
    edges = graph(modules)
    root = Path(src)
    for key in sorted(modules, key=lambda k: modules[k].name(root)):
        used = sorted(modules[k].name(root) for k in edges[key])
        print(f"{modules[key].name(root)} -> {', '.join(used) or '(nothing in the crate)'}")


def self_test():
    """The check must find the fixture's deliberate cycles (and name them) and find none where
    a facade, comments, strings and lifetimes only look like a circle."""
    import io

    fixtures = HERE / "module_cycles"
    failures = []
    buf = io.StringIO()
    if check(fixtures / "acyclic", buf) != 0:
        failures.append("acyclic fixture reported a cycle:\n" + buf.getvalue())
    buf = io.StringIO()
    code = check(fixtures / "cyclic", buf)
    report = buf.getvalue()
    expected = [
        "store.rs, store/conn.rs",  # conn.rs uses store.rs's item; store.rs uses conn.rs's
        "lease.rs, segment/mod.rs, segment/tag.rs",  # through segment's re-export of tag
    ]
    if code != 1 or any(e not in report for e in expected):
        failures.append(f"cyclic fixture: exit {code}, expected 1 naming {expected}:\n{report}")
    if failures:
        print("\n".join(failures))
        return 1
    print("module_cycles self-test: the deliberate cycles are found, the look-alikes are not")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if args == ["--self-test"]:
        sys.exit(self_test())
    if args[:1] == ["--map"] and len(args) == 2:
        print_map(args[1])
        sys.exit(0)
    if len(args) > 1 or (args and args[0].startswith("-")):
        sys.exit(__doc__)
    sys.exit(check(args[0] if args else "core/src"))
