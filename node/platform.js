'use strict';
// Which native addon this process loads. Two packages carry one, built from one crate
// (docs/packages.md): `idmint`'s own, without stores (the slim default), and the add-on
// `idmint-stores`'s, with the whole API and every store. When `idmint-stores` is installed its
// addon is loaded instead of idmint's, never beside it: ObjectId's counter, the fork handling
// and the metrics are the native library's, and must be one per process.
//
// Each package's addon is named as napi-rs names platforms: `linux-x64-gnu`, `linux-x64-musl`,
// `darwin-arm64`, `win32-x64-gnu`, ... and looked for in
//   1. `idmint.<key>.node` next to index.js: a build from source (scripts/build.js writes it;
//      idmint's own only: a build from source has the stores);
//   2. the npm package `<name>-<key>` (`idmint-linux-x64-gnu`, `idmint-stores-linux-x64-gnu`): a
//      prebuilt addon, one package per platform, which the published `idmint` (or
//      `idmint-stores`) lists in `optionalDependencies`, so npm installs only the one whose `os`,
//      `cpu` and `libc` match this machine.
// The dev package.json lists no optionalDependencies (none are published under those names while
// developing); the release build (tests/packages.sh) adds them to the packed package.json.

const { createRequire } = require('node:module');

/** The npm package of the stores add-on. */
const STORES = 'idmint-stores';

/**
 * The napi-rs platform key of a Node process: `${platform}-${arch}` plus the C library or ABI:
 * `linux-x64-gnu` / `linux-x64-musl` (glibc or musl: the two never load each other's libraries),
 * `win32-x64-gnu` (built by the -gnu toolchain against the UCRT; it loads in the official,
 * MSVC-built node.exe, as napi-rs resolves Node-API at run time), `darwin-arm64`.
 */
function platformKey(platform = process.platform, arch = process.arch, report = glibcReport) {
  if (platform === 'linux') return `linux-${arch}-${report() ? 'gnu' : 'musl'}`;
  if (platform === 'win32') return `win32-${arch}-gnu`;
  return `${platform}-${arch}`;
}

// Whether this process runs on glibc. First the C library mapped into the process itself
// (/proc/self/maps: musl's loader is ld-musl-<arch>.so.1, Alpine's libc libc.musl-<arch>.so.1;
// glibc's is libc.so.6), read in well under a millisecond; it is the process's own, so Bun's
// musl build on a glibc system reads as musl. Else Node's report, which says the same
// (glibcVersionRuntime, undefined on musl, as napi-rs's loaders read it) but costs ~5 ms of
// every require('idmint') (docs/bench/size.md, "Load time").
function glibcReport(maps = readMaps) {
  const mapped = maps();
  if (mapped !== null) {
    if (/\/(ld-musl-|libc\.musl-)[^/\n]*$/m.test(mapped)) return false;
    if (/\/libc\.so\.6$/m.test(mapped)) return true;
  }
  const report = process.report && typeof process.report.getReport === 'function' ? process.report.getReport() : null;
  return Boolean(report && report.header && report.header.glibcVersionRuntime);
}

function readMaps() {
  try {
    return require('node:fs').readFileSync('/proc/self/maps', 'latin1');
  } catch {
    return null;
  }
}

/** The file name of package `name`'s addon for `key` (a build from source, or in a platform package). */
const localAddonFile = (key = platformKey(), name = 'idmint') => `${name}.${key}.node`;

/** The npm package of `name`'s prebuilt addon for `key`. */
const platformPackage = (key = platformKey(), name = 'idmint') => `${name}-${key}`;

/**
 * The addon `require('idmint')` runs on: the stores add-on's when the package `idmint-stores`
 * can be found from here (the user's project), after checking that its version is idmint's (the
 * addon is the whole native API, which idmint's JS must match); else idmint's own. `own` is
 * idmint's package.json; `key`, `load` (require) and `requireAt` (createRequire) only differ in
 * tests.
 */
