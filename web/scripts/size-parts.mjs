// Size of each part of a .wasm: the bytes of its function bodies grouped by the Rust module they
// come from (read from the wasm's name section, so the file must keep it: build.mjs runs wasm-opt
// once more with -g for this report), plus its data (string constants: error and panic texts,
// formatting tables). What build.mjs prints and writes to pkg/size.json.
//
//   node scripts/size-parts.mjs FILE.wasm...      a table per file
//   node scripts/size-parts.mjs --top N FILE...   and its N largest functions

import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

// The first rule whose pattern a function's demangled name matches names its part. idmint's own
// modules come first, so `<idmint_core::layout::Layout as core::fmt::Display>::fmt` is layout's.
const PARTS = [
    // An export's wrapper holds the core code wasm-opt inlined into it: its part is its class's.
    ['orders', /idmint_core::(orders|template)\b|^wasm(template|ordernumbers)_/],
    ['obfuscate', /idmint_core::obfuscate\b|\bsiphasher::|^wasmkeyring_|^keyGenerate/],
    ['uuid7/ulid', /idmint_core::uuid7\b|^(uuid7|ulid)[A-Z]|^wasmuuid7generator_/],
    ['shortid', /idmint_core::shortid\b|^(en|de)codeId/],
    ['layout', /idmint_core::layout\b|^wasmlayout_/],
    ['snowflake', /idmint_core::snowflake\b|^wasmsnowflake_/],
    ['ObjectId', /idmint_core::objectid\b|\bhex::|^oid[A-Z]/],
    ['datetime (RFC 3339)', /idmint_core::datetime\b/],
    ['error text (Display)', /idmint_core::error\b/],
    ['core: args, clock, guard', /idmint_core::/],
    ['glue (bindings)', /idmint_wasm/],
    ['panics (std)', /\bpanicking\b|\bpanic\b|_fail\b|unwrap_failed/],
    ['Debug quoting of text (unicode tables)', /escape_debug|EscapeDebug|printable|<char as core::fmt::Debug>/],
    ['getrandom', /getrandom/],
    ['time crate', /(^|[<\s])time::/],
    ['allocator (talc, or std\'s dlmalloc)', /dlmalloc|talc|__rdl_|__rust_(alloc|dealloc|realloc)/],
    ['wasm-bindgen, js-sys', /wasm_bindgen|js_sys|__wbindgen|__wbg|externref/],
    ['core::fmt, format!', /\b(core|alloc)::fmt\b/],
    ['128-bit integers', /u128|i128|__multi3|ti3\b/],
    ['std, alloc, core (other)', /^(std|alloc|core|compiler_builtins|__rustc)::|<(std|alloc|core)::|^<(u8|u16|u32|u64|i32|i64|str|char)>/],
];

/** `_ZN11idmint_core6layout6Layout5parse17h0123456789abcdefE` -> `idmint_core::layout::Layout::parse`. */
export function demangle(name) {
    // wasm-opt writes names demangled, with each crate's hash: `core[c5930c85a12de822]::fmt`.
    if (!name.startsWith('_ZN')) return name.replace(/\[[0-9a-f]{16}\]/g, '');
    const segs = [];
    let i = 3;
    while (i < name.length && name[i] !== 'E') {
        let j = i;
        while (name[j] >= '0' && name[j] <= '9') j++;
        const n = Number(name.slice(i, j));
        if (!n) break;
        segs.push(name.slice(j, j + n));
        i = j + n;
    }
    if (segs.length && /^h[0-9a-f]{16}$/.test(segs[segs.length - 1])) segs.pop();
    return segs.join('::')
        .replace(/\.\./g, '::').replace(/\$LT\$/g, '<').replace(/\$GT\$/g, '>')
        .replace(/\$u20\$/g, ' ').replace(/\$RF\$/g, '&').replace(/\$C\$/g, ',')
        .replace(/\$u7b\$/g, '{').replace(/\$u7d\$/g, '}').replace(/\$BP\$/g, '*');
}

function leb(buf, at) {
    let v = 0, shift = 0, b;
    do {
        b = buf[at++];
        v += (b & 0x7f) * 2 ** shift;
        shift += 7;
    } while (b & 0x80);
    return [v, at];
}

