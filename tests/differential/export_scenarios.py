"""Export round trips: a design built in Tabletop (with cbt commands, REST
JSON requests, or translated from Oracle NoSQL DDL or a DynamoDB NoSQL
Workbench model) is exported with `tabletop export --format cbt`; the
script is run by bash with the real `cbt` against the emulator; then
`cbt ls`, `cbt ls TABLE` and `cbt read TABLE` must print on the emulator
exactly what `tabletop cbt` prints for the design (after the suite's
normalisation). The same script is also replayed into a fresh Tabletop
state (`tabletop cbt < script`), which must print the same again.

Each scenario gets its own instance (`-instance eNNN`). The exported
script names that instance itself (`tabletop export -project p -instance
eNNN`), so it runs unchanged. Designs here avoid GC rules that would
collect their own data (the emulator collects at random times).

When `terraform` is on the PATH, the Terraform export of every design must
also pass `terraform fmt -check` (it is valid, canonically formatted HCL).

When gcloud's own code is installed (/usr/lib/google-cloud-sdk/lib), the
gcloud export runs too, against a second instance (`gNNN`): its
`gcloud bigtable instances tables create` lines go to `gcloud_shim.py`,
which parses them with gcloud's functions and sends the request to the
emulator (the real gcloud speaks REST, which the emulator does not); its
cbt lines run the real cbt. `cbt ls` and `cbt ls TABLE` must then match
Tabletop's, compared by field (tabwriter's padding aside) and with one
difference allowed: a family gcloud creates without a GC rule sends no
`gcRule` at all, which `cbt ls` prints as `<never>`, where cbt's own
createtable sends an empty rule, printed as nothing. Both mean the family
keeps every cell.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from dsl import b64

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "core", "tests", "translate_fixtures")
GCLOUD_SDK = os.environ.get("GCLOUD_SDK_LIB", "/usr/lib/google-cloud-sdk/lib")

SCENARIOS = []


def scenario(name, setup, data="set", warnings=()):
    """setup: a list of ("cbt", command line) / ("json", request dict) /
    ("translate", [arguments after `tabletop translate`]) steps run against
    Tabletop's state. data: the --data mode of the export. warnings: parts
    of the export's expected warnings (none by default)."""
    SCENARIOS.append({"name": name, "setup": setup, "data": data, "warnings": list(warnings)})


def fixture(name):
    return os.path.join(FIXTURES, name)


def set_cell(family, qualifier, ts, value):
    return {"setCell": {"familyName": family, "columnQualifier": b64(qualifier),
                        "timestampMicros": str(ts), "value": b64(value)}}


# ------------------------------------------------------------- designs

MOBILE_SETUP = [
    ("cbt", "createtable mobile-time-series families=stats_summary:maxversions=2,stats_detail splits=phone#4c410523#20200502,phone#5c10102"),
    ("cbt", "set mobile-time-series phone#4c410523#20200501 stats_summary:connected_cell=1@1588291200000000 stats_summary:os_build=PQ2A.190405.003@1588291200000000"),
    ("cbt", "set mobile-time-series phone#4c410523#20200501 stats_summary:os_build=PQ2A.190405.004@1588294800000000"),
    ("cbt", "set mobile-time-series phone#4c410523#20200502 stats_summary:connected_wifi=0@1588377600000000 stats_detail:os_name=android@1588377600000000"),
    ("cbt", "set mobile-time-series phone#5c10102#20200501 'stats_detail:note=it'\"'\"'s a \"quoted\" value, with commas@1588291200000000'"),
    ("cbt", "createtable empty-table"),
    # A nested GC rule (gcloud cannot say it: the export adds a cbt
    # setgcpolicy line) and a split key with a comma (gcloud needs its ^;^
    # delimiter, cbt a quoted CSV field).
    ("cbt", "createtable nested 'families=n:(maxage=3650d&&maxversions=5)||maxversions=10,plain' 'splits=\"a,b\",c'"),
    ("cbt", "set nested a,b#1 n:x=1@1588291200000000 plain:y=2@1588291200000000"),
]

