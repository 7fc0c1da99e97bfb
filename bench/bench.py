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
import urllib.parse
import urllib.request

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
        return (f"cold start -> `initialize` + `tools/list` replies (median of {self.runs})", value, "ms", ("<=", 3.0), base)

    def peak_rss(self):
        value = max(self.cold_rss) / 1024 if self.cold_rss else float("nan")
        _, idle = cold_start_once([self.binary], self.env, lines({"jsonrpc": "2.0", "id": 1, "method": "ping"}), 1)
        base = f"same binary answering one `ping`: {idle / 1024:.2f} MiB (process floor); Node reference server: 77 MiB"
        return ("peak RSS during the cold start runs (max)", value, "MiB", ("<=", 4.0), base)

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


    def weekly_demo(self):
        """The main job end to end: a fresh process answers a 7-vs-7-day weekly brief from the demo
        account (generate the account, four range queries with paging, decode, summarise, print)."""
        cmd = [self.binary, "--demo", "call", "withings_weekly_summary"]
        times = [_timed(cmd, self.env) for _ in range(self.runs)]
        floor = [_timed([self.binary, "--version"], self.env) for _ in range(self.runs)]
        base = f"`withings-mcp --version` (process floor) {median_ms(floor):.2f} ms; ratio {statistics.median(times) / statistics.median(floor):.1f}x"
        return (f"weekly summary on the demo account, end to end (median of {self.runs})", median_ms(times), "ms", ("<=", 5.0), base)

    def ten_years_setup(self):
        """Ten years of weigh-ins (20,000 measure groups, eight measures each, ~15 MB) served by a
        local fake Withings (Python's `json.loads` of the same body is timed beside each call)."""
        if hasattr(self, "ten"):
            return self.ten
        groups = 20_000
        body = _getmeas_body(groups)
        home = tempfile.mkdtemp(prefix="wmcp-bench-")
        os.makedirs(os.path.join(home, ".withings-mcp"), mode=0o700)
        tok = os.path.join(home, ".withings-mcp", "tokens.json")
        with open(tok, "w") as f:
            json.dump({"access_token": "bench", "refresh_token": "bench", "expires_at": 4_000_000_000,
                       "scope": "user.metrics,user.activity", "userid": "1", "token_type": "Bearer"}, f)
        os.chmod(tok, 0o600)
        runs = max(5, self.runs // 5)
        self.ten = (groups, body, home, runs)
        return self.ten

    def _ten_years_call(self, tool, args):
        """(median seconds, max peak RSS KiB, median ratio, median Python seconds) of `call TOOL`
        over the ten-year body. Python's `json.loads` of the body is timed right before each of
        our runs and the ratio is the median of the pairs' ratios: this machine's speed drifts
        by a third from one second to the next, and a baseline timed seconds apart from ours
        compared two different machines."""
        groups, body, home, runs = self.ten_years_setup()
        pairs = []
        with _FakeWithings(body) as url:
            env = dict(self.env, HOME=home, WITHINGS_API_URL=url, WITHINGS_CLIENT_ID="b", WITHINGS_CLIENT_SECRET="b",
                       WITHINGS_TZ="UTC", WITHINGS_MCP_NOW=str(BENCH_NOW))
            for _ in range(runs):
                t0 = time.perf_counter()
                json.loads(body)
                py = time.perf_counter() - t0
                pairs.append((py, *_spawned([self.binary, "call", tool, "--json", args], env)))
        ratio = statistics.median(py / t for py, t, _ in pairs)
        return (statistics.median(t for _, t, _ in pairs), max(r for _, _, r in pairs), ratio,
                statistics.median(py for py, _, _ in pairs))

    def ten_years_trend(self):
        """`withings_trends weight` over ten years: fetch, decode, three trend analyses (weight,
        fat and lean mass for the recomposition), answer. The target is relative: at least 3x
        faster than Python only parsing the same body."""
        groups, body, _, runs = self.ten_years_setup()
        t, rss, ratio, py = self._ten_years_call("withings_trends", '{"metric":"weight","after":"2016-01-01"}')
        self.ten_rss = rss
        base = (f"Python `json.loads` of the same {len(body) / 1e6:.1f} MB body alone, timed before each of ours: "
                f"{py * 1000:.0f} ms; ours {t * 1000:.0f} ms (medians; the ratio is the pairs' median)")
        return (f"10 years of weigh-ins ({groups:,} groups): fetch, decode, trend, vs Python (median of {runs})", ratio, "x faster", (">=", 3.0), base)

    def ten_years_rss(self):
        """Peak RSS of the ten-year trend call against the size of the body it reads."""
        _, body, _, _ = self.ten_years_setup()
        mib = self.ten_rss / 1024
        base = f"body {len(body) / 2**20:.1f} MiB; peak {mib:.1f} MiB (`/usr/bin/time -f %M`)"
        return ("peak RSS of that call, in body sizes", self.ten_rss * 1024 / len(body), "x body", ("<=", 3.0), base)

    def ten_years_list(self):
        """Listing 1,000 records of the same ten-year answer (the fake sends all 20,000 at once)."""
        groups, body, _, runs = self.ten_years_setup()
        t, _, ratio, py = self._ten_years_call("withings_list_body_measures", '{"after":"2016-01-01","limit":1000}')
        base = (f"Python `json.loads` of the same body alone, timed before each of ours: {py * 1000:.0f} ms; "
                f"ours {t * 1000:.0f} ms (medians; the ratio is the pairs' median)")
        return (f"list 1,000 of those records, vs Python (median of {runs})", ratio, "x faster", (">=", 3.0), base)

    def _export(self, years):
        """(median seconds, max peak RSS KiB, records, requests) of `export --only measures,activity`
        over `years` of daily weigh-ins and activity from a local fake, default range (so the
        first record is searched for too)."""
        _, _, home, _ = self.ten_years_setup()
        days = round(years * 365)
        fake = _DailyFake(days)
        runs = max(3, self.runs // 8)
        out = tempfile.mkdtemp(prefix="wmcp-bench-export-")
        with _FakeWithings(fake.answer) as url:
            env = dict(self.env, HOME=home, WITHINGS_API_URL=url, WITHINGS_CLIENT_ID="b", WITHINGS_CLIENT_SECRET="b",
                       WITHINGS_TZ="UTC", WITHINGS_MCP_NOW=str(BENCH_NOW))
            cmd = [self.binary, "export", "--only", "measures,activity", "--out", out]
            samples = [_spawned(cmd, env) for _ in range(runs)]
            summary = json.loads(subprocess.run(cmd, env=env, capture_output=True, check=True).stdout)
        records = sum(f["records"] for f in summary["files"])
        if records != 2 * days:
            raise RuntimeError(f"export of {years} years: {records} records, expected {2 * days}")
        return statistics.median(t for t, _ in samples), max(r for _, r in samples), records, summary["requests"]

    def export_ten_years(self):
        """Ten years of daily weigh-ins and activity exported as CSV, against five years in the
        same run: the time should double with the data, the memory stay where it is."""
        t10, rss10, n10, q10 = self._export(10)
        t5, rss5, n5, q5 = self._export(5)
        self.export_rss = (rss10, rss5)
        base = (f"5 years ({n5:,} records, {q5} requests): {t5:.2f} s; ratio {t10 / t5:.1f}x the time for "
                f"{n10 / n5:.1f}x the records ({q10} requests)")
        return (f"export 10 years of weigh-ins and activity ({n10:,} records) to CSV from a local fake", t10, "s", ("<=", 10.0), base)

    def export_rss_flat(self):
        """Peak RSS of those exports: flat in the size of the range."""
        rss10, rss5 = self.export_rss
        base = f"5 years: {rss5 / 1024:.1f} MiB; ratio {rss10 / rss5:.2f}x for twice the range (`/usr/bin/time -f %M`)"
        return ("peak RSS of the 10-year export", rss10 / 1024, "MiB", ("<=", 32.0), base)

    def intraday_week(self):
        """7 days of intraday samples (one a minute: 10,080 in 7 requests of 24 hours) from a local
        fake, fetched and decoded by `withings_list_intraday` with `fields: ["rmssd"]`: the fake
        sends every field regardless, so every sample is decoded, and the answer keeps the 336 HRV
        samples (the tool's `limit` is 1,000). The baseline is Python doing the same job: the same
        7 requests to the same fake (urllib, a connection each, as ours) and `json.loads` of each
        body; a week is 1.7 MB, so the fake's own handling of a request weighs as much as the
        decoding, and a baseline without it (`json.loads` alone, shown beside) said nothing about
        ours. Also `export` writing all 10,080 as JSON lines, all timed in this run."""
        _, _, home, _ = self.ten_years_setup()
        fake = _IntradayFake()
        runs = max(5, self.runs // 5)
        out = tempfile.mkdtemp(prefix="wmcp-bench-intraday-")
        week = ["--after", "2026-11-09", "--before", "2026-11-15"]
        with _FakeWithings(fake.answer) as url:
            env = dict(self.env, HOME=home, WITHINGS_API_URL=url, WITHINGS_CLIENT_ID="b", WITHINGS_CLIENT_SECRET="b",
                       WITHINGS_TZ="UTC", WITHINGS_MCP_NOW=str(BENCH_NOW))
            args = json.dumps({"after": week[1], "before": week[3], "fields": ["rmssd"], "limit": 1000})
            call = [self.binary, "call", "withings_list_intraday", "--json", args]
            answer = json.loads(subprocess.run(call, env=env, capture_output=True, check=True).stdout)
            t = statistics.median(_spawned(call, env)[0] for _ in range(runs))
            export = [self.binary, "export", "--only", "intraday", "--format", "jsonl", *week, "--out", out]
            t_export = statistics.median(_spawned(export, env)[0] for _ in range(runs))
            summary = json.loads(subprocess.run(export, env=env, capture_output=True, check=True).stdout)
            fetched, direct = [], urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy
            for _ in range(runs):
                t0 = time.perf_counter()
                for lo, hi in fake.served:
                    form = urllib.parse.urlencode({"action": "getintradayactivity", "startdate": lo, "enddate": hi})
                    with direct.open(f"{url}/v2/measure", data=form.encode()) as r:
                        json.loads(r.read())
                fetched.append(time.perf_counter() - t0)
            fetched = statistics.median(fetched)
        bodies = list(fake.served.values())
        samples = sum(fake.samples.values())
        exported = sum(f["records"] for f in summary["files"])
        if len(bodies) != 7 or answer["count"] != samples // 30 or answer["has_more"] or exported != samples:
            raise RuntimeError(f"intraday week: {len(bodies)} bodies, {answer['count']} listed, {exported} exported")
        py = []
        for _ in range(runs):
            t0 = time.perf_counter()
            for body in bodies:
                json.loads(body)
            py.append(time.perf_counter() - t0)
        py = statistics.median(py)
        size = sum(len(b) for b in bodies)
        base = (f"Python fetching the same 7 bodies ({size / 1e6:.1f} MB) from the same fake (urllib) and `json.loads` "
                f"of each: {fetched * 1000:.0f} ms (`json.loads` alone {py * 1000:.0f} ms); ours, a fresh process and 7 "
                f"requests: {t * 1000:.0f} ms; `export` writing all {samples:,} as JSON lines: {t_export * 1000:.0f} ms")
        return (f"7 days of intraday ({samples:,} samples): fetch and decode, vs Python (median of {runs})",
                fetched / t, "x faster", (">=", 1.0), base)

    def chart_400_days(self):
        """A 400-day weight chart of the demo account as PNG (rasterize, filter, deflate) beside
        the same chart as SVG, each a fresh process writing to stdout."""
        env = dict(self.env, WITHINGS_MCP_NOW=str(BENCH_NOW), WITHINGS_TZ="UTC")
        args = [self.binary, "--demo", "chart", "weight", "--after", "2025-10-14", "--out", "-", "--format"]
        png = [_timed(args + ["png"], env) for _ in range(self.runs)]
        svg = [_timed(args + ["svg"], env) for _ in range(self.runs)]
        size = len(subprocess.run(args + ["png"], env=env, capture_output=True, check=True).stdout)
        svg_size = len(subprocess.run(args + ["svg"], env=env, capture_output=True, check=True).stdout)
        base = (f"same chart as SVG {median_ms(svg):.2f} ms ({svg_size:,} bytes); PNG {size:,} bytes for 800x400 "
                f"(960,000 raw); ratio {statistics.median(png) / statistics.median(svg):.1f}x")
        return (f"400-day weight chart as PNG, end to end (median of {self.runs})", median_ms(png), "ms", ("<=", 100.0), base)


BENCH_NOW = 1_795_000_000  # 2026-11-17, fixed so that the ten-year window is stable


def _spawned(cmd, env):
    """Runs `cmd` to completion; (seconds, peak RSS KiB). The child is started by /usr/bin/time,
    itself small, which reports the child's own peak: a child forked (or vforked) straight from
    this interpreter is charged this interpreter's peak too, since Linux carries the pre-exec
    peak across exec."""
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.decode()[-300:]}")
    return elapsed, int(r.stderr.decode().strip().splitlines()[-1])


def _timed(cmd, env):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.decode()[:300]}")
    return time.perf_counter() - t0


def _getmeas_body(n):
    grps = []
    for i in range(n):
        t = BENCH_NOW - (n - i) * 15_780  # ~4 readings a day over 10 years
        w = 80_000 + (i * 37) % 1500
        grps.append({"grpid": i + 1, "attrib": 0, "date": t, "created": t, "modified": t, "category": 1,
                     "deviceid": "d", "hash_deviceid": "h", "timezone": "Europe/Paris",
                     "model": "Body Cardio", "modelid": 6, "comment": None,
                     "measures": [{"value": w, "type": 1, "unit": -3, "algo": 0, "fm": 1},
                                  {"value": 2200 + i % 50, "type": 6, "unit": -2, "algo": 0, "fm": 1},
                                  {"value": 17600, "type": 8, "unit": -3, "algo": 0, "fm": 1},
                                  {"value": 60400, "type": 5, "unit": -3, "algo": 0, "fm": 1},
                                  {"value": 5700, "type": 76, "unit": -2, "algo": 0, "fm": 1},
                                  {"value": 4150, "type": 77, "unit": -2, "algo": 0, "fm": 1},
                                  {"value": 310, "type": 88, "unit": -2, "algo": 0, "fm": 1},
                                  {"value": 62, "type": 11, "unit": 0, "algo": 0, "fm": 1}]})
    return json.dumps({"status": 0, "body": {"updatetime": BENCH_NOW, "timezone": "Europe/Paris",
                                              "measuregrps": grps, "more": 0, "offset": 0}}).encode()


class _DailyFake:
    """`days` of daily weigh-ins (eight measures) and activity before BENCH_NOW, answered by range
    (getmeas epochs, getactivity dates) in pages of 300, as Withings pages."""

    PAGE = 300

    def __init__(self, days):
        import datetime
        first = BENCH_NOW - days * 86_400
        self.groups, self.days = [], []
        for i in range(days):
            t = first + i * 86_400 + 7 * 3600
            w = 80_000 + (i * 37) % 1500
            self.groups.append({"grpid": i + 1, "attrib": 0, "date": t, "created": t, "modified": t, "category": 1,
                                "deviceid": "d", "hash_deviceid": "h", "timezone": "Europe/Paris", "model": "Body Cardio",
                                "modelid": 6, "measures": [{"value": w, "type": 1, "unit": -3}, {"value": 2200 + i % 50, "type": 6, "unit": -2},
                                                           {"value": 17600, "type": 8, "unit": -3}, {"value": 60400, "type": 5, "unit": -3},
                                                           {"value": 5700, "type": 76, "unit": -2}, {"value": 4150, "type": 77, "unit": -2},
                                                           {"value": 310, "type": 88, "unit": -2}, {"value": 62, "type": 11, "unit": 0}]})
            day = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d")
            self.days.append({"date": day, "timezone": "Europe/Paris", "brand": 1, "is_tracker": True, "model": "ScanWatch",
                              "modelid": 93, "steps": 6000 + i * 11 % 5000, "distance": 4200.5 + i % 100, "elevation": 7,
                              "soft": 3600, "moderate": 1500, "intense": 600, "active": 2100, "calories": 410.5,
                              "totalcalories": 2290.25, "hr_average": 71, "hr_min": 52, "hr_max": 148, "modified": t})

    def answer(self, form):
        if form.get("action") == "getmeas":
            lo, hi = int(form["startdate"]), int(form["enddate"])
            rows, key = [g for g in self.groups if lo <= g["date"] <= hi], "measuregrps"
        else:
            lo, hi = form["startdateymd"], form["enddateymd"]
            rows, key = [d for d in self.days if lo <= d["date"] <= hi], "activities"
        off = int(form.get("offset", 0))
        more = off + self.PAGE < len(rows)
        body = {key: rows[off:off + self.PAGE], "more": more, "offset": off + self.PAGE if more else 0, "timezone": "Europe/Paris"}
        return json.dumps({"status": 0, "body": body}).encode()


class _IntradayFake:
    """getintradayactivity as a ScanWatch fills it: a sample a minute through each 24-hour window
    asked for, heart rate in each, steps, calories, distance and duration in most, SpO2 every 15
    minutes and HRV every 30. Keeps each body served, by window, for the Python baseline."""

    def __init__(self):
        self.served, self.samples = {}, {}

    def answer(self, form):
        lo, hi = int(form["startdate"]), int(form["enddate"])
        if (lo, hi) in self.served:  # built once: the fake's own time is not ours to count
            return self.served[(lo, hi)]
        series = {}
        for t in range(lo - lo % 60, hi + 1, 60):
            m = t // 60
            s = {"deviceid": "dd00dd00dd00dd00dd00dd00dd00dd00dd00dd00", "model": "ScanWatch", "model_id": 93,
                 "heart_rate": 55 + m * 7 % 40}
            if m % 3:
                steps = m * 13 % 90
                s.update(steps=steps, calories=round(steps * 0.041, 2), distance=round(steps * 0.74, 1), duration=60)
            if m % 15 == 0:
                s["spo2_auto"] = 95 + m % 4
            if m % 30 == 0:
                s.update(rmssd=30 + m % 25, sdnn1=40 + m % 25)
            series[str(t)] = s
        body = json.dumps({"status": 0, "body": {"series": series}}).encode()
        self.served[(lo, hi)], self.samples[(lo, hi)] = body, len(series)
        return body


class _FakeWithings:
    """A loopback HTTP server that answers every POST with `answer(form)`, or with the same body."""

    def __init__(self, answer):
        import http.server
        import urllib.parse

        reply = answer if callable(answer) else (lambda form: answer)

        class H(http.server.BaseHTTPRequestHandler):
            def do_POST(h):
                raw = h.rfile.read(int(h.headers.get("Content-Length", 0))).decode()
                body = reply(dict(urllib.parse.parse_qsl(raw)))
                h.send_response(200)
                h.send_header("Content-Type", "application/json")
                h.send_header("Content-Length", str(len(body)))
                h.end_headers()
                h.wfile.write(body)

            def log_message(h, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *exc):
        self.server.shutdown()


ROWS = [Bench.cold_start, Bench.peak_rss, Bench.throughput, Bench.weekly_demo, Bench.ten_years_trend, Bench.ten_years_rss,
        Bench.ten_years_list, Bench.intraday_week, Bench.chart_400_days, Bench.export_ten_years, Bench.export_rss_flat]


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
    if unit in ("msg/s", "groups/s"):
        return f"{v:,.0f}"
    return f"{v:.2f}"


def section(binary, runs, pings, failed):
    b = Bench(os.path.abspath(binary), runs, pings)
    size = os.path.getsize(b.binary)
    rows = []
    for row in ROWS:
        what, value, unit, (op, target), base = row(b)
        ok = value <= target if op == "<=" else value >= target
        if not ok:
            failed.append(f"{binary}: {what}")
        rows.append(f"| {what} | {fmt(value, unit)} {unit} | {op} {fmt(target, unit)} {unit} | {'yes' if ok else 'NO'} | {base} |")
    table = "\n".join(["| measure | result | target | met | baseline |", "|---|---|---|---|---|", *rows])
    return f"## `{binary}` ({size:,} bytes)\n\n{table}\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="+")
    ap.add_argument("--out")
    ap.add_argument("--runs", type=int, default=25)
    ap.add_argument("--pings", type=int, default=100_000)
    a = ap.parse_args()
    failed = []
    sections = [section(b, a.runs, a.pings, failed) for b in a.binary]
    text = (f"# Benchmarks\n\nMeasured by `make bench` (`bench/bench.py`): the static musl binary that `make static` and "
            f"`make dist` ship, and the glibc release build used for development. Timings are medians of repeated "
            f"runs; each row names a baseline measured in the same run.\n\nMachine: {machine()}, "
            f"{time.strftime('%Y-%m-%d')}.\n\n" + "\n".join(sections))
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    if failed:
        print("targets missed:", "; ".join(failed))


if __name__ == "__main__":
    main()
