'use strict';
// idmint's metrics through the OpenTelemetry API, when the application has `@opentelemetry/api`
// (no dependency of this package: without it nothing is registered and nothing fails). Wiring
// only: the metrics, their names, units, instruments and how the values of several generators
// combine are the core's (idmint_core::metrics, docs/metrics.md); the addon hands them over
// (bindings/node/src/metrics.rs) and this file registers one observable instrument per
// definition, whose callback reads the core's values when the exporter collects. Nothing is
// counted on the minting path.

const asyncDispose = Symbol.asyncDispose ?? Symbol.for('nodejs.asyncDispose');

let otel; // undefined until first looked for; then the module or null

/**
 * `@opentelemetry/api` as the application installed it, or null when it did not. Looked for
 * once: a failed require searches the file system, too slow for every new generator.
 */
function optionalApi() {
  if (otel === undefined) {
    try {
      otel = require('@opentelemetry/api');
    } catch (e) {
      // Only its absence is expected; a broken install is reported as it is.
      if (!(e && e.code === 'MODULE_NOT_FOUND' && String(e.message).includes('@opentelemetry/api'))) throw e;
      otel = null;
    }
  }
  return otel;
}

/**
 * The package's metrics over the addon `native` (`metricDefinitions()`, `mergeObservations()`,
 * `health()`, an `observe()` on each generator and client); `version` names the meter's
 * version, `call` runs an addon call and rethrows its error as the package's error class.
 */
function metricsApi(native, { version, InvalidArgumentError, call }) {
  // The generators and segment clients alive in this process: weak, so a metric never keeps
  // one from the garbage collector; a closed one leaves at once, a collected one when the
  // finalizer runs (so a process that makes many generators and never collects metrics does
  // not pile up references).
  const live = new Set();
  const collected = new FinalizationRegistry((ref) => live.delete(ref));

  /** Every live generator's and client's values, combined by the core (one per attribute set). */
  function observe() {
    const all = [];
    for (const ref of live) {
      const n = ref.deref();
      if (n === undefined) live.delete(ref);
      else for (const o of n.observe()) all.push(o);
    }
    return native.mergeObservations(all);
  }

  /**
   * The core's health of `observations` (default: every live generator's and client's now):
   * `{ status: 'up' | 'degraded' | 'down', reasons, lease, tags }`, by the rule `idmint_core::health` states
   * (down while a snowflake lease is not held, or while a tag has no IDs buffered and failed
   * store calls).
   */
  function health(observations = observe()) {
    return call(() => native.health(observations));
  }

  // provider -> { unregister } of the instruments registered on it.
  const registered = new Map();

  /**
   * One observable instrument per metric on `meterProvider`'s meter `idmint` (default: the
   * OpenTelemetry API's global provider); registering on the same provider twice gives the first
   * registration. `unregister()` (or `await using`) removes the callback.
   */
  function register(meterProvider) {
    const api = optionalApi();
    if (meterProvider === undefined && api === null) {
      throw new InvalidArgumentError(
        'invalid argument `meterProvider` = undefined: a MeterProvider, or install @opentelemetry/api for its global one'
      );
    }
    const provider = meterProvider ?? api.metrics.getMeterProvider();
    const known = registered.get(provider);
    if (known !== undefined) return known;
    const meter = provider.getMeter('idmint', version);
    const instruments = new Map();
    for (const d of native.metricDefinitions()) {
      const options = { description: d.description, unit: d.unit };
      const make = { counter: 'createObservableCounter', gauge: 'createObservableGauge' }[d.instrument];
      if (make === undefined) {
        throw new InvalidArgumentError(`invalid argument \`instrument\` = ${JSON.stringify(d.instrument)}: counter or gauge`);
      }
      instruments.set(d.name, meter[make](d.name, options));
    }
    const callback = (result) => {
      for (const o of observe()) result.observe(instruments.get(o.metric), o.value, o.attributes);
    };
    meter.addBatchObservableCallback(callback, [...instruments.values()]);
    const handle = {
      unregister() {
        if (registered.get(provider) !== handle) return;
        meter.removeBatchObservableCallback(callback, [...instruments.values()]);
        registered.delete(provider);
      },
      async [asyncDispose]() {
        handle.unregister();
      },
    };
    registered.set(provider, handle);
    return handle;
  }

  /**
   * Publish on the API's global provider when the API is installed: checked as each generator
   * or client is made, so an SDK set up after `require('idmint')` (but before the IDs' first
   * generator) is the one that gets the metrics.
   */
  function autoRegister() {
    const api = optionalApi();
    if (api !== null && !registered.has(api.metrics.getMeterProvider())) register();
  }

  /** Count `n` (an addon generator or client) in from now until it closes or is collected. */
  function track(n) {
    const ref = new WeakRef(n);
    live.add(ref);
    collected.register(n, ref, ref);
    autoRegister();
    return () => {
      live.delete(ref);
      collected.unregister(ref);
    };
  }

  return {
    track,
    metrics: Object.freeze({
      /** The metrics idmint publishes: `{ name, instrument, unit, description, attributes }`. */
      definitions: () => native.metricDefinitions(),
      /** Their values now, across every live generator and client: `{ metric, value, attributes }`. */
      observe,
      /** The core's health of these values (or of the ones given). */
      health,
      register,
    }),
  };
}

module.exports = { metricsApi };
