// The installed npm packages through require(): mint, parse every snowflake vector, draw from a
// SQLite segment store, and find every file idmint's package.json lists.
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
