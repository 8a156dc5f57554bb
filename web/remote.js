// idmint-web's client of `idmint serve` (docs/server.md, the /v1 API) over `fetch`: the segment
// backend of the shared SegmentClient (js/segment.js) and the node lease of
// `Snowflake.create({ lease })`. The HTTP is JavaScript (the main wasm module stays within its
// size budget); every rule, default and error text is the core's, read from the extras module
// (`clientRules()`: `idmint_core::rules::rules_json`; `clientError(kind, fields)`: the core's
// error of a kind; `checkOption(name, value)`: the core's check of an option). This file does
// the I/O, the timers and the conversions.
//
// The rules, as the core's own lease keeper and segment client follow them:
//   - a lease is renewed every TTL/3, each renewal moving the value's fence (the last time its
//     IDs may carry) to TTL ahead; the generator mints only while the last successful renewal
//     (or lease) is younger than TTL - TTL/5 by both the wall clock and the monotonic one (a
//     frozen tab or a sleeping laptop finds its lease lapsed: LeaseLostError), only IDs with
//     times above the fence the value had when leased, and never past the fence it recorded;
//     a failed renewal is tried again after TTL/10; a value the server no longer holds for us is
//     leased again (possibly another value: the generator switches to it);
//   - a segment tag holds two ranges; the next is fetched once `refillAt` percent of the
//     current one is used; an empty tag is WouldBlockError for `nextId()`, while
//     `nextIdAsync()` waits up to `maxWaitMs`, then StoreUnavailableError; failed fetches are
//     retried in the background (backoff from the core's retry bounds) until one succeeds;
//   - a 401 or 403 is NotAuthorizedError, tried once per call, never in a loop; other
//     refusals carry the server's kind and message (the core's).

