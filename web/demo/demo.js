// The idmint-web demo: everything below is the package's public API.
import init, { initExtras, Snowflake, Layout, ObjectId, parse, PRESETS, UNSIGNED_PRESETS } from '../index.js';

const $ = (id) => document.getElementById(id);
const CUSTOM = 'custom spec';

await init();
$('status').textContent = '';

for (const sel of [$('layout'), $('decode-layout')]) {
    for (const name of [...PRESETS, CUSTOM]) sel.add(new Option(name, name));
}
// The 64-bit layouts (Discord's, Instagram's, ...) for decoding; minting with them needs the
// `unsigned` opt-in, which this page does not offer.
for (const name of UNSIGNED_PRESETS) $('decode-layout').add(new Option(name, name), $('decode-layout').length - 1);

// The reader of the other formats (ULID, UUID, KSUID, xid, TSID) is in the second wasm module,
// loaded the first time such an ID is pasted.
let extras = null;

let generator = null;

function currentSpec(select) {
    return select.value === CUSTOM ? $('spec').value.trim() : select.value;
}

function showNodes() {
    $('snowflake-error').textContent = '';
    const sel = $('layout');
    if (sel.value !== CUSTOM) $('spec').value = new Layout(sel.value).spec;
    const box = $('nodes');
    box.replaceChildren();
    let layout;
    try {
        layout = new Layout(currentSpec(sel));
    } catch (e) {
        $('snowflake-error').textContent = `${e.name}: ${e.message}`;
        return;
    }
    for (const f of layout.fields.filter((x) => x.kind === 'node')) {
        const label = document.createElement('label');
        label.textContent = `${f.name} (0..${2 ** f.bits - 1}) `;
        const input = document.createElement('input');
        input.type = 'number';
        input.min = '0';
        input.max = String(2 ** f.bits - 1);
        input.dataset.field = f.name;
        input.value = '1';
        input.disabled = $('random').checked;
        label.append(input);
        box.append(label);
    }
    generator = null;
}

function makeGenerator() {
    const options = { layout: currentSpec($('layout')) };
    if ($('random').checked) options.random = true;
    else for (const input of $('nodes').querySelectorAll('input')) options[input.dataset.field] = Number(input.value);
    const g = new Snowflake(options);
    $('generator').textContent = `nodes ${JSON.stringify(g.nodes)}`;
    return g;
}

$('layout').addEventListener('change', showNodes);
$('spec').addEventListener('input', () => { $('layout').value = CUSTOM; showNodes(); });
$('random').addEventListener('change', showNodes);
$('nodes').addEventListener('input', () => { generator = null; });

$('mint-snowflake').addEventListener('click', () => {
    $('snowflake-error').textContent = '';
    try {
        generator ??= makeGenerator();
        const list = $('snowflake-out');
        list.replaceChildren();
        for (const id of generator.nextIds(5)) {
            const li = document.createElement('li');
            li.textContent = id.toString();
            li.title = 'click to decode';
            li.addEventListener('click', () => paste(li.textContent, $('layout').value === CUSTOM ? CUSTOM : $('layout').value));
            list.append(li);
        }
    } catch (e) {
        $('snowflake-error').textContent = `${e.name}: ${e.message}`;
    }
});

$('mint-objectid').addEventListener('click', () => {
    const list = $('objectid-out');
    list.replaceChildren();
    for (let i = 0; i < 5; i++) {
        const li = document.createElement('li');
        li.textContent = new ObjectId().toHexString();
        li.title = 'click to decode';
        li.addEventListener('click', () => paste(li.textContent));
        list.append(li);
    }
});

function paste(text, layout) {
    $('decode-input').value = text;
    if (layout) $('decode-layout').value = layout;
    decode();
}

function table(rows) {
    const t = document.createElement('table');
    for (const [k, v] of rows) {
        const tr = t.insertRow();
        const th = document.createElement('th');
        th.textContent = k;
        tr.append(th);
        tr.insertCell().textContent = v;
    }
    return t;
}

function decode() {
    const text = $('decode-input').value.trim();
    $('decode-out').replaceChildren();
    $('decode-error').textContent = '';
    if (!text) return;
    try {
        if (/^[0-9a-fA-F]{24}$/.test(text)) {
            const oid = new ObjectId(text);
            const hex = oid.toHexString();
            const t = oid.getTimestamp();
            $('decode-out').append(table([
                ['kind', 'ObjectId'],
                ['created (UTC)', t.toISOString()],
                ['created (local)', t.toLocaleString()],
                ['seconds', String(t.getTime() / 1000)],
                ['random', hex.slice(8, 18)],
                ['counter', String(parseInt(hex.slice(18), 16))],
            ]));
            $('decode-out').dataset.kind = 'objectid';
        } else if (!/^[0-9]+$/.test(text)) {
            // Any other format: parse without a layout names it and its parts.
            if (extras === null) {
                extras = initExtras();
                extras.then(decode, (e) => { $('decode-error').textContent = `${e.name}: ${e.message}`; });
                return;
            }
            const d = parse(text);
            const rows = [['kind', d.format], ['canonical', d.id]];
            if (d.time !== null) {
                rows.push(['created (UTC)', d.timeText ?? d.time.toISOString()]);
                rows.push(['created (local)', d.time.toLocaleString()]);
                rows.push(['timestampMs', String(d.timestampMs)]);
            }
            if (d.value !== null) rows.push(['value', String(d.value)]);
            for (const [k, v] of Object.entries(d.parts)) rows.push([k, String(v)]);
            $('decode-out').append(table(rows));
            $('decode-out').dataset.kind = d.format;
        } else {
            const layout = currentSpec($('decode-layout'));
            const p = parse(text, layout);
            const rows = [
                ['kind', `snowflake (${layout})`],
                ['created (UTC)', p.time.toISOString()],
                ['created (local)', p.time.toLocaleString()],
                ['timestampMs', String(p.timestampMs)],
            ];
            for (const [k, v] of Object.entries(p)) {
                if (k !== 'time' && k !== 'timestampMs') rows.push([k, String(v)]);
            }
            $('decode-out').append(table(rows));
            $('decode-out').dataset.kind = 'snowflake';
        }
    } catch (e) {
        $('decode-error').textContent = `${e.name}: ${e.message}`;
    }
}

$('decode-btn').addEventListener('click', decode);
$('decode-input').addEventListener('input', decode);
$('decode-layout').addEventListener('change', decode);

showNodes();
document.body.dataset.ready = 'true';
