"""The differential suite's JSON scenarios as a benchmark: every request of
every scenario sent through the official Python client (the oracle's
generated gRPC clients, one request at a time, each waiting for its answer)
to Google's emulator and to `tabletop serve`, in the same sitting, and the
time each server took in total compared.

    tests/differential/run.sh --bench [--rounds 3] [-k NAME]

Each server is started once and serves every scenario (each scenario in an
instance of its own, as the suite runs them), so what is timed is the
requests, not starting processes. Requests are parsed into protobuf before
the clock starts. The rounds alternate (emulator, serve, emulator, ...) so
that a busy machine slows both alike; the report gives each round and the
best. Steps that bring the emulator down (`crashes_emulator`) are left out
on both sides, as are the scenarios that use the instance admin API
(logical views), which `tabletop serve` does not serve.
"""

import json
import os
import time

from emulator import Emulator
import oracle


def substitute(obj, old, new):
    text = json.dumps(obj)
    text = text.replace('"%s"' % old, '"%s"' % new).replace('"%s/' % old, '"%s/' % new)
    return json.loads(text)


def workload(scenarios, tag):
    """The (method, request message) of every scenario's steps, each
    scenario in its own instance (`tag` keeps rounds apart)."""
    out = []
    for index, sc in enumerate(scenarios):
        instance = "projects/p/instances/%s%03d" % (tag, index)
        for step in sc["steps"]:
            if step.get("crashes_emulator"):
                continue
            body = substitute(step["request"], "projects/p/instances/i", instance)
            out.append((step["method"], oracle.Oracle.parse(step["method"], body)))
    return out


def cpu_seconds(pid):
    """The CPU time (user and system) a process has used, from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(server, requests):
    """Seconds to send every request through the client to `server`, the
    CPU seconds the server spent on them, and how many answered an error
    (the same on both sides where they agree)."""
    client = oracle.Oracle(server.addr)
    try:
        cpu0 = cpu_seconds(server.pid)
        t0 = time.perf_counter()
        errors = sum("error" in client.send(method, req) for method, req in requests)
        return time.perf_counter() - t0, cpu_seconds(server.pid) - cpu0, errors
    finally:
        client.close()


def run(scenarios, tabletop, rounds):
    """Times the scenarios on both servers; prints and answers the report:
    per round (requests, emulator seconds, serve seconds, emulator CPU
    seconds, serve CPU seconds)."""
    with Emulator() as emu, Emulator([tabletop, "serve"]) as serve:
        results = []
        for r in range(rounds):
            requests = workload(scenarios, "b%dx" % r)
            emu_secs, emu_cpu, emu_errors = timed(emu, requests)
            serve_secs, serve_cpu, serve_errors = timed(serve, requests)
            results.append((len(requests), emu_secs, serve_secs, emu_cpu, serve_cpu))
            print("round %d: %d requests: emulator %.2f s (CPU %.2f s), tabletop serve %.2f s "
                  "(CPU %.2f s): %.1fx; answered with an error: %d / %d"
                  % (r + 1, len(requests), emu_secs, emu_cpu, serve_secs, serve_cpu,
                     emu_secs / serve_secs, emu_errors, serve_errors), flush=True)
        emu_rss, serve_rss = emu.peak_rss_bytes(), serve.peak_rss_bytes()
    best_emu = min(r[1] for r in results)
    best_serve = min(r[2] for r in results)
    print("best of %d: emulator %.2f s, tabletop serve %.2f s: %.1fx; server CPU (sum) %.2f s / %.2f s; "
          "peak memory %.0f MB / %.0f MB"
          % (rounds, best_emu, best_serve, best_emu / best_serve, sum(r[3] for r in results),
             sum(r[4] for r in results), emu_rss / 1e6, serve_rss / 1e6))
    return results
