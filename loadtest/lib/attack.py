#!/usr/bin/env python3
"""Cheap attacks on a SigningServer on loopback, for loadtest/memory.sh --attack (run by it, not on its own).

  python3 loadtest/lib/attack.py --port PORT --kind headers|reserve|bodies|trickle|steady|bombs|idle [--connections 5000]
                                 [--seconds 40] [--trickle 1] [--reopen-delay 1] [--ramp 1000] [--body-limit 33554432]
                                 [--body-file FILE] [--burst 1048576] [--source 127.0.0.2]

headers: each connection starts a sign request and sends one more short header line every --trickle seconds, never
         ending the headers (Slowloris); when the server cuts it, it is opened again after --reopen-delay seconds.
reserve: each connection sends a whole set of headers declaring a body of --body-limit bytes with ?strategy=string,
         the costliest strategy, and then nothing; when the server answers or cuts it, it is opened again. Every fifth
         connection declares less (half the limit, a quarter, … down to 1/128, in turn), so that what the large ones
         leave of a budget is taken too: the largest declarations alone leave slivers that an ordinary request fits.
bodies:  each connection sends a whole set of headers declaring a body of --body-limit bytes and then the first --burst
         bytes of --body-file at once (as fast as the socket takes them), and then nothing; when the server answers or
         cuts it, it is opened again. Many connections at once fill whatever the server reads ahead of its endpoint.
trickle: as bodies, and then one more byte of the body every --trickle seconds, so the body never falls silent for
         long: what a client can hold for the price of a byte a second.
steady:  as bodies with a --burst of 8 MiB by default (the body followed by spaces), and then 16 KiB of spaces every
         --trickle seconds (0.5 by default), so the body is never silent for a beat: what a client can hold for the
         price of 32 KiB a second.
bombs:   each connection sends a whole request with ?strategy=utf8 whose gzip body inflates to an envelope of no
         widgets padded with spaces to --body-limit bytes (about a thousandth of that on the wire), and sends it
         again --reopen-delay seconds after the server answers or cuts it: processor time for a few packets.
idle:    each connection is opened and sends nothing at all.

Connections are opened at --ramp per second at most, so that the listen queue, not the attack, is not what is
measured. Everything ends after --seconds; then one JSON object goes to standard output: connections opened, cut by
the server, refused or failed at connect, the most open at once, bytes sent, and the status lines the server sent.
Only 127.0.0.1: the host is not a parameter. --source connects from another loopback address, so that the attackers
are a client address of their own beside an honest client at 127.0.0.1.
"""

import argparse
import asyncio
import gzip
import json
import time
from collections import Counter

HOST = "127.0.0.1"
# What a steady holder sends each --trickle seconds: the 16 KiB that keeps a body from being silent.
STEADY_DRIP = 16 * 1024


class Tally:
    """What the attackers saw, added up across connections."""

    def __init__(self):
        self.opened = 0
        self.connect_failures = 0
        self.cut = 0
        self.open_now = 0
        self.peak_open = 0
        self.bytes_sent = 0
        self.answers = Counter()

    def as_dict(self):
        return {
            "opened": self.opened,
            "connectFailures": self.connect_failures,
            "cutByServer": self.cut,
            "peakOpen": self.peak_open,
            "bytesSent": self.bytes_sent,
            "answers": dict(sorted(self.answers.items())),
        }