/** { parts: [[part, bytes]...] (largest first), functions: [[name, bytes]...] } of a wasm file. */
export function sizeParts(bytes) {
    let at = 8;
    let imported = 0;
    const bodies = []; // size of each defined function's body
    const names = new Map(); // function index -> name
    let data = 0;
    while (at < bytes.length) {
        const id = bytes[at];
        let size;
        [size, at] = leb(bytes, at + 1);
        const end = at + size;
        if (id === 2) { // imports: functions among them shift the indices of defined ones
            let n, p = at;
            [n, p] = leb(bytes, p);
            for (let k = 0; k < n; k++) {
                let len;
                for (let s = 0; s < 2; s++) { [len, p] = leb(bytes, p); p += len; }
                const kind = bytes[p++];
                if (kind === 0) { imported++; [, p] = leb(bytes, p); }
                else if (kind === 1) { p++; const f = bytes[p++]; [, p] = leb(bytes, p); if (f & 1) [, p] = leb(bytes, p); }
                else if (kind === 2) { const f = bytes[p++]; [, p] = leb(bytes, p); if (f & 1) [, p] = leb(bytes, p); }
                else if (kind === 3) { p += 2; }
                else { p++; [, p] = leb(bytes, p); } // tag
            }
        } else if (id === 10) {
            let n, p = at;
            [n, p] = leb(bytes, p);
            for (let k = 0; k < n; k++) {
                let len;
                const start = p;
                [len, p] = leb(bytes, p);
                p += len;
                bodies.push(p - start);
            }
        } else if (id === 11) {
            data += size;
        } else if (id === 0) {
            let len, p = at;
            [len, p] = leb(bytes, p);
            const sect = new TextDecoder().decode(bytes.subarray(p, p + len));
            p += len;
            if (sect === 'name') {
                while (p < end) {
                    const sub = bytes[p];
                    let subSize;
                    [subSize, p] = leb(bytes, p + 1);
                    const subEnd = p + subSize;
                    if (sub === 1) {
                        let n;
                        [n, p] = leb(bytes, p);
                        for (let k = 0; k < n; k++) {
                            let idx, l;
                            [idx, p] = leb(bytes, p);
                            [l, p] = leb(bytes, p);
                            names.set(idx, new TextDecoder().decode(bytes.subarray(p, p + l)));
                            p += l;
                        }
                    }
                    p = subEnd;
                }
            }
        }
        at = end;
    }
    if (names.size === 0) throw new Error('the wasm has no name section (build it with wasm-opt -g, or without --strip-debug)');
    const functions = bodies.map((n, k) => [demangle(names.get(imported + k) ?? ''), n]);
    const sums = new Map();
    const add = (part, n) => sums.set(part, (sums.get(part) ?? 0) + n);
    for (const [name, n] of functions) add(PARTS.find(([, re]) => re.test(name))?.[0] ?? 'other code', n);
    add('data (texts, tables)', data);
    const code = bodies.reduce((a, b) => a + b, 0);
    add('wasm structure (types, imports, exports, tables)', bytes.length - code - data - nameSectionSize(bytes));
    return { parts: [...sums].sort((a, b) => b[1] - a[1]), functions };
}

function nameSectionSize(bytes) {
    let at = 8, total = 0;
    while (at < bytes.length) {
        const id = bytes[at];
        const [size, p] = leb(bytes, at + 1);
        if (id === 0) {
            const [len, q] = leb(bytes, p);
            const sect = new TextDecoder().decode(bytes.subarray(q, q + len));
            if (sect !== 'target_features') total += p + size - at; // name, producers: stripped in pkg/
        }
        at = p + size;
    }
    return total;
}

/** The table, as markdown. */
export function table(file, bytes) {
    const { parts } = sizeParts(bytes);
    const rows = parts.map(([part, n]) => `| ${part} | ${n.toLocaleString('en')} |`);
    return [`${file}: bytes of each part (after wasm-opt, before gzip)`, '', '| part | bytes |', '|---|---:|', ...rows].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
    const args = process.argv.slice(2);
    const top = args[0] === '--top' ? Number(args.splice(0, 2)[1]) : 0;
    for (const file of args) {
        const bytes = readFileSync(file);
        console.log(table(file, bytes) + '\n');
        for (const [name, n] of sizeParts(bytes).functions.sort((a, b) => b[1] - a[1]).slice(0, top)) {
            console.log(`${String(n).padStart(7)}  ${name.slice(0, 150)}`);
        }
    }
}
