#!/usr/bin/env node
'use strict';
// The platform packages of the stores add-on (`idmint-stores-<key>`) for the release build
// (tests/packages.sh build_node): each is idmint's platform package node/npm/<key>/ (the same
// `os`, `cpu`, `libc` and engines, which npm picks it by) under the add-on's names, so a platform
// is described once. Writes package.json and README.md into DIR; the addon file
// (`idmint-stores.<key>.node`, the crate built with `--no-default-features --features stores`)
// is the caller's to put beside them.
//
//   node scripts/stores-package.js KEY DIR

const fs = require('node:fs');
const path = require('node:path');
const { STORES, localAddonFile, platformPackage } = require('../platform.js');

const [key, dir] = process.argv.slice(2);
const from = path.resolve(__dirname, '..', 'npm', key || '');
if (!key || !dir || !fs.existsSync(path.join(from, 'package.json'))) {
  console.error(`usage: stores-package.js KEY DIR, KEY one of ${fs.readdirSync(path.resolve(__dirname, '../npm')).join(', ')}`);
  process.exit(2);
}

// Each replacement must apply: a reworded source would otherwise ship idmint's words.
function replace(text, pairs, file) {
  for (const [old, now] of pairs) {
    if (!text.includes(old)) {
      console.error(`stores-package.js: node/npm/${key}/${file} no longer says ${JSON.stringify(old)}`);
      process.exit(1);
    }
    text = text.split(old).join(now);
  }
  return text;
}

const name = platformPackage(key, STORES);
const file = localAddonFile(key, STORES);
const pkg = JSON.parse(fs.readFileSync(path.join(from, 'package.json'), 'utf8'));
pkg.name = name;
pkg.description = replace(
  pkg.description,
  [
    ['the npm package `idmint`', `the npm package \`${STORES}\` (idmint's stores add-on)`],
    ['installed by `idmint` itself', `installed by \`${STORES}\` itself`],
  ],
  'package.json',
);
pkg.repository.directory = 'node/stores';
pkg.main = file;
pkg.files = [file];

const readme = replace(
  fs.readFileSync(path.join(from, 'README.md'), 'utf8'),
  [
    [`# ${platformPackage(key)}`, `# ${name}`],
    [
      'The native addon of [`idmint`](https://www.npmjs.com/package/idmint)',
      `The native addon of [\`${STORES}\`](https://www.npmjs.com/package/${STORES}), idmint's stores add-on (the whole API with every store),`,
    ],
    ['`npm install idmint` installs it', `\`npm install ${STORES}\` installs it`],
    ['depend on `idmint`, not on this package', `depend on \`${STORES}\`, not on this package`],
  ],
  'README.md',
);

fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
fs.writeFileSync(path.join(dir, 'README.md'), readme);