def declared_length(body_limit, serial):
    """The Content-Length a reserving connection declares: the limit, or for every fifth a fraction of it."""
    if serial % 5 != 4:
        return body_limit
    return max(1, body_limit >> (1 + (serial // 5) % 7))


def first_request_bytes(kind, port, args, serial):
    body_limit = args.body_limit
    if kind == "headers":
        return f"POST /api/sign HTTP/1.1\r\nHost: {HOST}:{port}\r\nX-Trickle-{serial}: 0\r\n".encode("ascii")
    if kind == "reserve":
        return (
            f"POST /api/sign?strategy=string HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {declared_length(body_limit, serial)}\r\n\r\n"
        ).encode("ascii")
    if kind == "bombs":
        head = (
            f"POST /api/sign?strategy=utf8 HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Encoding: gzip\r\nContent-Length: {len(args.bomb)}\r\n\r\n"
        ).encode("ascii")
        return head + args.bomb
    if kind in ("bodies", "trickle", "steady"):
        head = (
            f"POST /api/sign HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {body_limit}\r\n\r\n"
        ).encode("ascii")
        return head + args.burst_bytes
    return b""


async def one_connection(kind, port, args, tally, deadline, serial):
    """Holds one connection open as the attack says, and opens it again each time the server ends it."""
    while time.monotonic() < deadline:
        try:
            source = (args.source, 0) if args.source else None
            reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port, local_addr=source), timeout=5)
        except (OSError, asyncio.TimeoutError):
            tally.connect_failures += 1
            await asyncio.sleep(args.reopen_delay)
            continue

        tally.opened += 1
        tally.open_now += 1
        tally.peak_open = max(tally.peak_open, tally.open_now)
        try:
            await hold(kind, port, args, tally, deadline, serial, reader, writer)
        finally:
            tally.open_now -= 1
            writer.close()
            try:
                await writer.wait_closed()
            except OSError:
                pass

        if time.monotonic() < deadline:
            await asyncio.sleep(args.reopen_delay)


async def hold(kind, port, args, tally, deadline, serial, reader, writer):
    """Sends what the attack sends until the server answers or cuts the connection, or the attack ends."""
    line = 0
    dripped = len(args.burst_bytes)
    try:
        first = first_request_bytes(kind, port, args, serial)
        if first:
            writer.write(first)
            await writer.drain()
            tally.bytes_sent += len(first)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                data = await asyncio.wait_for(reader.read(4096), timeout=min(args.trickle, left))
            except asyncio.TimeoutError:
                more = b""
                if kind == "headers":
                    line += 1
                    more = f"X-Trickle-{line}: {line}\r\n".encode("ascii")
                elif kind == "trickle" and dripped < len(args.body_bytes):
                    more = args.body_bytes[dripped : dripped + 1]
                    dripped += 1
                elif kind == "steady" and dripped + STEADY_DRIP < args.body_limit:
                    more = b" " * STEADY_DRIP
                    dripped += STEADY_DRIP
                if more:
                    writer.write(more)
                    await writer.drain()
                    tally.bytes_sent += len(more)
                continue
            if data.startswith(b"HTTP/"):
                tally.answers[data.split(b"\r\n", 1)[0].decode("ascii", "replace")] += 1
            else:
                tally.answers["closed without an answer"] += 1
            tally.cut += 1
            return
    except OSError:
        # Reset by the server (a connection past its cap, or one it aborted): the same as a cut.
        tally.answers["reset"] += 1
        tally.cut += 1


async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--kind", choices=["headers", "reserve", "bodies", "trickle", "steady", "bombs", "idle"], required=True)
    parser.add_argument("--connections", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--trickle", type=float)
    parser.add_argument("--reopen-delay", type=float, default=1.0)
    parser.add_argument("--ramp", type=float, default=1000)
    parser.add_argument("--body-limit", type=int, default=33554432)
    parser.add_argument("--body-file")
    parser.add_argument("--burst", type=int)
    parser.add_argument("--source")
    args = parser.parse_args()
    steady = args.kind == "steady"
    args.trickle = args.trickle if args.trickle is not None else 0.5 if steady else 1.0
    args.burst = args.burst if args.burst is not None else 8 * 1048576 if steady else 1048576
    if not (1 <= args.connections <= 20000 and 1 <= args.seconds <= 300 and args.ramp > 0):
        parser.error("--connections must be 1 to 20000, --seconds 1 to 300, --ramp positive")
    args.burst_bytes = args.body_bytes = b""
    if args.kind in ("bodies", "trickle", "steady"):
        if not args.body_file or not (1 <= args.burst < args.body_limit) or args.trickle <= 0:
            parser.error("--kind bodies, trickle and steady need --body-file, a --burst of at least 1 and less than --body-limit, and a positive --trickle")
        with open(args.body_file, "rb") as body:
            args.body_bytes = body.read()
        # A steady holder's burst runs on past the body in spaces, which JSON allows between tokens.
        args.burst_bytes = (args.body_bytes + b" " * max(0, args.burst - len(args.body_bytes)) if steady else args.body_bytes)[: args.burst]

    if args.kind == "bombs":
        start, end = b'{"widgets":[', b"]}"
        args.bomb = gzip.compress(start + b" " * (args.body_limit - len(start) - len(end)) + end, 9)

    tally = Tally()
    started = time.monotonic()
    deadline = started + args.seconds

    async def staggered(serial):
        await asyncio.sleep(serial / args.ramp)
        await one_connection(args.kind, args.port, args, tally, deadline, serial)

    await asyncio.gather(*(staggered(i) for i in range(args.connections)))
    result = {"kind": args.kind, "connections": args.connections, "seconds": round(time.monotonic() - started, 1)}
    result.update(tally.as_dict())
    print(json.dumps(result))


if __name__ == "__main__":
    asyncio.run(main())
