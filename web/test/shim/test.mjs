// A browser stand-in for the part of `node:test` the shared suite uses: test/it, describe/suite,
// before/after/beforeEach/afterEach, skip/todo, subtests (t.test). Test files register while
// they are imported; the harness page then calls `run()` and reads the results.

const root = { name: '', children: [], before: [], after: [], beforeEach: [], afterEach: [], parent: null };
let current = root;

function normalize(name, options, fn) {
    if (typeof name === 'function') return { name: name.name || '<anonymous>', options: {}, fn: name };
    if (typeof options === 'function') return { name, options: {}, fn: options };
    return { name, options: options ?? {}, fn };
}

function register(kind, args, extra = {}) {
    const { name, options, fn } = normalize(...args);
    const node = {
        kind, name: String(name), options: { ...options, ...extra }, fn, parent: current,
        children: [], before: [], after: [], beforeEach: [], afterEach: [],
    };
    current.children.push(node);
    if (kind === 'suite' && fn) {
        const prev = current;
        current = node;
        try {
            const r = fn({ name: node.name });
            if (r && typeof r.then === 'function') node.pending = r;
        } finally {
            current = prev;
        }
    }
    return node;
}

export function test(...args) { register('test', args); return Promise.resolve(); }
test.skip = (...args) => { register('test', args, { skip: true }); return Promise.resolve(); };
test.todo = (...args) => { register('test', args, { todo: true }); return Promise.resolve(); };
test.only = test;
export const it = test;
export function describe(...args) { register('suite', args); return Promise.resolve(); }
describe.skip = (...args) => { register('suite', args, { skip: true }); return Promise.resolve(); };
describe.todo = (...args) => { register('suite', args, { todo: true }); return Promise.resolve(); };
describe.only = describe;
export const suite = describe;
export function before(fn) { current.before.push(fn); }
export function after(fn) { current.after.push(fn); }
export function beforeEach(fn) { current.beforeEach.push(fn); }
export function afterEach(fn) { current.afterEach.push(fn); }
export const mock = {
    fn(impl = () => {}) {
        const calls = [];
        const f = function (...a) { const r = impl.apply(this, a); calls.push({ arguments: a, result: r }); return r; };
        f.mock = { calls, callCount: () => calls.length };
        return f;
    },
};
export default test;

const results = [];

function fullName(node) {
    const names = [];
    for (let n = node; n && n.parent; n = n.parent) names.unshift(n.name);
    return names.join(' > ');
}

function hooks(node, key) {
    const chain = [];
    for (let n = node.parent; n; n = n.parent) chain.unshift(...n[key]);
    return key === 'afterEach' ? chain.reverse() : chain;
}

function errorInfo(e) {
    if (e instanceof Error) return `${e.name}: ${e.message}\n${e.stack ?? ''}`;
    return String(e);
}

async function runTest(node, inherited) {
    const name = fullName(node);
    if (inherited.skip || node.options.skip || node.options.todo) {
        results.push({ name, status: 'skip' });
        return;
    }
    const start = performance.now();
    let skipped = false;
    const subtests = [];
    const ctx = {
        name: node.name,
        signal: new AbortController().signal,
        skip() { skipped = true; },
        todo() { skipped = true; },
        diagnostic() {},
        plan() {},
        test: (...args) => {
            const sub = { ...normalize(...args), kind: 'test', parent: node, children: [], before: [], after: [], beforeEach: [], afterEach: [] };
            sub.name = String(sub.name);
            const p = runTest(sub, {});
            subtests.push(p);
            return p;
        },
        before() {}, after() {}, beforeEach() {}, afterEach() {},
        mock,
    };
    try {
        for (const h of hooks(node, 'beforeEach')) await h(ctx);
        if (node.fn.length >= 2) {
            await new Promise((resolve, reject) => node.fn(ctx, (err) => (err ? reject(err) : resolve())));
        } else {
            await node.fn(ctx);
        }
        await Promise.all(subtests);
        for (const h of hooks(node, 'afterEach')) await h(ctx);
        results.push({ name, status: skipped ? 'skip' : 'pass', ms: performance.now() - start });
    } catch (e) {
        results.push({ name, status: 'fail', ms: performance.now() - start, error: errorInfo(e) });
    }
}

async function runSuite(node, inherited) {
    const skip = inherited.skip || node.options.skip || node.options.todo;
    if (node.pending) {
        try {
            await node.pending;
        } catch (e) {
            results.push({ name: fullName(node), status: 'fail', error: errorInfo(e) });
            return;
        }
    }
    try {
        if (!skip) for (const h of node.before) await h();
    } catch (e) {
        results.push({ name: fullName(node) + ' (before)', status: 'fail', error: errorInfo(e) });
        return;
    }
    for (const child of node.children) {
        if (child.kind === 'suite') await runSuite(child, { skip });
        else await runTest(child, { skip });
    }
    try {
        if (!skip) for (const h of node.after) await h();
    } catch (e) {
        results.push({ name: fullName(node) + ' (after)', status: 'fail', error: errorInfo(e) });
    }
}

/** Run everything registered so far (each file's tests in file order); returns the results. */
export async function run(file) {
    // Each file is run as a suite of its own, top-level hooks included.
    const fileSuite = {
        kind: 'suite', name: '', options: {}, parent: null,
        children: root.children.splice(0), before: root.before.splice(0), after: root.after.splice(0),
        beforeEach: root.beforeEach.splice(0), afterEach: root.afterEach.splice(0),
    };
    for (const child of fileSuite.children) child.parent = fileSuite;
    await runSuite(fileSuite, {});
    const out = results.splice(0);
    for (const r of out) r.file = file;
    return out;
}
