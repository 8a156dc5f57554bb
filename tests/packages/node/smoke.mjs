// The installed npm packages through import: the same checks as smoke.cjs, on the ESM entry.
//   node smoke.mjs PATH/TO/tests/vectors
import * as idmint from 'idmint';
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';

const require = createRequire(import.meta.url);
// The ESM entry gives the same objects as the CommonJS one.
assert.equal(idmint.Snowflake, require('idmint').Snowflake);
const { check } = require('./check.cjs');
console.log(await check(idmint, process.argv[2], 'import'));
