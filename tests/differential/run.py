#!/usr/bin/env python3
"""The differential suite: the same cbt commands and the same Bigtable REST
JSON requests, run against Google's Bigtable emulator (through the real
`cbt` and the official Python client) and against Tabletop (`tabletop cbt`,
`tabletop json`), compared after normalisation.

Usage (normally through run.sh, which provides the Python client and the
release binary):

    python3 tests/differential/run.py --tabletop target/release/tabletop
        [-k SUBSTRING] [--cbt-only | --json-only | --export-only | --serve | --bench] [--show] [-j N]

-k runs only scenarios whose name contains SUBSTRING; --show prints both
sides' answers for every step (handy when writing a `diverges` entry).
--serve runs the JSON scenarios with Tabletop's side served by `tabletop
serve` (a fresh one per scenario) through the same official Python client
the emulator's side uses, instead of by `tabletop json`. --bench times the
JSON scenarios through that client against the emulator and `tabletop
serve` in the same sitting (see bench_scenarios.py).

Prints one line per failing scenario with the differences, then
`N passed, M failed` and exits 1 if anything failed. See README.md for the
normalisation and the divergence format.
"""

import argparse
import calendar
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

CBT = os.environ.get("CBT", "/usr/bin/cbt")
BASH = shutil.which("bash") or "/bin/bash"

