"""Sends through `fcm-bridge gateway` against a plain producer of the same bodies, in one run on
one broker (scripts/benchmark.sh gateway):

- throughput: wrk over CONNECTIONS keep-alive HTTPS connections, POSTing one v1 send with a
  bearer token, against librdkafka's rdkafka_performance producing bodies of the same size with
  the gateway's producer settings (idempotent, acks=all, linger 1 ms): unbounded, and with at most
  CONNECTIONS records in flight, as the gateway has one per open request;
- latency at a fixed rate: wrk's connections paced to about RATE sends/s, its p50 and p99;
- the Admin SDK's send_each of 500 messages through the CONNECT proxy, as an app server calls it.

Prints one line per figure; the ratio is the gateway's sends/s over the plain producer's.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "OutsideTests"))
from gateway_stack import bridge_environment, make_certificates, make_service_account, start_gateway  # noqa: E402

PROJECT = "bench"
BODY = {"message": {"token": "bench-device-0001", "notification": {"title": "Hello", "body": "A benchmark send"},
                    "data": {"order": "1234", "kind": "bench"}}}


def access_token(account, api):
    """An access token from the gateway's token endpoint, as google-auth gets one."""
    from google.auth.transport.requests import Request
    from google.oauth2 import service_account
    credentials = service_account.Credentials.from_service_account_file(
        str(account), scopes=["https://www.googleapis.com/auth/firebase.messaging"])
    credentials._token_uri = f"{api}/token"
    credentials.refresh(Request())
    return credentials.token


def baseline(args, topic, size, in_flight=None):
    """rdkafka_performance's msgs/s producing `args.messages` records of `size` bytes with the
    gateway's producer settings; with `in_flight`, at most that many records unacknowledged, as
    the gateway has one per open request."""
    limit = ["-X", f"queue.buffering.max.messages={in_flight}"] if in_flight else []
    output = subprocess.run(
        [args.rdkafka_performance, "-P", "-q", "-t", topic, "-b", args.bootstrap, "-s", str(size),
         "-c", str(args.messages), "-X", "enable.idempotence=true", "-X", "acks=all", "-X", "linger.ms=1", *limit],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600).stdout
    rates = re.findall(r"(\d+) msgs/s", output)
    if not rates:
        raise SystemExit(f"rdkafka_performance printed no rate:\n{output}")
    return int(rates[-1])


def wrk(args, url, token, body_file, delay_ms=None, seconds=None):
    """wrk's sends/s and latency quantiles (ms) over `args.connections` connections; with
    `delay_ms`, each connection waits that long before each request (a paced load)."""
    script = Path(body_file).with_suffix(".lua")
    script.write_text(
        'wrk.method = "POST"\n'
        f'wrk.body = io.open("{body_file}"):read("*a")\n'
        'wrk.headers["Content-Type"] = "application/json"\n'
        f'wrk.headers["Authorization"] = "Bearer {token}"\n'
        + (f"function delay() return {delay_ms} end\n" if delay_ms is not None else ""))
    output = subprocess.run(
        [args.wrk, "-t", "2", "-c", str(args.connections), "-d", f"{seconds or args.seconds}s", "--latency", "-s",
         str(script), url],
        capture_output=True, text=True, env={**os.environ, "LD_LIBRARY_PATH": args.library_path}, timeout=600).stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if not rate or errors:
        raise SystemExit(f"wrk failed or got errors:\n{output}")
    units = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    quantiles = {q: float(v) * units[u] for q, v, u in re.findall(r"(\d+)%\s+([\d.]+)(us|ms|s)", output)}
    return float(rate.group(1)), quantiles


