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

Each round also gives the client's own CPU time (this process, all its
threads): the part of the wall time no server can take away. `--calls N`
then times N trivial calls per server and round (SampleRowKeys on an
empty table, CheckAndMutateRow on a missing row), alternating, and prints
each call's median wall time with the client's and the server's CPU per
call.
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
    CPU seconds the server spent on them, the CPU seconds the client (this
    process, all its threads) spent, and how many answered an error (the
    same on both sides where they agree)."""
    client = oracle.Oracle(server.addr)
    try:
        cpu0 = cpu_seconds(server.pid)
        own0 = time.process_time()
        t0 = time.perf_counter()
        errors = sum("error" in client.send(method, req) for method, req in requests)
        secs = time.perf_counter() - t0
        return secs, cpu_seconds(server.pid) - cpu0, time.process_time() - own0, errors
    finally:
        client.close()


# The trivial calls `per_call` times: (name, method, request body).
TRIVIAL = [
    ("SampleRowKeys, empty table", "sampleRowKeys",
     {"tableName": "projects/p/instances/calls/tables/t"}),
    ("CheckAndMutateRow, no row", "checkAndMutateRow",
     {"tableName": "projects/p/instances/calls/tables/t", "rowKey": "cg==",
      "trueMutations": [{"deleteFromRow": {}}]}),
]


def per_call(servers, calls, rounds):
    """The median wall time of one trivial call (see TRIVIAL) through the
    client, per server, best of `rounds` alternating rounds of `calls`
    calls, with the client's and the server's CPU per call: what a call
    costs when the server has nothing to do."""
    best = {}
    for server in servers:
        c = oracle.Oracle(server.addr)
        c.call("createTable", {"parent": "projects/p/instances/calls", "tableId": "t",
                               "table": {"columnFamilies": {"cf": {}}}})
        c.close()
    for _ in range(rounds):
        for label, method, body in TRIVIAL:
            req = oracle.Oracle.parse(method, body)
            for server in servers:
                c = oracle.Oracle(server.addr)
                c.send(method, req)
                times = []
                cpu0, own0 = cpu_seconds(server.pid), time.process_time()
                for _ in range(calls):
                    t0 = time.perf_counter()
                    c.send(method, req)
                    times.append(time.perf_counter() - t0)
                server_cpu = (cpu_seconds(server.pid) - cpu0) / calls
                client_cpu = (time.process_time() - own0) / calls
                c.close()
                times.sort()
                row = (times[len(times) // 2], client_cpu, server_cpu)
                key = (label, server.label)
                if key not in best or row[0] < best[key][0]:
                    best[key] = row
    for (label, name), (median, client_cpu, server_cpu) in sorted(best.items()):
        print("per call: %s, %s: median %.3f ms, client CPU %.3f ms, server CPU %.3f ms"
              % (label, name, median * 1e3, client_cpu * 1e3, server_cpu * 1e3), flush=True)
    return best


def run(scenarios, tabletop, rounds, calls=0):
    """Times the scenarios on both servers; prints and answers the report:
    per round (requests, emulator seconds, serve seconds, emulator CPU
    seconds, serve CPU seconds)."""
    with Emulator() as emu, Emulator([tabletop, "serve"]) as serve:
        emu.label, serve.label = "emulator", "tabletop serve"
        results = []
        for r in range(rounds):
            requests = workload(scenarios, "b%dx" % r)
            emu_secs, emu_cpu, emu_own, emu_errors = timed(emu, requests)
            serve_secs, serve_cpu, serve_own, serve_errors = timed(serve, requests)
            results.append((len(requests), emu_secs, serve_secs, emu_cpu, serve_cpu))
            print("round %d: %d requests: emulator %.2f s (CPU %.2f s, client CPU %.2f s), "
                  "tabletop serve %.2f s (CPU %.2f s, client CPU %.2f s): %.1fx; "
                  "answered with an error: %d / %d"
                  % (r + 1, len(requests), emu_secs, emu_cpu, emu_own, serve_secs, serve_cpu,
                     serve_own, emu_secs / serve_secs, emu_errors, serve_errors), flush=True)
        if calls:
            per_call([emu, serve], calls, rounds)
        emu_rss, serve_rss = emu.peak_rss_bytes(), serve.peak_rss_bytes()
    best_emu = min(r[1] for r in results)
    best_serve = min(r[2] for r in results)
    print("best of %d: emulator %.2f s, tabletop serve %.2f s: %.1fx; server CPU (sum) %.2f s / %.2f s; "
          "peak memory %.0f MB / %.0f MB"
          % (rounds, best_emu, best_serve, best_emu / best_serve, sum(r[3] for r in results),
             sum(r[4] for r in results), emu_rss / 1e6, serve_rss / 1e6))
    return results
