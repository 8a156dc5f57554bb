"""OrderNumbers over a shared daily counter (counter=URL): a SQLite file needs no server."""

import re
import threading

import pytest

import idmint

# 2024-05-21T16:30:00Z, which is 2024-05-22 00:30 at +08:00
T = 1_716_309_000_000
TEMPLATE = idmint.Template("SO%Y%M%D%6S", tz="+08:00")


def test_two_order_numbers_on_one_sqlite_file_from_threads_never_repeat(tmp_path):
    url = f"sqlite:{tmp_path / 'orders.db'}"
    clock = idmint.ManualClock(T)
    a = idmint.OrderNumbers(TEMPLATE, counter=url, name="orders", step=10, clock=clock)
    b = idmint.OrderNumbers(TEMPLATE, counter=url, name="orders", step=10, clock=clock)
    assert a.counter is None
    results = [[] for _ in range(8)]

    def work(i):
        orders = a if i % 2 == 0 else b
        results[i].extend(orders.next() for _ in range(300))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [n for numbers in results for n in numbers]
    assert len(every) == 8 * 300
    assert len(set(every)) == len(every)
    assert all(re.fullmatch(r"SO20240522\d{6}", n) for n in every), every[:3]
    # another day starts again at 1, in its own tag
    clock.advance(86_400_000)
    assert a.next() == "SO20240523000001"


def test_a_day_past_the_sequence_width_overflows(tmp_path):
    url = f"sqlite:{tmp_path / 'orders.db'}"
    orders = idmint.OrderNumbers(
        idmint.Template("%Y%M%D%1S", tz="+08:00"), counter=url, step=1, clock=idmint.ManualClock(T)
    )
    assert [orders.next() for _ in range(9)] == [f"20240522{i}" for i in range(1, 10)]
    with pytest.raises(idmint.CounterOverflow, match="2024-05-22"):
        orders.next()


def test_the_default_name_is_shared_and_memory_url_is_this_process(tmp_path):
    url = f"sqlite:{tmp_path / 'orders.db'}"
    clock = idmint.ManualClock(T)
    a = idmint.OrderNumbers(TEMPLATE, counter=url, step=1, clock=clock)
    b = idmint.OrderNumbers(TEMPLATE, counter=url, name="orders", step=1, clock=clock)
    other = idmint.OrderNumbers(TEMPLATE, counter=url, name="invoices", step=1, clock=clock)
    first, second = a.next(), b.next()
    assert first == "SO20240522000001"
    # b counts on in the same tag (a may hold the next number already: never the same one)
    assert second > first and second.startswith("SO20240522")
    assert other.next() == "SO20240522000001"
    mem = idmint.OrderNumbers(TEMPLATE, counter="memory:", clock=clock)
    assert [mem.next(), mem.next()] == ["SO20240522000001", "SO20240522000002"]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"counter": "ftp://x"}, "counter"),
        ({"counter": "x"}, "counter"),
        ({"counter": "memory:", "step": 0}, "step"),
        ({"counter": "memory:", "step": -1}, "-1"),
        ({"name": "orders"}, "name"),
        ({"step": 10}, "step"),
        ({"counter": idmint.MemoryDailyCounter(), "name": "orders"}, "name"),
        # resuming is the store's business: a MemoryDailyCounter.starting_at is not a URL
        ({"counter": idmint.MemoryDailyCounter.starting_at(20240522, 5), "step": 10}, "step"),
    ],
)
def test_bad_counter_arguments_are_invalid_argument(kwargs, match):
    with pytest.raises(idmint.InvalidArgument, match=match) as info:
        idmint.OrderNumbers(TEMPLATE, **kwargs)
    assert isinstance(info.value, ValueError)


def test_a_bad_counter_name_is_invalid_tag():
    with pytest.raises(idmint.InvalidTag):
        idmint.OrderNumbers(TEMPLATE, counter="memory:", name="bad name")


def test_an_unreachable_store_is_store_unavailable():
    with pytest.raises(idmint.StoreUnavailable) as info:
        idmint.OrderNumbers(TEMPLATE, counter="redis://:secret@127.0.0.1:1")
    assert "secret" not in str(info.value)