function loadNative(own, key = platformKey(), load = require, requireAt = createRequire) {
  const stores = resolved(`${STORES}/package.json`, load);
  if (stores === undefined) return loadAddon(prebuiltOf(own), key, load);
  const addon = load(stores);
  checkAddonVersion(addon.version, own.version);
  // Its platform package is resolved from idmint-stores's own folder, where npm installs its
  // optional dependencies (usually hoisted beside it, but nested when versions conflict).
  return loadAddon(prebuiltOf(addon), key, requireAt(stores), STORES);
}

/** The platform packages a package.json lists (tests/packages.sh adds them to the published ones). */
const prebuiltOf = (pkg) => Object.keys(pkg.optionalDependencies || {});

/**
 * Refuses a stores add-on of another version than idmint: its addon is the whole native API,
 * which idmint's JS (and each store stand-in's absence) must match.
 */
function checkAddonVersion(addon, installed) {
  if (addon !== installed) {
    throw wrap(
      `idmint ${installed} and its stores add-on ${STORES} ${addon} differ: install the same version of ` +
        `both (\`npm install idmint@${installed} ${STORES}@${installed}\`)`
    );
  }
}

/**
 * Package `name`'s addon for this machine (`idmint`: a build from source next to this file, else
 * the platform package; `idmint-stores`: its platform package); an error naming the platform
 * detected and the platform packages the package carries when none loads. `prebuilt` lists the
 * platform packages the installed package was published with; `key` is the platform detected
 * (platformKey()), `load` the loader (require, or one at idmint-stores's folder): both only
 * differ in tests.
 */
function loadAddon(prebuilt, key = platformKey(), load = require, name = 'idmint') {
  const pkg = platformPackage(key, name);
  // A build from source is idmint's alone: it has the stores already (the crate's default).
  const places = name === 'idmint' ? [`./${localAddonFile(key)}`, pkg] : [pkg];
  const have = prebuilt.length ? prebuilt.join(', ') : `none in this copy of ${name}`;
  const tried = [];
  for (const path of places) {
    try {
      return load(path);
    } catch (e) {
      // A file that exists but does not load (a wrong architecture or C library, a missing
      // symbol) is the error to report; a missing one just means the next place is tried.
      if (e.code !== 'MODULE_NOT_FOUND' || !String(e.message).startsWith(`Cannot find module '${path}'`)) {
        throw wrap(`cannot load ${path} on platform ${key} (prebuilt platforms: ${have}): ${e.message}`, e);
      }
      tried.push(path);
    }
  }
  // Platform packages installed here for another platform: node_modules copied from a glibc
  // machine to an Alpine one (or back), or installed with --force / --cpu / --libc.
  const others = prebuilt.filter((p) => p !== pkg && resolved(`${p}/package.json`, load) !== undefined);
  const elsewhere = others.length ? ` Installed here for other platforms: ${others.join(', ')}.` : '';
  const from = name === 'idmint' ? '' : ` in place of idmint and ${name} (a build from source has the stores)`;
  const why = prebuilt.includes(pkg)
    ? `npm did not install the optional dependency ${pkg} (installed with --omit=optional or ` +
      '--no-optional, or node_modules copied from another platform; prebuilt platforms: ' +
      `${have}): reinstall without those on this machine`
    : `there is no prebuilt ${pkg} (prebuilt platforms: ${have}); build the addon from source ` +
      'on this machine: `npm run build` in the idmint repository\'s node/ folder (needs Rust: ' +
      `https://rustup.rs), then install that folder${from}`;
  throw wrap(`no native addon for ${key}: ${why}.${elsewhere} Looked for ${tried.join(' and ')}.`);
}

// Where `request` (a package's package.json) is found, or undefined: without loading the
// package (a foreign addon may crash on load).
function resolved(request, load) {
  try {
    return (load.resolve || require.resolve)(request);
  } catch {
    return undefined;
  }
}

function wrap(message, cause) {
  const err = new Error(`idmint: ${message}`);
  if (cause) err.cause = cause;
  return err;
}

module.exports = { STORES, platformKey, glibcReport, localAddonFile, platformPackage, loadAddon, loadNative, checkAddonVersion };
