// The installed npm packages through require(): mint, parse every snowflake vector, find every
// file idmint's package.json lists, and draw from a SQLite segment store (with idmint-stores
// installed) or see the store calls refused, naming it (without).
//   node smoke.cjs PATH/TO/tests/vectors      (run by tests/packages.sh in a fresh npm project)
'use strict';
const { check } = require('./check.cjs');

const idmint = require('idmint');
check(idmint, process.argv[2], 'require').then(
  (line) => console.log(line),
  (e) => {
    console.error(e);
    process.exit(1);
  }
);
