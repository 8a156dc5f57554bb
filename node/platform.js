'use strict';
// Which native addon this machine needs, named as napi-rs names them: `linux-x64-gnu`,
// `linux-x64-musl`, `darwin-arm64`, `win32-x64-msvc`, ... The addon is looked for in two places:
//   1. `idmint.<key>.node` next to index.js: a build from source (scripts/build.js writes it);
//   2. the npm package `idmint-<key>`: a prebuilt addon, one package per platform, which the
//      published `idmint` lists in `optionalDependencies`, so npm installs only the one whose
//      `os`, `cpu` and `libc` match this machine.
// The dev package.json lists no optionalDependencies (none are published under those names while
// developing); the release build (tests/packages.sh) adds them to the packed package.json.

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

// Node reports the glibc it runs on (undefined on musl): the way napi-rs's loaders tell them
// apart. (Bun's musl build reports none either.)
function glibcReport() {
  const report = process.report && typeof process.report.getReport === 'function' ? process.report.getReport() : null;
  return Boolean(report && report.header && report.header.glibcVersionRuntime);
}

/** The file name of a build from source for `key`. */
const localAddonFile = (key = platformKey()) => `idmint.${key}.node`;

/** The npm package of the prebuilt addon for `key`. */
const platformPackage = (key = platformKey()) => `idmint-${key}`;

/**
 * The addon for this machine: a build from source next to this file, else the platform package;
 * an error naming the platform detected and the platform packages this `idmint` carries when
 * neither loads. `prebuilt` lists the platform packages the installed `idmint` was published
 * with; `key` is the platform detected (platformKey()), `load` the loader (require): both only
 * differ in tests.
 */
function loadAddon(prebuilt, key = platformKey(), load = require) {
  const local = `./${localAddonFile(key)}`;
  const pkg = platformPackage(key);
  const have = prebuilt.length ? prebuilt.join(', ') : 'none in this copy of idmint';
  const tried = [];
  for (const path of [local, pkg]) {
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
  const others = prebuilt.filter((p) => p !== pkg && installed(p, load));
  const elsewhere = others.length ? ` Installed here for other platforms: ${others.join(', ')}.` : '';
  const why = prebuilt.includes(pkg)
    ? `npm did not install the optional dependency ${pkg} (installed with --omit=optional or ` +
      '--no-optional, or node_modules copied from another platform; prebuilt platforms: ' +
      `${have}): reinstall without those on this machine`
    : `there is no prebuilt ${pkg} (prebuilt platforms: ${have}); build the addon from source ` +
      'on this machine: `npm run build` in the idmint repository\'s node/ folder (needs Rust: ' +
      'https://rustup.rs), then install that folder';
  throw wrap(`no native addon for ${key}: ${why}.${elsewhere} Looked for ${tried.join(' and ')}.`);
}

// Whether a package can be found (without loading it: a foreign addon may crash on load).
function installed(pkg, load) {
  try {
    (load.resolve || require.resolve)(`${pkg}/package.json`);
    return true;
  } catch {
    return false;
  }
}

function wrap(message, cause) {
  const err = new Error(`idmint: ${message}`);
  if (cause) err.cause = cause;
  return err;
}

module.exports = { platformKey, localAddonFile, platformPackage, loadAddon };
