"""idmint's metrics through the OpenTelemetry API (``opentelemetry-api``).

``publish(gen_or_client)`` registers, once per meter provider, one observable counter or gauge
per metric the core defines (:func:`idmint.metric_definitions`, listed in ``docs/metrics.md``),
on the meter named after this package; their callbacks read the core's combined observations of
every published generator and client (:func:`idmint.observe_all`) when the reader collects. No
metric name, unit or value is made here, and nothing is counted on the minting path.

``import idmint`` never imports this module (nor ``opentelemetry``): the framework integrations
call :func:`publish` only when the API is installed.

>>> import idmint, idmint.otel
>>> gen = idmint.Snowflake(datacenter=1, worker=2)
>>> idmint.otel.publish(gen)           # the global meter provider; meter_provider=... for another
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable
from typing import Any, Union

from opentelemetry import metrics
from opentelemetry.metrics import CallbackOptions, Observation

from . import _idmint

#: The instrumentation scope: the package's name.
METER_NAME = __name__.partition(".")[0]

Source = Union[_idmint.Snowflake, _idmint.SegmentClient]

_lock = threading.Lock()
# Weak: a generator or client that is garbage-collected stops being observed.
_sources: weakref.WeakSet[Source] = weakref.WeakSet()
# The providers that have idmint's instruments, each once (a second set would double the values).
_providers: weakref.WeakSet[Any] = weakref.WeakSet()


def publish(*sources: Source, meter_provider: Any = None) -> None:
    """Observe ``sources`` (``Snowflake``s and ``SegmentClient``s) through the instruments of
    ``meter_provider`` (default: the global one, ``opentelemetry.metrics.get_meter_provider()``),
    registered on the first call for that provider."""
    provider = meter_provider if meter_provider is not None else metrics.get_meter_provider()
    # The core checks each source's type (TypeError otherwise) before anything is kept.
    _idmint.observe_all(list(sources))
    with _lock:
        _sources.update(sources)
        if provider not in _providers:
            _register(provider.get_meter(METER_NAME, _idmint.__version__))
            _providers.add(provider)


def unpublish(source: Source) -> None:
    """Stop observing ``source`` (closing it is enough for a ``Snowflake``)."""
    with _lock:
        _sources.discard(source)


def _register(meter: metrics.Meter) -> None:
    make = {
        "counter": meter.create_observable_counter,
        "gauge": meter.create_observable_gauge,
    }
    for name, instrument, unit, description, _attributes in _idmint.metric_definitions():
        make[instrument](name, callbacks=[_reader(name)], unit=unit, description=description)


def _reader(name: str) -> Any:
    def read(_options: CallbackOptions) -> Iterable[Observation]:
        with _lock:
            sources = list(_sources)
        return [
            Observation(value, attributes)
            for metric, value, attributes in _idmint.observe_all(sources)
            if metric == name
        ]

    return read