for data in ("set", "csv"):
    scenario("the seed's mobile time series (splits, GC rules, versions), data as %s" % data, MOBILE_SETUP, data=data)

BYTES_TABLE = "projects/p/instances/i/tables/bytes"
scenario("binary keys, values and qualifiers cbt set cannot carry (CSV fallback), aggregates", [
    ("cbt", "createtable bytes families=cf,counters:never:intsum,low:never:intmin"),
    ("cbt", "set bytes $'\\x01\\xff key' $'cf:q\\xfe=\\x80\\x81 v@1000' 'cf:space q=a b@2000'"),
    ("json", {"method": "mutateRow", "request": {"tableName": BYTES_TABLE, "rowKey": b64(b"r\x00nul"), "mutations": [
        set_cell("cf", b"q", 3000, b"in a key with NUL"),
    ]}}),
    ("json", {"method": "mutateRow", "request": {"tableName": BYTES_TABLE, "rowKey": b64(b"r2"), "mutations": [
        set_cell("cf", b"nul", 4000, b"a\x00b"),
        set_cell("cf", b"newline", 5000, b"line 1\nline 2"),
        set_cell("cf", b"k=v", 6000, b"qualifier with ="),
        set_cell("cf", b"", 7000, b"empty qualifier"),
        set_cell("cf", b"empty", 8000, b""),
    ]}}),
    ("cbt", "addtocell bytes r2 counters:views=5@0 counters:views=7@0 counters:hits=-3@1000"),
    ("cbt", "addtocell bytes r3 low:min=9@0 low:min=4@0"),
])

ORACLE = ["--from", "oracle", fixture("oracle_shop.ddl"), "--rows", fixture("oracle_shop_rows.json")]
scenario("Oracle NoSQL DDL with every type, TTL, IDENTITY (data as set)", [("translate", ORACLE)])
scenario("Oracle NoSQL DDL with every type, TTL, IDENTITY (data as csv)", [("translate", ORACLE)], data="csv")
scenario("Oracle NoSQL DDL with binary row keys (NUL bytes go through the CSV file)",
         [("translate", ORACLE + ["--key-encoding", "binary"])])

for model in ("product_catalog", "video_single_table", "invoices_adjacency"):
    for data in ("set", "csv"):
        scenario("DynamoDB %s, data as %s" % (model.replace("_", " "), data),
                 [("translate", ["--from", "dynamodb", fixture(model + ".json")])], data=data)


# -------------------------------------------------------------- running


