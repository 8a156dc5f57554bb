// No Rust panic may unwind into N-API, where it aborts the Node process: every function the
// addon exports through napi-rs is generated with `catch_unwind` (a panic becomes a thrown
// Error), and every raw N-API callback of bindings/node/src/fast.rs is declared with its
// `callback!` macro, whose body runs under `no_unwind`. Checked on the glue's source, so a new
// export without the guard fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

const SRC = new URL('../../bindings/node/src/', import.meta.url);
const files = readdirSync(SRC).filter((f) => f.endsWith('.rs'));

test('every #[napi] function catches unwinding', () => {
  const unguarded = [];
  let guarded = 0;
  for (const f of files) {
    const lines = readFileSync(new URL(f, SRC), 'utf8').split('\n');
    lines.forEach((line, i) => {
      const attr = line.trim().match(/^#\[napi(\((.*)\))?\]$/);
      if (!attr) return;
      let j = i + 1;
      while (j < lines.length && /^\s*(\/\/\/|#\[)/.test(lines[j])) j++;
      if (!/\bfn\s/.test(lines[j]) || /module_exports/.test(attr[2] ?? '')) return;
      if (/\bcatch_unwind\b/.test(attr[2] ?? '')) guarded++;
      else unguarded.push(`${f}:${i + 1}: ${lines[j].trim()}`);
    });
  }
  assert.deepEqual(unguarded, [], 'add catch_unwind to these #[napi] attributes');
  assert.ok(guarded > 50, `${guarded} guarded functions`);
});

test('every raw N-API callback runs under no_unwind', () => {
  const fast = readFileSync(new URL('fast.rs', SRC), 'utf8');
  // Callbacks take (env, napi_callback_info); only the macro may spell that signature out.
  const raw = [...fast.matchAll(/extern "C" fn (\w+)\([^)]*napi_callback_info/g)].map((m) => m[1]);
  assert.deepEqual(raw, [], 'declare these with callback! { ... }');
  const declared = [...fast.matchAll(/callback! \{[^}]*?fn (\w+)\(/gs)].map((m) => m[1]);
  assert.ok(declared.length >= 8, `callbacks: ${declared}`);
});
