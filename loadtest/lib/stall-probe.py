#!/usr/bin/env python3
"""What a client that stops sending its body sees: one sign request over a raw socket on 127.0.0.1.

  python3 loadtest/lib/stall-probe.py --port PORT --declared BYTES [--sent BYTES] [--wait SECONDS]

Sends the headers of POST /api/sign?strategy=transcode with Content-Length --declared, then the first --sent bytes of
a body ('{"widgets":[' and spaces), then nothing, and prints how many seconds passed before the first bytes of an
answer, its status line and its Content-Type and Content-Length (or that none came within --wait). The server's log
says what the endpoint decided and when; this says what reached the client, which behind the Functions host (or its
stand-in, tests/SigningFunctions.TestHost) is the host's doing. Only 127.0.0.1: the host is not a parameter.
"""

import argparse
import socket
import time

PREFIX = b'{"widgets":['


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--declared", type=int, required=True)
    parser.add_argument("--sent", type=int, default=0)
    parser.add_argument("--wait", type=float, default=60)
    args = parser.parse_args()

    body = (PREFIX + b" " * max(0, args.sent - len(PREFIX)))[: args.sent]
    head = (
        b"POST /api/sign?strategy=transcode HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + b"Content-Length: %d\r\n\r\n" % args.declared
    )
    with socket.create_connection(("127.0.0.1", args.port)) as connection:
        connection.settimeout(args.wait)
        start = time.monotonic()
        connection.sendall(head + body)
        try:
            answer = connection.recv(4096)
        except (TimeoutError, socket.timeout):
            print("%.1f s: no answer" % (time.monotonic() - start))
            return
        elapsed = time.monotonic() - start
    lines = answer.split(b"\r\n")
    described = [line.decode() for line in lines[1:] if line.lower().startswith((b"content-type:", b"content-length:"))]
    print("%.1f s: %s%s" % (elapsed, lines[0].decode() if answer else "closed, no answer", "".join("; " + d for d in described)))


if __name__ == "__main__":
    main()