def run_export_scenario(index, sc, ctx):
    res = ctx.make_result("export", sc["name"])
    instance = "e%03d" % index
    work = tempfile.mkdtemp(prefix="diff-export-", dir=ctx.tmp)
    state = os.path.join(work, "design.state")
    replay_state = os.path.join(work, "replay.state")
    out_dir = os.path.join(work, "export")
    bin_dir = os.path.join(work, "bin")
    os.mkdir(bin_dir)
    # Only cbt on the PATH: no gcloud (see the cbt scenarios).
    os.symlink(ctx.cbt, os.path.join(bin_dir, "cbt"))
    env = {
        "PATH": bin_dir,
        "HOME": work,
        "TZ": "UTC",
        "LC_ALL": "C.UTF-8",
        "BIGTABLE_EMULATOR_HOST": ctx.addr,
    }
    tt = [ctx.tabletop]
    names = ["-project", "p", "-instance", instance]

    def tabletop(args, stdin=b"", cwd=work):
        return subprocess.run(tt + args, input=stdin, cwd=cwd, env=env, capture_output=True, timeout=120)

    def fail(what, proc):
        res.problems.append("%s exited %d\n    stdout: %s\n    stderr: %s" % (
            what, proc.returncode, ctx.decode(proc.stdout)[-2000:], ctx.decode(proc.stderr)[-2000:]))

    try:
        for kind, step in sc["setup"]:
            if kind == "cbt":
                p = subprocess.run([ctx.bash, "-c", "exec %s cbt --state %s %s %s" % (
                    shlex.quote(ctx.tabletop), shlex.quote(state), " ".join(names), step)],
                    cwd=work, env=env, capture_output=True, timeout=60)
                what = "setup `tabletop cbt %s`" % step
            elif kind == "json":
                line = json.dumps(step).replace("/instances/i/", "/instances/%s/" % instance)
                p = tabletop(["json", "--state", state] + names, (line + "\n").encode())
                what = "setup `tabletop json` %s" % step["method"]
                if p.returncode == 0 and b'"error"' in p.stdout:
                    p = subprocess.CompletedProcess(p.args, 1, p.stdout, p.stderr)
            else:
                p = tabletop(["translate"] + step + ["--apply", "--state", state] + names)
                what = "setup `tabletop translate %s`" % " ".join(step)
            if p.returncode != 0:
                fail(what, p)
                return res

        p = tabletop(["export", "--state", state, "--format", "cbt", "--data", sc["data"], "--out", out_dir] + names)
        if p.returncode != 0:
            fail("tabletop export", p)
            return res
        warnings = [l for l in ctx.decode(p.stderr).splitlines() if not l.startswith("wrote ")]
        for want in sc["warnings"]:
            if not any(want in w for w in warnings):
                res.problems.append("the export did not warn about %r; its warnings: %s" % (want, warnings))
        if not sc["warnings"] and warnings:
            res.problems.append("unexpected export warnings: %s" % warnings)
        script = os.path.join(out_dir, instance + ".cbt")

        # The real cbt runs the script against the emulator.
        p = subprocess.run([ctx.bash, "-e", script], cwd=out_dir, env=env, capture_output=True, timeout=300)
        if p.returncode != 0:
            fail("bash -e %s (the exported script, run by the real cbt)" % os.path.basename(script), p)
            return res
        # ... and Tabletop replays the same script into a fresh state.
        with open(script, "rb") as f:
            p = tabletop(["cbt", "--state", replay_state] + names, f.read(), cwd=out_dir)
        if p.returncode != 0:
            fail("tabletop cbt < the exported script", p)

        listing = tabletop(["cbt", "--state", state] + names + ["ls"])
        tables = ctx.decode(listing.stdout).split()
        commands = ["ls"] + [c for t in tables for c in ("ls " + t, "read " + t)]
        for cmd in commands:
            now = time.time()
            real = subprocess.run([ctx.bash, "-c", "exec -a cbt %s -project p -instance %s %s" % (ctx.cbt, instance, cmd)],
                                  cwd=work, env=env, capture_output=True, timeout=60)
            ours = subprocess.run([ctx.bash, "-c", "exec %s cbt --state %s -project p -instance %s %s" % (
                shlex.quote(ctx.tabletop), shlex.quote(state), instance, cmd)],
                cwd=work, env=env, capture_output=True, timeout=60)
            again = subprocess.run([ctx.bash, "-c", "exec %s cbt --state %s -project p -instance %s %s" % (
                shlex.quote(ctx.tabletop), shlex.quote(replay_state), instance, cmd)],
                cwd=work, env=env, capture_output=True, timeout=60)
            emu = ctx.normalise_cbt(real.stdout, real.stderr, real.returncode, instance, now)
            tab = ctx.normalise_cbt(ours.stdout, ours.stderr, ours.returncode, instance, now)
            rep = ctx.normalise_cbt(again.stdout, again.stderr, again.returncode, instance, now)
            if ctx.show:
                res.shown.append("`%s`\n  emulator: %s\n  tabletop: %s" % (cmd, ctx.show_value(emu), ctx.show_value(tab)))
            if emu != tab:
                res.problems.append("`%s`: the emulator (after the exported script) and Tabletop differ\n    emulator: %s\n    tabletop: %s"
                                    % (cmd, ctx.show_value(emu), ctx.show_value(tab)))
            if rep != tab:
                res.problems.append("`%s`: the script replayed into Tabletop differs from the design\n    replayed: %s\n    design:   %s"
                                    % (cmd, ctx.show_value(rep), ctx.show_value(tab)))

        terraform = shutil.which("terraform")
        if terraform:
            p = tabletop(["export", "--state", state, "--format", "terraform"] + names)
            if p.returncode != 0:
                fail("tabletop export --format terraform", p)
            else:
                tf_env = dict(os.environ)
                tf_env["TF_CLI_CONFIG_FILE"] = os.devnull
                t = subprocess.run([terraform, "fmt", "-check", "-no-color", "-"], input=p.stdout,
                                   capture_output=True, timeout=60, env=tf_env)
                if t.returncode != 0:
                    res.problems.append("terraform fmt -check refuses the Terraform export (exit %d): %s\n%s"
                                        % (t.returncode, ctx.decode(t.stderr), ctx.decode(p.stdout)))
        if os.path.isdir(os.path.join(GCLOUD_SDK, "googlecloudsdk")):
            check_gcloud(index, res, ctx, work, state, env, tabletop, fail, instance)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return res