/** The client over the extras module `ex` (loaded). */
export function remoteClient(ex) {
    const rules = JSON.parse(ex.clientRules());
    /** The core's error of `kind`, its fields as text. */
    const coreError = (kind, ...fields) => ex.clientError(kind, fields.map((f) => (f == null ? '' : String(f))).join('\x1f'));
    /** An option as the core checks it: a number. */
    const option = (name, value) => ex.checkOption(name, String(value));
    const retryable = (e) => e?.kind === 'store_unavailable';

    /** `url` as the server's base: `{ base, describe, token }` (a `?token=` parameter read off). */
    function serverOf(url, what) {
        let u = null;
        try {
            u = new URL(url);
        } catch {
            // reported below
        }
        const token = u?.searchParams.get('token') ?? undefined;
        if (u !== null) u.searchParams.delete('token');
        if (u === null || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.search || u.hash || u.username || u.password) {
            throw coreError('invalid_argument', what, url, 'the URL of an idmint serve: http(s)://HOST[:PORT][/PATH], its token as the option `token` or a ?token= parameter');
        }
        const base = u.origin + u.pathname.replace(/\/+$/, '');
        return { base, describe: base, token };
    }

    /** JSON text of `body`, bigints as their digits (IDs above 2^53 stay exact). */
    const json = (body) => JSON.stringify(body, (_, v) => (typeof v === 'bigint' ? `\u0000${v}` : v))
        .replace(/"\\u0000(\d+)"/g, '$1');

    /**
     * One call of the /v1 API: its JSON answer, or the error: `store_unavailable` for no answer
     * or a kind worth retrying (the body's `retryable`), `not_authorized` for 401/403, else the
     * server's own kind and message.
     */
    async function request(server, token, method, path, body, timeoutMs, what) {
        const headers = {};
        if (token !== undefined) headers.authorization = `Bearer ${token}`;
        if (body !== undefined) headers['content-type'] = 'application/json';
        let r;
        let answer = null;
        try {
            r = await fetch(server.base + path, {
                method, headers, body: body === undefined ? undefined : json(body), cache: 'no-store',
                signal: AbortSignal.timeout(timeoutMs),
            });
            answer = await r.json().catch(() => null);
        } catch (e) {
            if (e?.name === 'TimeoutError') throw coreError('timed_out', server.describe, what, timeoutMs);
            throw coreError('store_unavailable', server.describe, `${what}: ${e?.message ?? e}`);
        }
        if (r.ok) return { status: r.status, answer };
        const message = answer?.error?.message ?? `HTTP ${r.status}`;
        // The kind's status and retryability as the body gives them (core's table of kinds);
        // only an answer without them (a proxy's page, an older server) is judged by its status.
        const status = answer?.error?.status ?? r.status;
        const retryable = answer?.error?.retryable ?? (r.status === 429 || r.status >= 500);
        if (status === 401 || status === 403) throw coreError('not_authorized', server.describe, status, message);
        if (retryable) throw coreError('store_unavailable', server.describe, `${what}: ${message}`);
        return Promise.reject(Object.assign(new Error(message), { kind: answer?.error?.kind ?? 'invalid_argument' }));
    }

    const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    const backoff = (failures) => Math.min(rules.segment_retry_min_ms * 2 ** Math.min(failures - 1, 20), rules.segment_retry_max_ms);

    // ---------------------------------------------------------------------------------------------
    // Segments: the backend js/segment.js expects (its `native`).

    /** One tag: the current range [next, end), the next one, the refill under way. */
    class HttpTag {
        #c;
        #name;
        #next = 0n;
        #end = 0n;
        #trigger = 0n; // once #next reaches it, the next range is fetched
        #spare = null; // [start, end) fetched ahead
        #refill = null; // the refill under way: a Promise
        #fatal = null; // a refusal not worth retrying, reported once
        #waiters = new Set();
        #issued = -1n; // the highest ID received
        #m = { refills: 0, step: 0, last: 0, max: 0, total: 0, storeErrors: 0, lastError: null };

        constructor(client, name) {
            this.#c = client;
            this.#name = name;
        }

        get tag() {
            return this.#name;
        }

        /**
         * Fetch a range of `count` IDs: `[start, end)`. A refill's range must start above every
         * ID received before (else the store lost its state); a direct run (`nextIds` above the
         * step) is not checked, its answer may overtake a refill's.
         */
        async fetch(count, refill) {
            const c = this.#c;
            const t0 = performance.now();
            const { answer } = await request(c.server, c.token, 'POST',
                `/v1/segment/${encodeURIComponent(this.#name)}/range?count=${count}`, undefined, c.opTimeoutMs, 'a range');
            const start = BigInt(answer.start);
            const end = BigInt(answer.last) + 1n;
            if (refill) {
                if (start <= this.#issued) throw coreError('range_below_issued', this.#name, start, end - 1n, this.#issued);
                this.#issued = end - 1n;
            }
            const ms = performance.now() - t0;
            const m = this.#m;
            m.refills++;
            m.last = ms;
            m.max = Math.max(m.max, ms);
            m.total += ms;
            return [start, end];
        }

        /** Start the refill unless one runs or the next range is there; the Promise of it. */
        kick() {
            if (this.#refill === null && this.#spare === null && !this.#c.closed) {
                this.#refill = this.#refilling().finally(() => {
                    this.#refill = null;
                });
            }
            return this.#refill;
        }

        async #refilling() {
            for (let failures = 0; !this.#c.closed;) {
                try {
                    const range = await this.fetch(this.#c.step, true);
                    this.#m.step = Number(range[1] - range[0]);
                    if (this.#c.closed) return;
                    this.#spare = range;
                    this.#m.lastError = null;
                    this.#wake();
                    return;
                } catch (e) {
                    this.#m.storeErrors++;
                    this.#m.lastError = e.message;
                    if (!retryable(e)) {
                        this.#fatal = e;
                        this.#wake();
                        return;
                    }
                    await sleep(backoff(++failures));
                }
            }
        }

        #wake() {
            for (const w of this.#waiters) w();
        }

        /** Move to the next range when the current one is used up; false when there is none. */
        #swap() {
            if (this.#next < this.#end) return true;
            if (this.#spare === null) return false;
            const [start, end] = this.#spare;
            this.#spare = null;
            this.#next = start;
            this.#end = end;
            this.#trigger = start + ((end - start) * BigInt(this.#c.refillAt)) / 100n;
            return true;
        }

        /** Up to `rules.segment_js_block` IDs from memory, `[start, end)`, never waiting. */
        tryBlock() {
            this.#c.live();
            if (!this.#swap()) {
                const fatal = this.#fatal;
                if (fatal !== null) {
                    this.#fatal = null; // reported once; the next call tries again
                    throw fatal;
                }
                this.kick();
                throw coreError('would_block', this.#name, this.#c.server.describe);
            }
            const start = this.#next;
            let end = start + BigInt(rules.segment_js_block);
            if (end > this.#end) end = this.#end;
            this.#next = end;
            if (end >= this.#trigger) this.kick();
            return [start, end];
        }

        /** The next ID, waiting for the refill (at most `maxWaitMs`) when memory is empty. */
        async nextIdAsync() {
            const waited = performance.now();
            for (;;) {
                try {
                    const [start, end] = this.tryBlock();
                    // Hand back what the caller's block does not take: only one ID is wanted.
                    if (end - start > 1n) this.#next = start + 1n;
                    return start;
                } catch (e) {
                    if (e?.kind !== 'would_block') throw e;
                }
                await this.#waitSince(waited);
            }
        }

        /** The first range in (or a refusal thrown), waiting at most `maxWaitMs`. */
        async loaded() {
            const waited = performance.now();
            for (;;) {
                if (this.#next < this.#end || this.#spare !== null) return;
                const fatal = this.#fatal;
                if (fatal !== null) {
                    this.#fatal = null;
                    throw fatal;
                }
                this.kick();
                await this.#waitSince(waited);
            }
        }

        /** Wait for a range or a refusal; StoreUnavailableError once `maxWaitMs` since `waited` passed. */
        async #waitSince(waited) {
            const left = this.#c.maxWaitMs - (performance.now() - waited);
            if (left <= 0 || !(await this.#wait(left))) {
                throw coreError('segment_unavailable', this.#c.server.describe, this.#name, this.#c.maxWaitMs, this.#m.lastError ?? '');
            }
        }

        /** Wait until a range or a refusal arrives (true), or `ms` passed (false). */
        #wait(ms) {
            return new Promise((resolve) => {
                const done = (ok) => {
                    clearTimeout(timer);
                    this.#waiters.delete(wake);
                    resolve(ok);
                };
                const wake = () => done(true);
                const timer = setTimeout(() => done(false), ms);
                this.#waiters.add(wake);
            });
        }

        /** `n` contiguous IDs: from memory up to the step, else straight from the server. */
        async nextIdsAsync(n) {
            this.#c.live();
            const count = option('n', n);
            if (count <= this.#c.step && this.#swap() && this.#end - this.#next >= BigInt(count)) {
                const start = this.#next;
                this.#next += BigInt(count);
                if (this.#next >= this.#trigger) this.kick();
                return [start, this.#next];
            }
            try {
                return await this.fetch(count, false);
            } catch (e) {
                this.#m.storeErrors++;
                this.#m.lastError = e.message;
                throw e;
            }
        }

        metrics() {
            const m = this.#m;
            const spare = this.#spare === null ? 0n : this.#spare[1] - this.#spare[0];
            return {
                tag: this.#name,
                remaining: Number(this.#end - this.#next + spare),
                step: m.step,
                refills: m.refills,
                lastRefillLatencyMs: m.last,
                maxRefillLatencyMs: m.max,
                meanRefillLatencyMs: m.refills ? m.total / m.refills : 0,
                storeErrors: m.storeErrors,
                lastError: m.lastError,
            };
        }

        drop() {
            this.#next = this.#end;
            this.#spare = null;
            this.#wake();
        }
    }

    class HttpSegmentClient {
        #tags = new Map();

        constructor(server, token, o) {
            this.server = server;
            this.token = token;
            this.closed = false;
            this.refillAt = o.refillAt === undefined ? rules.segment_refill_at : option('refillAt', o.refillAt);
            this.step = o.defaultStep === undefined ? rules.segment_default_step : option('defaultStep', o.defaultStep);
            if (o.maxStep !== undefined) this.step = Math.min(this.step, option('maxStep', o.maxStep));
            this.maxWaitMs = o.maxWaitMs === undefined ? rules.segment_max_wait_ms : option('maxWaitMs', o.maxWaitMs);
            this.opTimeoutMs = o.opTimeoutMs === undefined ? rules.segment_op_timeout_ms : option('opTimeoutMs', o.opTimeoutMs);
        }

        static async connect(url, o) {
            const server = serverOf(url, 'url');
            return new HttpSegmentClient(server, o.token ?? server.token, o);
        }

        live() {
            if (this.closed) throw coreError('closed', 'segment client');
        }

        /** The tag's handle, its first range fetched. */
        async tag(name) {
            this.live();
            let t = this.#tags.get(name);
            if (t === undefined) {
                t = new HttpTag(this, name);
                await t.loaded();
                this.#tags.set(name, t);
            }
            return t;
        }

        async createTag(tag, start, step, description) {
            this.live();
            const { status } = await request(this.server, this.token, 'POST', '/v1/admin/tags',
                { tag, start, step, description }, this.opTimeoutMs, 'creating a tag');
            return status === 201;
        }

        metrics() {
            return [...this.#tags.values()].map((t) => t.metrics()).sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
        }

        close() {
            this.closed = true;
            for (const t of this.#tags.values()) t.drop();
        }

        get store() {
            return this.server.describe;
        }
    }

    const segmentNative = {
        NativeSegmentClient: HttpSegmentClient,
        exactNumber: (id) => option('id', id),
    };

    // ---------------------------------------------------------------------------------------------
    // Leases

    /**
     * A generator holding a node value leased from the server: the Promise of the facade's
     * generator object. `make(names, values)` builds a wasm generator with those node fields
     * (the user's layout, epoch and policies); `opts` are the facade's lease options.
     */
    async function leasedSnowflake(make, opts, nodeFields) {
        if (nodeFields) {
            throw coreError('invalid_argument', 'lease', opts.lease, 'a lease fills every node field: give no node field and no `random` with it');
        }
        const server = serverOf(opts.lease, 'lease');
        const token = opts.token ?? server.token;
        let range;
        if (opts.leaseRange !== undefined) {
            if (!Array.isArray(opts.leaseRange) || opts.leaseRange.length !== 2) {
                throw coreError('invalid_argument', 'leaseRange', opts.leaseRange, '[first, last], node values');
            }
            range = opts.leaseRange.map((v) => option('leaseRange', v));
        }
        const keeper = new LeaseKeeper(server, token, make, {
            range,
            ttlMs: opts.leaseTtlMs === undefined ? undefined : option('leaseTtlMs', opts.leaseTtlMs),
            holder: opts.leaseHolder,
        });
        await keeper.start();
        return keeper.generator();
    }

    class LeaseKeeper {
        #server;
        #token; // the bearer token
        #make;
        #o;
        #ttl; // the lease's TTL, ms (the server's when not asked for)
        #value = null; // the value held (or last held)
        #leaseToken = null; // the lease's secret, null when the server no longer holds it for us
        #gen = null; // the wasm generator of #value
        #layout = null;
        #floor = 0; // IDs carry times above this: the value's fence when leased
        #recorded = 0; // IDs carry times up to this: the fence the server keeps for us
        #wallUntil = 0; // the lease is ours while Date.now() < this …
        #monoUntil = 0; // … and performance.now() < this
        #lastError = null; // why renewals failed, for the lost-lease error
        #fatal = null; // a 401/403: no more tries
        #timer = null;
        #closed = false;
        #onHide = null;

        constructor(server, token, make, o) {
            this.#server = server;
            this.#token = token;
            this.#make = make;
            this.#o = o;
            this.#ttl = o.ttlMs ?? rules.lease_default_ttl_ms;
        }

        #opTimeout() {
            return Math.max(1, Math.floor(this.#ttl / rules.lease_op_timeout_divisor));
        }

        /** Lease a value, build (or switch) the generator, renew at once (moves the fence ahead). */
        async #lease() {
            // After a lost lease the value held before first, as the core's keeper asks.
            const body = { ttl_ms: this.#o.ttlMs, holder: this.#o.holder, prefer: this.#value ?? undefined };
            if (this.#o.range !== undefined) [body.first, body.last] = this.#o.range;
            const { answer: l } = await request(this.#server, this.#token, 'POST', '/v1/leases', body, this.#opTimeout(), 'leasing');
            option('id', l.value); // a node value JSON could not carry exactly: the core's value_out_of_range
            const names = Object.keys(l.nodes);
            const values = names.map((k) => BigInt(l.nodes[k]));
            if (this.#gen === null || l.value !== this.#value) {
                const gen = this.#make(names, values); // the core checks the fields against the layout
                this.#gen = gen;
                this.#layout ??= gen.layout;
            }
            this.#value = l.value;
            this.#leaseToken = l.token;
            this.#ttl = l.ttl_ms;
            this.#floor = l.fence_ms;
            this.#recorded = l.fence_ms;
            await this.#renew();
        }

        /** Renew the lease, moving its fence TTL ahead; on success the lease is ours until TTL - margin. */
        async #renew() {
            const sentWall = Date.now();
            const sentMono = performance.now();
            const fence = Math.max(this.#recorded, sentWall + this.#ttl);
            await request(this.#server, this.#token, 'POST', `/v1/leases/${this.#value}/renew`,
                { token: this.#leaseToken, fence_ms: fence, ttl_ms: this.#ttl }, this.#opTimeout(), 'renewal');
            const hold = this.#ttl - Math.floor(this.#ttl / rules.lease_margin_divisor);
            this.#recorded = fence;
            this.#wallUntil = sentWall + hold;
            this.#monoUntil = sentMono + hold;
            this.#lastError = null;
        }

        async start() {
            await this.#lease();
            this.#schedule(Math.floor(this.#ttl / rules.lease_renew_divisor));
            if (typeof addEventListener === 'function') {
                this.#onHide = () => this.#hide();
                addEventListener('pagehide', this.#onHide);
            }
        }

        #schedule(ms) {
            if (this.#closed || this.#fatal !== null) return;
            this.#timer = setTimeout(() => this.#tick(), ms);
        }

        /** The timer: renew, or lease again once the server no longer holds the value for us. */
        async #tick() {
            this.#timer = null;
            let wait = Math.floor(this.#ttl / rules.lease_renew_divisor);
            try {
                if (this.#leaseToken === null) await this.#lease();
                else await this.#renew();
            } catch (e) {
                if (this.#closed) return;
                this.#lastError = e;
                if (e?.kind === 'not_authorized') {
                    this.#fatal = e;
                    return;
                }
                if (e?.kind === 'lease_lost') {
                    // Taken by another holder, or released: ours no longer; lease again.
                    this.#drop();
                    this.#lastError = null;
                    wait = 0;
                } else if (e?.kind !== 'no_free_lease') {
                    wait = Math.floor(this.#ttl / rules.lease_retry_divisor);
                }
            }
            this.#schedule(wait);
        }

        #drop() {
            this.#leaseToken = null;
            this.#wallUntil = 0;
            this.#monoUntil = 0;
        }

        /** The error of a lease not known to be held (or a refused token, a closed generator). */
        #lost() {
            if (this.#closed) return coreError('closed', 'snowflake generator');
            if (this.#fatal !== null) return this.#fatal;
            const reason = this.#lastError?.message ?? (this.#leaseToken === null ? rules.lost_taken : rules.lost_not_renewed);
            return coreError('lease_lost', this.#value, this.#server.describe, reason);
        }

        /** Throws unless an ID minted now is one the lease allows. */
        #check() {
            const now = Date.now();
            if (now >= this.#wallUntil || now <= this.#floor || now > this.#recorded || performance.now() >= this.#monoUntil) {
                throw this.#lost();
            }
        }

        /** The page is going away (or into the back-forward cache): release, lease again if it returns. */
        #hide() {
            if (this.#leaseToken === null) return;
            const body = { token: this.#leaseToken, fence_ms: this.#fence() };
            const value = this.#value;
            this.#drop();
            const headers = { 'content-type': 'application/json' };
            if (this.#token !== undefined) headers.authorization = `Bearer ${this.#token}`;
            fetch(`${this.#server.base}/v1/leases/${value}/release`, { method: 'POST', headers, body: json(body), keepalive: true })
                .catch(() => {});
            // Back from the back-forward cache, the renewal timer finds no lease and leases again.
        }

        /** The last time IDs of this lease may have carried. */
        #fence() {
            return Math.max(this.#floor, Math.min(Date.now(), this.#recorded));
        }

        async close() {
            if (this.#closed) return;
            this.#closed = true;
            if (this.#timer !== null) clearTimeout(this.#timer);
            if (this.#onHide !== null) removeEventListener('pagehide', this.#onHide);
            if (this.#leaseToken === null) return;
            const body = { token: this.#leaseToken, fence_ms: this.#fence() };
            this.#drop();
            await request(this.#server, this.#token, 'POST', `/v1/leases/${this.#value}/release`, body, this.#opTimeout(), 'release');
        }

        /** The facade's generator object. */
        generator() {
            const k = this;
            const nextId = () => {
                k.#check();
                return k.#gen.nextId();
            };
            return {
                layout: k.#layout,
                nextId,
                nextIdString: () => String(nextId()),
                nextIds(n) {
                    k.#check();
                    const ids = k.#gen.nextIds(n);
                    k.#check(); // the batch's times are at most now: still within the lease
                    return ids;
                },
                stats: () => k.#gen.stats(),
                nodes: () => k.#gen.nodes(),
                onExhausted: () => k.#gen.onExhausted(),
                onRollback: () => k.#gen.onRollback(),
                close: () => k.close(),
            };
        }
    }

    return { rules, segmentNative, leasedSnowflake };
}