# Lines real cbt writes to stderr that depend on the machine, not on the
# command: the gcloud credential notice.
NOISE = re.compile(r"^-creds flag unset, will use gcloud credential\n", re.M)
# Go's log package puts "2006/01/02 15:04:05 " before each entry.
LOG_PREFIX = re.compile(r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d ", re.M)
# A cell timestamp as cbt prints it.
CELL_TIME = re.compile(r"(\d{4,})/(\d\d)/(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{6})")
DAY = 24 * 3600


def decode(b):
    return b.decode("utf-8", errors="backslashreplace")


def mask_cbt_times(text, now):
    def repl(m):
        y, mo, d, h, mi, s, _ = (int(x) for x in m.groups())
        try:
            t = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
        except (OverflowError, ValueError):
            return m.group(0)
        return "<now>" if abs(t - now) <= DAY else m.group(0)

    return CELL_TIME.sub(repl, text)


def normalise_cbt(stdout, stderr, code, instance, now):
    out = mask_cbt_times(decode(stdout), now)
    err = LOG_PREFIX.sub("", decode(stderr))
    err = NOISE.sub("", err)
    err = mask_cbt_times(err, now)
    # Each scenario has its own instance; the data records say "i".
    out = out.replace("/instances/%s/" % instance, "/instances/i/")
    err = err.replace("/instances/%s/" % instance, "/instances/i/")
    return {"stdout": out, "stderr": err, "exit": code}


def full_outcome(o):
    return {"stdout": o.get("stdout", ""), "stderr": o.get("stderr", ""), "exit": o.get("exit", 0)}


class Result:
    def __init__(self, kind, name):
        self.kind = kind
        self.name = name
        self.problems = []
        self.shown = []

    @property
    def ok(self):
        return not self.problems


def show_value(v):
    return json.dumps(v, indent=None, sort_keys=True, ensure_ascii=False)


# ------------------------------------------------------------------- cbt


def run_cbt_scenario(index, sc, ctx):
    if ctx.serve:
        from emulator import Emulator

        command = [ctx.tabletop, "serve"] + (["--emulator-parity"] if ctx.parity else [])
        with Emulator(command) as server:
            return run_cbt_steps(index, sc, ctx, server.addr)
    return run_cbt_steps(index, sc, ctx, None)


def run_cbt_steps(index, sc, ctx, serve_addr):
    """The scenario's steps through the real cbt on the emulator, and
    through `tabletop cbt` or, with `serve_addr`, the real cbt on that
    `tabletop serve`."""
    res = Result("cbt", sc["name"])
    instance = "c%03d" % index
    work = tempfile.mkdtemp(prefix="diff-cbt-", dir=ctx.tmp)
    state = os.path.join(work, "tabletop.state")
    for name, data in sc.get("files", {}).items():
        with open(os.path.join(work, name), "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
    env = {
        # No gcloud on PATH: cbt would run `gcloud config config-helper`
        # (most of a second) before every command; it is not needed for
        # the emulator.
        "PATH": ctx.empty_dir,
        "HOME": work,
        "TZ": "UTC",
        "LC_ALL": "C.UTF-8",
        "BIGTABLE_EMULATOR_HOST": ctx.addr,
    }
    for n, st in enumerate(sc["steps"]):
        cmd = st["cmd"]
        now = time.time()
        real = subprocess.run(
            [BASH, "-c", "exec -a cbt %s -project p -instance %s %s" % (CBT, instance, cmd)],
            cwd=work, env=env, capture_output=True, timeout=60,
        )
        flag = " --emulator-parity" if ctx.parity else ""
        if serve_addr:
            ours = subprocess.run(
                [BASH, "-c", "exec -a cbt %s -project p -instance %s %s" % (CBT, instance, cmd)],
                cwd=work, env=dict(env, BIGTABLE_EMULATOR_HOST=serve_addr),
                capture_output=True, timeout=60,
            )
        else:
            ours = subprocess.run(
                [BASH, "-c", "exec %s cbt%s --state %s -project p -instance %s %s"
                 % (shlex.quote(ctx.tabletop), flag, shlex.quote(state), instance, cmd)],
                cwd=work, env=env, capture_output=True, timeout=60,
            )
        emu = normalise_cbt(real.stdout, real.stderr, real.returncode, instance, now)
        tab = normalise_cbt(ours.stdout, ours.stderr, ours.returncode, instance, now)
        where = "step %d `%s`" % (n + 1, cmd)
        if ctx.show:
            res.shown.append("%s\n  emulator: %s\n  tabletop: %s" % (where, show_value(emu), show_value(tab)))
        check(res, where, emu, tab, st, ctx.parity, bool(serve_addr))
    shutil.rmtree(work, ignore_errors=True)
    return res


def check(res, where, emu, tab, st, parity=False, served=False):
    """Compares one step: equal answers, or the recorded divergence. With
    `parity` (Tabletop run with --emulator-parity) Tabletop must give the
    emulator's answer at a divergence too, unless the divergence says the
    switch does not cover it (`parity`: {"reason", "answer"}): then
    Tabletop must give that answer (production's when none is given).
    `served` (the real cbt on `tabletop serve`): where a divergence records
    a `serve` answer, Tabletop must give that one instead of `production`:
    production's code, in the words of Tabletop's JSON protocol, which
    `tabletop serve` answers with (a field path first), where production's
    own words are not known."""
    d = st.get("diverges")
    if d is None:
        if emu != tab:
            res.problems.append(
                "%s: the emulator and Tabletop differ\n    emulator: %s\n    tabletop: %s"
                % (where, show_value(emu), show_value(tab))
            )
        elif "expect" in st and tab != st["expect"]:
            res.problems.append(
                "%s: both sides differ from the expected answer\n    expected: %s\n    got:      %s"
                % (where, show_value(st["expect"]), show_value(tab))
            )
        return
    want_emu, want_prod = d["emulator"], d["production"]
    if served and "serve" in d:
        want_prod = d["serve"]
    if "stdout" in want_emu or "stderr" in want_emu or "exit" in want_emu:
        want_emu, want_prod = full_outcome(want_emu), full_outcome(want_prod)
    if want_emu == want_prod:
        res.problems.append("%s: a divergence must record two different answers" % where)
    if parity:
        check_parity(res, where, tab, d, want_emu, want_prod)
    elif tab != want_prod:
        res.problems.append(
            "%s: Tabletop does not give the production answer (%s)\n    production: %s\n    tabletop:   %s"
            % (where, d["reason"], show_value(want_prod), show_value(tab))
        )
    if emu != want_emu:
        if emu == want_prod:
            what = "the emulator now gives the production answer: remove the divergence"
        else:
            what = "the emulator's answer is not the recorded one"
        res.problems.append(
            "%s: %s (%s)\n    recorded: %s\n    emulator: %s"
            % (where, what, d["reason"], show_value(want_emu), show_value(emu))
        )


def check_parity(res, where, tab, d, want_emu, want_prod):
    """With --emulator-parity: Tabletop gives the emulator's answer, or, for
    a difference the switch does not cover, the answer recorded for it."""
    uncovered = d.get("parity")
    if uncovered is None:
        if tab != want_emu:
            res.problems.append(
                "%s: with --emulator-parity Tabletop does not give the emulator's answer (%s)\n"
                "    emulator: %s\n    tabletop: %s" % (where, d["reason"], show_value(want_emu), show_value(tab))
            )
        return
    want = uncovered.get("answer", want_prod)
    if "stdout" in want or "stderr" in want or "exit" in want:
        want = full_outcome(want)
    if tab != want:
        res.problems.append(
            "%s: not covered by --emulator-parity (%s), so Tabletop must give the recorded answer\n"
            "    recorded: %s\n    tabletop: %s" % (where, uncovered["reason"], show_value(want), show_value(tab))
        )


# ------------------------------------------------------------------ JSON


def substitute(obj, old, new):
    text = json.dumps(obj)
    text = text.replace('"%s"' % old, '"%s"' % new).replace('"%s/' % old, '"%s/' % new)
    return json.loads(text)


def run_json_scenario(index, sc, ctx):
    from oracle import normalise, run_tabletop_json

    res = Result("json", sc["name"])
    instance = "projects/p/instances/j%03d" % index
    steps = sc["steps"]
    import json_scenarios
    refused = [s["method"] for s in steps if s["method"] in json_scenarios.NOT_COMPARABLE]
    if refused:
        res.problems.append("sends %s, which json_scenarios.NOT_COMPARABLE says cannot be compared"
                            % ", ".join(refused))
        return res
    requests = [substitute(s["request"], "projects/p/instances/i", instance) for s in steps]
    work = tempfile.mkdtemp(prefix="diff-json-", dir=ctx.tmp)
    state = os.path.join(work, "tabletop.state")
    now = int(time.time() * 1_000_000)
    emu_answers = []
    for n, (s, r) in enumerate(zip(steps, requests)):
        if s.get("crashes_emulator"):
            before = [(b["method"], br) for b, br in zip(steps[:n], requests[:n])
                      if not b.get("crashes_emulator")]
            emu_answers.append(probe_crash(s["method"], r, before))
        else:
            emu_answers.append(ctx.oracle.call(s["method"], r))
    if ctx.serve:
        tab_answers = run_through_serve(ctx, steps, requests)
    else:
        tab_answers = run_tabletop_json(
            ctx.tabletop, state, [{"method": s["method"], "request": r} for s, r in zip(steps, requests)],
            extra_args=["--emulator-parity"] if ctx.parity else [],
        )
    back = {instance + "/": "projects/p/instances/i/", '"%s"' % instance: '"projects/p/instances/i"'}
    for n, (st, e, t) in enumerate(zip(steps, emu_answers, tab_answers)):
        where = "step %d %s" % (n + 1, st["method"])
        try:
            emu = normalise(st["method"], e, now, back)
        except Exception as ex:  # a malformed answer is a failure, not a crash
            emu = {"unparseable": repr(ex), "raw": e}
        try:
            tab = normalise(st["method"], t, now, back)
        except Exception as ex:
            tab = {"unparseable": repr(ex), "raw": t}
        if ctx.show:
            res.shown.append(
                "%s\n  emulator: %s\n  tabletop: %s%s"
                % (where, show_value(emu), show_value(tab),
                   "\n  messages: %r / %r" % (e.get("message"), t.get("message")) if "error" in e or "error" in t else "")
            )
        check(res, where, emu, tab, st, ctx.parity)
    shutil.rmtree(work, ignore_errors=True)
    return res


def probe_crash(method, request, before=()):
    """Sends a request that brings the emulator down to an emulator of its
    own (the shared one must live on), after the scenario's earlier
    requests `before` (so it holds what the shared one holds):
    {"error": "EMULATOR_CRASHED"} when the process died of it, else its
    answer (then the step fails as a divergence that no longer holds)."""
    import oracle
    from emulator import Emulator

    with Emulator() as emu:
        client = oracle.Oracle(emu.addr)
        try:
            for m, r in before:
                client.call(m, r)
            answer = client.call(method, request)
        finally:
            client.close()
        try:
            code = emu.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return answer
    return {"error": "EMULATOR_CRASHED", "message": "exit status %d" % code}


def run_through_serve(ctx, steps, requests):
    """The answers of a fresh `tabletop serve` (one per scenario, so each
    starts empty, as `tabletop json` on a new state does) through the client."""
    import oracle
    from emulator import Emulator

    command = [ctx.tabletop, "serve"] + (["--emulator-parity"] if ctx.parity else [])
    with Emulator(command) as server:
        client = oracle.Oracle(server.addr)
        try:
            return [client.call(s["method"], r) for s, r in zip(steps, requests)]
        finally:
            client.close()


# ------------------------------------------------------------------ main


class Ctx:
    pass


def uses_logical_views(sc):
    """Whether a scenario calls the logical view admin methods (the
    instance admin API's), on which Google's emulator crashes, so there is
    nothing to time it against."""
    return any("LogicalView" in step.get("method", "") for step in sc.get("steps", []))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tabletop", default=os.environ.get("TABLETOP", "target/release/tabletop"))
    ap.add_argument("-k", dest="filter", default="")
    ap.add_argument("--cbt-only", action="store_true")
    ap.add_argument("--json-only", action="store_true")
    ap.add_argument("--export-only", action="store_true")
    ap.add_argument("--serve", action="store_true")
    ap.add_argument("--parity", action="store_true",
                    help="run Tabletop with --emulator-parity: it must give the emulator's answer "
                         "at every divergence the switch covers (cbt and JSON scenarios only)")
    ap.add_argument("--bench", action="store_true",
                    help="time the JSON scenarios through the Python client against the emulator and "
                         "`tabletop serve` in the same sitting (bench_scenarios.py); compares nothing")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of --bench")
    ap.add_argument("--calls", type=int, default=0,
                    help="with --bench, also time this many trivial calls per server and round "
                         "(SampleRowKeys, CheckAndMutateRow): the per-call latency")
    ap.add_argument("--show", action="store_true")
    ap.add_argument("-j", dest="jobs", type=int, default=2)
    args = ap.parse_args(argv)

    try:
        import oracle  # noqa: F401  (needs the Python client)
    except ImportError as e:
        print("differential: the official Python client is missing (%s); run tests/differential/run.sh" % e)
        print("0 passed, 1 failed")
        return 1
    from emulator import Emulator, stop_on_signals
    import cbt_scenarios
    import export_scenarios
    import json_scenarios

    tabletop = os.path.abspath(args.tabletop)
    if not os.access(tabletop, os.X_OK):
        print("differential: no tabletop binary at %s (cargo build --release -p tabletop-cli)" % tabletop)
        print("0 passed, 1 failed")
        return 1

    if args.bench:
        import bench_scenarios

        stop_on_signals()
        scenarios = [sc for sc in json_scenarios.SCENARIOS
                     if args.filter in sc["name"] and not uses_logical_views(sc)]
        bench_scenarios.run(scenarios, tabletop, max(1, args.rounds), max(0, args.calls))
        return 0
    if args.serve and not args.cbt_only:
        args.json_only = True
    jobs = []
    if not args.json_only and not args.export_only:
        jobs += [("cbt", i, sc) for i, sc in enumerate(cbt_scenarios.SCENARIOS) if args.filter in sc["name"]]
    if not args.cbt_only and not args.export_only:
        jobs += [("json", i, sc) for i, sc in enumerate(json_scenarios.SCENARIOS) if args.filter in sc["name"]]
        for method in sorted(json_scenarios.NOT_COMPARABLE):
            print("differential: %s is not compared (json_scenarios.NOT_COMPARABLE says why)" % method)
    if not args.cbt_only and not args.json_only and not args.parity:
        jobs += [("export", i, sc) for i, sc in enumerate(export_scenarios.SCENARIOS) if args.filter in sc["name"]]

    stop_on_signals()
    started = time.time()
    ctx = Ctx()
    ctx.tabletop = tabletop
    ctx.show = args.show
    ctx.serve = args.serve
    ctx.parity = args.parity
    # What the export round trips (export_scenarios.py) share with this file.
    ctx.make_result = Result
    ctx.normalise_cbt = normalise_cbt
    ctx.show_value = show_value
    ctx.decode = decode
    ctx.cbt = CBT
    ctx.bash = BASH
    ctx.tmp = tempfile.mkdtemp(prefix="tabletop-differential-")
    ctx.empty_dir = os.path.join(ctx.tmp, "empty-path")
    os.mkdir(ctx.empty_dir)
    results = []
    emu = None
    try:
        emu = Emulator()
        ctx.addr = emu.addr
        ctx.oracle = oracle.Oracle(emu.addr)

        def run_one(job):
            kind, i, sc = job
            try:
                if kind == "cbt":
                    return run_cbt_scenario(i, sc, ctx)
                if kind == "export":
                    return export_scenarios.run_export_scenario(i, sc, ctx)
                return run_json_scenario(i, sc, ctx)
            except Exception:
                r = Result(kind, sc["name"])
                r.problems.append("crashed:\n" + traceback.format_exc())
                return r

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for r in pool.map(run_one, jobs):
                results.append(r)
                if r.shown:
                    print("== %s: %s" % (r.kind, r.name))
                    for s in r.shown:
                        print(s)
                if not r.ok:
                    print("FAILED %s: %s" % (r.kind, r.name))
                    for p in r.problems:
                        print("  " + p)
        ctx.oracle.close()
    finally:
        if emu is not None:
            emu.stop()
        shutil.rmtree(ctx.tmp, ignore_errors=True)

    passed = sum(r.ok for r in results)
    failed = len(results) - passed
    by_kind = {}
    for r in results:
        by_kind.setdefault(r.kind, [0, 0])[0 if r.ok else 1] += 1
    detail = ", ".join("%s %d/%d" % (k, v[0], v[0] + v[1]) for k, v in sorted(by_kind.items()))
    print("differential: %s scenarios passed (%.1f s)" % (detail, time.time() - started))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