def check_gcloud(index, res, ctx, work, state, env, tabletop, fail, design):
    """Runs the gcloud export against instance gNNN (see the module docs)
    and compares the tables and their families with the design's own
    instance in Tabletop (`design`, eNNN; instances are separate
    namespaces, so the names given to the export only go into its
    commands)."""
    instance = "g%03d" % index
    names = ["-project", "p", "-instance", instance]
    ours_names = ["-project", "p", "-instance", design]
    p = tabletop(["export", "--state", state, "--format", "gcloud"] + names)
    if p.returncode != 0:
        fail("tabletop export --format gcloud", p)
        return
    script = os.path.join(work, "gcloud.sh")
    with open(script, "wb") as f:
        f.write(p.stdout)
    genv = dict(env, SHIM_PYTHON=sys.executable, SHIM=os.path.join(HERE, "gcloud_shim.py"),
                GCLOUD_SDK_LIB=GCLOUD_SDK)
    wrapper = 'gcloud() { "$SHIM_PYTHON" "$SHIM" "$@"; }; . "$1"'
    g = subprocess.run([ctx.bash, "-c", wrapper, "gcloud-export", script], cwd=work, env=genv,
                       capture_output=True, timeout=300)
    if g.returncode != 0:
        fail("the gcloud export (gcloud lines through gcloud_shim.py, cbt lines through the real cbt)", g)
        return
    listing = tabletop(["cbt", "--state", state] + ours_names + ["ls"])
    tables = ctx.decode(listing.stdout).split()
    for cmd in ["ls"] + ["ls " + t for t in tables]:
        now = time.time()
        real = subprocess.run([ctx.bash, "-c", "exec -a cbt %s -project p -instance %s %s" % (ctx.cbt, instance, cmd)],
                              cwd=work, env=env, capture_output=True, timeout=60)
        ours = subprocess.run([ctx.bash, "-c", "exec %s cbt --state %s -project p -instance %s %s" % (
            shlex.quote(ctx.tabletop), shlex.quote(state), design, cmd)],
            cwd=work, env=env, capture_output=True, timeout=60)
        emu = ctx.normalise_cbt(real.stdout, real.stderr, real.returncode, instance, now)
        tab = ctx.normalise_cbt(ours.stdout, ours.stderr, ours.returncode, design, now)
        for side in (emu, tab):
            side["stdout"] = [[f for f in line.split("\t") if f and f != "<never>"]
                              for line in side["stdout"].splitlines()]
        if emu != tab:
            res.problems.append("`%s` after the gcloud export: the emulator and Tabletop differ\n    emulator: %s\n    tabletop: %s"
                                % (cmd, ctx.show_value(emu), ctx.show_value(tab)))
