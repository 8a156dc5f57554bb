"""A TCP relay that delays every byte by a set time each way, for tests/partition.sh.

    python3 tests/partition_delay.py LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_FILE

Listens on 127.0.0.1:LISTEN_PORT (inside a holder's network namespace) and relays each
connection to TARGET_HOST:TARGET_PORT. DELAY_FILE holds the one-way delay in ms (missing or
empty: 0), read every 50 ms, so the test slows and heals a holder's link without breaking its
connections. What `tc qdisc … netem delay` does, for kernels without the sch_netem module
(this one has none); bytes keep their order, each leaves at its arrival + the delay in force.
"""

import asyncio
import sys
import time

LISTEN, HOST, PORT, DELAY_FILE = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
delay_s = 0.0


async def watch_delay():
    global delay_s
    while True:
        try:
            with open(DELAY_FILE) as f:
                text = f.read().strip()
            delay_s = int(text) / 1000 if text else 0.0
        except FileNotFoundError:
            delay_s = 0.0
        await asyncio.sleep(0.05)


async def pipe(reader, writer):
    queue = asyncio.Queue()

    async def send():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        writer.close()

    sender = asyncio.create_task(send())
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            await queue.put((time.monotonic() + delay_s, data))
    except (ConnectionError, OSError):
        pass
    await queue.put((0, None))
    try:
        await sender
    except (ConnectionError, OSError):
        pass


async def relay(client_reader, client_writer):
    try:
        server_reader, server_writer = await asyncio.open_connection(HOST, PORT)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(
        pipe(client_reader, server_writer), pipe(server_reader, client_writer), return_exceptions=True
    )


async def main():
    asyncio.create_task(watch_delay())
    server = await asyncio.start_server(relay, "127.0.0.1", LISTEN)
    async with server:
        await server.serve_forever()


asyncio.run(main())
