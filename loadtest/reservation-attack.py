#!/usr/bin/env python3
"""The reservation attack of issue 22, bounded and on loopback only, against a SigningServer already running.

--attackers connections each send the headers of a POST declaring --declared bytes with ?strategy=--attack-strategy
and then nothing; each one cut off (408, or closed) is opened again at once, as an attacker would. Meanwhile --signs
ordinary signs of --payload (a canonical envelope, e.g. 1 MB from src/Signing.Payload) go out from --workers threads,
--pause seconds apart. Prints how many signs got each status and the attackers' bytes sent, then stops everything.

  loadtest/reservation-attack.py --url http://127.0.0.1:7071 --payload payload-3000.json
      [--attackers 55] [--declared 33554432] [--attack-strategy string] [--signs 90] [--workers 3] [--pause 0.75]
      [--max-seconds 60]

Needs only python3. Exits non-zero when the URL is not loopback or the run exceeded --max-seconds.
"""
import argparse
import collections
import http.client
import socket
import sys
import threading
import time
import urllib.parse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--payload", required=True)
    parser.add_argument("--attackers", type=int, default=55)
    parser.add_argument("--declared", type=int, default=32 * 1024 * 1024)
    parser.add_argument("--attack-strategy", default="string")
    parser.add_argument("--sign-strategy", default="recyclable")
    parser.add_argument("--signs", type=int, default=90)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--pause", type=float, default=0.75)
    parser.add_argument("--max-seconds", type=float, default=60)
    args = parser.parse_args()

    url = urllib.parse.urlsplit(args.url)
    if url.hostname not in ("127.0.0.1", "localhost", "::1"):
        sys.exit("loopback only: " + args.url)
    if not (0 < args.attackers <= 2000 and 0 < args.signs <= 1000 and 0 < args.workers <= 16):
        sys.exit("bounds: attackers 1-2000, signs 1-1000, workers 1-16")
    body = open(args.payload, "rb").read()
    deadline = time.monotonic() + args.max_seconds
    stop = threading.Event()
    sent = [0]
    reopened = [0]
    lock = threading.Lock()
    head = (f"POST /api/sign?strategy={args.attack_strategy} HTTP/1.1\r\nHost: {url.netloc}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {args.declared}\r\n\r\n").encode()

    def attacker():
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                with socket.create_connection((url.hostname, url.port), timeout=2) as s:
                    s.sendall(head)
                    with lock:
                        sent[0] += len(head)
                    s.settimeout(0.5)
                    while not stop.is_set() and time.monotonic() < deadline:
                        try:
                            if not s.recv(65536):
                                break
                        except socket.timeout:
                            continue
                        except OSError:
                            break
            except OSError:
                time.sleep(0.1)
            with lock:
                reopened[0] += 1

    statuses = collections.Counter()
    remaining = [args.signs]

    def signer():
        while time.monotonic() < deadline:
            with lock:
                if remaining[0] == 0:
                    return
                remaining[0] -= 1
            try:
                c = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
                c.request("POST", f"/api/sign?strategy={args.sign_strategy}", body, {"Content-Type": "application/json"})
                r = c.getresponse()
                r.read()
                status = r.status
                c.close()
            except OSError as e:
                status = type(e).__name__
            with lock:
                statuses[status] += 1
            time.sleep(args.pause)

    attackers = [threading.Thread(target=attacker, daemon=True) for _ in range(args.attackers)]
    for t in attackers:
        t.start()
    time.sleep(1)
    started = time.monotonic()
    signers = [threading.Thread(target=signer, daemon=True) for _ in range(args.workers)]
    for t in signers:
        t.start()
    for t in signers:
        t.join(max(0, deadline - time.monotonic()))
    elapsed = time.monotonic() - started
    stop.set()
    for t in attackers:
        t.join(2)
    ok = statuses.get(200, 0)
    print(f"signs: {ok} of {args.signs} succeeded in {elapsed:.1f} s; statuses {dict(sorted(statuses.items(), key=str))}")
    print(f"attackers: {args.attackers} connections declaring {args.declared} B ({args.attack_strategy}), "
          f"{sent[0]} B of headers sent, {reopened[0] - args.attackers if reopened[0] > args.attackers else 0} re-opened")
    if time.monotonic() > deadline:
        sys.exit("ran past --max-seconds")


if __name__ == "__main__":
    main()