def at_rate(args, url, token, body_file):
    """Sends/s, p50 and p99 (ms) at about `args.rate` a second: wrk's connections each wait
    between requests, the wait set from a first, shorter run's latency."""
    target = 1000.0 * args.connections / args.rate
    achieved, _ = wrk(args, url, token, body_file, delay_ms=round(target), seconds=5)
    latency = 1000.0 * args.connections / achieved - round(target)
    rate, quantiles = wrk(args, url, token, body_file, delay_ms=max(0, round(target - latency)))
    return rate, quantiles["50"], quantiles["99"]


def send_each(account, proxy, ca, runs, dry_run=False):
    """Seconds the Admin SDK's send_each of 500 takes, through the proxy, per run; a dry run
    writes no records, which tells the SDK's own time from the gateway's."""
    os.environ.update({"HTTPS_PROXY": proxy, "REQUESTS_CA_BUNDLE": str(ca), "SSL_CERT_FILE": str(ca)})
    import firebase_admin
    from firebase_admin import credentials, messaging
    app = firebase_admin.initialize_app(credentials.Certificate(str(account)), name=uuid.uuid4().hex)
    messages = [messaging.Message(fid=f"bench-device-{n}", data={"n": str(n)}) for n in range(500)]
    messaging.send_each(messages[:10], app=app)  # the token, and the first connections
    times = []
    for _ in range(runs):
        started = time.monotonic()
        response = messaging.send_each(messages, dry_run=dry_run, app=app)
        times.append(time.monotonic() - started)
        assert response.success_count == 500, [r.exception for r in response.responses if not r.success][:3]
    return times


def main():
    parser = argparse.ArgumentParser()
    for name in ["bootstrap", "binary", "rdkafka-performance", "wrk", "library-path"]:
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--messages", type=int, default=500_000)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--rate", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    directory = Path(tempfile.mkdtemp(prefix="gateway-bench-"))
    prefix = f"bench-gateway-{uuid.uuid4().hex[:8]}"
    environment = bridge_environment(args.bootstrap, prefix)
    subprocess.run([args.binary, "topics", "--create"], env=environment, check=True, capture_output=True)
    certificates = make_certificates(directory)
    account, entry = make_service_account(directory, PROJECT)
    gateway, proxy = start_gateway(
        args.binary, environment, directory, certificates, [entry], "gateway", "--rate-limit", "0")
    try:
        api = gateway.api
        os.environ["REQUESTS_CA_BUNDLE"] = str(certificates["ca"])
        token = access_token(account, api)
        body_file = directory / "body.json"
        body_file.write_text(json.dumps(BODY))
        url = f"{api}/v1/projects/{PROJECT}/messages:send"
        size = body_file.stat().st_size
        for run in range(args.runs):
            plain = baseline(args, f"{prefix}.send", size)
            paced = baseline(args, f"{prefix}.send", size, in_flight=args.connections)
            sends, quantiles = wrk(args, url, token, str(body_file))
            print(f"run {run + 1}: gateway {sends:,.0f} sends/s over {args.connections} connections; plain producer of "
                  f"{size}-byte bodies {plain:,} msgs/s (ratio {sends / plain:.3f}), with {args.connections} in flight "
                  f"{paced:,} msgs/s (ratio {sends / paced:.2f}); p99 {quantiles['99']:.1f} ms", flush=True)
        rate, p50, p99 = at_rate(args, url, token, str(body_file))
        print(f"at {rate:,.0f} sends/s over {args.connections} connections: p50 {p50:.1f} ms, p99 {p99:.1f} ms",
              flush=True)
        times = send_each(account, proxy, certificates["ca"], args.runs)
        print("send_each of 500 through the proxy: " + ", ".join(f"{t:.2f} s" for t in times)
              + f" (median {statistics.median(times):.2f} s)", flush=True)
        dry = send_each(account, proxy, certificates["ca"], args.runs, dry_run=True)
        print("send_each of 500 as a dry run (no records): " + ", ".join(f"{t:.2f} s" for t in dry)
              + f" (median {statistics.median(dry):.2f} s)", flush=True)
    finally:
        gateway.stop()


if __name__ == "__main__":
    main()
