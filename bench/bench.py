"""make bench: start-up, memory and throughput of the release binary (Python stdlib only).

Usage: bench.py BINARY [--out BENCHMARKS.md] [--runs 25] [--pings 100000]

Each row is one function in ROWS returning (what, value, unit, target, baseline text); add a row by
adding a function. Peak RSS is the measured child's own VmHWM, read just before it exits.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import tempfile
import threading
import time

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def lines(*msgs) -> bytes:
    return b"".join(json.dumps(m, separators=(",", ":")).encode() + b"\n" for m in msgs)


def spawn(cmd, env):
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)


def vm_hwm_kib(p):
    """Peak RSS of the live child, in KiB. Read from /proc before it exits: wait4()'s ru_maxrss
    would also count the forking Python parent's pages, which Linux carries across exec."""
    try:
        with open(f"/proc/{p.pid}/status") as f:
            return next((int(l.split()[1]) for l in f if l.startswith("VmHWM:")), 0)
    except OSError:
        return 0


def cold_start_once(cmd, env, payload, replies):
    """Spawn -> write payload -> read `replies` lines; returns (seconds, peak RSS KiB)."""
    t0 = time.perf_counter()
    p = spawn(cmd, env)
    p.stdin.write(payload)
    p.stdin.flush()
    for _ in range(replies):
        if not p.stdout.readline():
            raise RuntimeError(f"{cmd[0]} closed stdout early")
    elapsed = time.perf_counter() - t0
    rss = vm_hwm_kib(p)
    p.stdin.close()
    p.stdout.read()
    p.wait()
    return elapsed, rss


def median_ms(samples):
    return statistics.median(samples) * 1000


class Bench:
    def __init__(self, binary, runs, pings):
        self.binary = binary
        self.runs = runs
        self.pings = pings
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tempfile.mkdtemp(prefix="wmcp-bench-")}
        self.cold_rss = []

    def cold_start(self):
        payload = lines(INIT, INITIALIZED, LIST)
        times = []
        for _ in range(self.runs):
            t, rss = cold_start_once([self.binary], self.env, payload, 2)
            times.append(t)
            self.cold_rss.append(rss)
        floor = [cold_start_once(["cat"], self.env, payload, 2)[0] for _ in range(self.runs)]
        true_ms = []
        for _ in range(self.runs):
            t0 = time.perf_counter()
            subprocess.run(["/bin/true"], env=self.env, check=True)
            true_ms.append(time.perf_counter() - t0)
        value = median_ms(times)
        base = f"`cat` echo {median_ms(floor):.2f} ms, `/bin/true` spawn {median_ms(true_ms):.2f} ms"
        return (f"cold start -> `initialize` + `tools/list` replies (median of {self.runs})", value, "ms", ("<=", 5.0), base)

    def peak_rss(self):
        value = max(self.cold_rss) / 1024 if self.cold_rss else float("nan")
        return ("peak RSS during the cold start runs (max)", value, "MiB", ("<=", 4.0), "Node reference server: 77 MiB")

    def throughput(self):
        payload = lines(INIT, INITIALIZED) + b"".join(
            b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % (i + 10) for i in range(self.pings))
        rate, rss = self._pump([self.binary], payload, self.pings + 1)
        floor, _ = self._pump(["cat"], payload, self.pings + 2)
        self.throughput_rss = rss
        base = f"`cat` {floor / 1000:,.0f}k lines/s; peak RSS {rss / 1024:.1f} MiB"
        return (f"throughput: {self.pings:,} `ping` lines through one process", rate, "msg/s", (">=", 200_000), base)

    def _pump(self, cmd, payload, expect):
        t0 = time.perf_counter()
        p = spawn(cmd, self.env)

        writer = threading.Thread(target=lambda: (p.stdin.write(payload), p.stdin.flush()))
        writer.start()
        count = 0
        while count < expect and p.stdout.readline():
            count += 1
        elapsed = time.perf_counter() - t0
        writer.join()
        rss = vm_hwm_kib(p)
        p.stdin.close()
        p.stdout.read()
        p.wait()
        if count != expect:
            raise RuntimeError(f"{cmd[0]}: {count} replies, expected {expect}")
        return self.pings / elapsed, rss


ROWS = [Bench.cold_start, Bench.peak_rss, Bench.throughput]


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), cpu)
    except OSError:
        pass
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip() or "unknown"
    return f"{os.cpu_count()} CPUs ({cpu}), Linux {platform.release()}, {rustc}"


def fmt(v, unit):
    if unit == "msg/s":
        return f"{v:,.0f}"
    return f"{v:.2f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--out")
    ap.add_argument("--runs", type=int, default=25)
    ap.add_argument("--pings", type=int, default=100_000)
    a = ap.parse_args()
    b = Bench(os.path.abspath(a.binary), a.runs, a.pings)
    size = os.path.getsize(b.binary)
    rows, failed = [], []
    for row in ROWS:
        what, value, unit, (op, target), base = row(b)
        ok = value <= target if op == "<=" else value >= target
        if not ok:
            failed.append(what)
        rows.append(f"| {what} | {fmt(value, unit)} {unit} | {op} {fmt(target, unit)} {unit} | {'yes' if ok else 'NO'} | {base} |")
    table = "\n".join(["| measure | result | target | met | baseline |", "|---|---|---|---|---|", *rows])
    text = (f"# Benchmarks\n\nRelease binary `{os.path.basename(b.binary)}` ({size / 1024:.0f} KiB), measured by `make bench` "
            f"(`bench/bench.py`).\n\nMachine: {machine()}, {time.strftime('%Y-%m-%d')}.\n\n{table}\n")
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    if failed:
        print("targets missed:", "; ".join(failed))


if __name__ == "__main__":
    main()
