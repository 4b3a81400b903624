"""Small helpers the scenario files use to write REST JSON requests, cbt
commands and expected (normalised) answers. They only spell JSON out;
every request still reaches both sides as the one dict they build."""

import base64

PARENT = "projects/p/instances/i"


def b64(data):
    """Base64 of text (UTF-8) or bytes, as proto3 JSON writes `bytes`."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return base64.b64encode(data).decode("ascii")


def table(table_id):
    """The full resource name of a table of the scenario's instance."""
    return "%s/tables/%s" % (PARENT, table_id)


def set_cell(family, qualifier, ts, value):
    """A SetCell mutation (`ts` -1 asks for the server's time)."""
    return {
        "setCell": {
            "familyName": family,
            "columnQualifier": b64(qualifier),
            "timestampMicros": str(ts),
            "value": b64(value),
        }
    }


def int64(n):
    """The 8-byte big-endian encoding Bigtable uses for counters."""
    return int(n).to_bytes(8, "big", signed=True)


# ------------------------------------------------------------- JSON steps


def step(method, request, diverges=None, expect=None, note=None, crashes_emulator=False):
    """One request of a JSON scenario.

    diverges: {"reason": str, "emulator": answer, "production": answer} —
      a known difference between the emulator and production Bigtable.
      Tabletop must give `production`; the emulator must still give
      `emulator` (so the list stays honest).
    expect: an answer both sides must give (beyond being equal).
    crashes_emulator: the request brings the emulator down, so it goes to
      an emulator of its own, whose answer is error("EMULATOR_CRASHED")
      when the process died of it.
    Answers are normalised: {"error": "STATUS"} or {"response": {...}}.
    """
    s = {"method": method, "request": request}
    if crashes_emulator:
        s["crashes_emulator"] = True
    if diverges is not None:
        s["diverges"] = diverges
    if expect is not None:
        s["expect"] = expect
    if note is not None:
        s["note"] = note
    return s


def create_table(table_id, families, splits=None, **extra):
    """A createTable request; `families` maps names to ColumnFamily JSON."""
    req = {"parent": PARENT, "tableId": table_id, "table": {"columnFamilies": families}}
    if splits:
        req["initialSplits"] = [{"key": b64(k)} for k in splits]
    return step("createTable", req, **extra)


def mutate_row(table_id, key, mutations, **extra):
    return step(
        "mutateRow",
        {"tableName": table(table_id), "rowKey": b64(key), "mutations": mutations},
        **extra,
    )


def mutate_rows(table_id, entries, **extra):
    """entries: [(key, [mutation...]), ...]"""
    return step(
        "mutateRows",
        {
            "tableName": table(table_id),
            "entries": [{"rowKey": b64(k), "mutations": m} for k, m in entries],
        },
        **extra,
    )


def read_rows(table_id, **fields):
    """A readRows request; keyword arguments are ReadRowsRequest fields, plus
    diverges / expect / note."""
    extra = {k: fields.pop(k) for k in ("diverges", "expect", "note") if k in fields}
    req = {"tableName": table(table_id)}
    req.update(fields)
    return step("readRows", req, **extra)


def row_keys(*keys):
    """RowSet JSON selecting single keys."""
    return {"rowKeys": [b64(k) for k in keys]}


def prefix_range(prefix):
    """RowSet JSON for every key starting with `prefix` (prefix + 0xFF... is
    not enough in general; the range ends at the prefix's successor)."""
    p = prefix.encode() if isinstance(prefix, str) else prefix
    end = bytearray(p)
    while end and end[-1] == 0xFF:
        end.pop()
    end[-1] += 1
    return {"rowRanges": [{"startKeyClosed": b64(p), "endKeyOpen": b64(bytes(end))}]}


# ------------------------------------------------------ expected answers


def cell(ts, value, labels=None):
    c = {"value": b64(value)}
    if ts not in (0, "0"):
        c["timestampMicros"] = ts if ts == "<now>" else str(ts)
    if labels:
        c["labels"] = list(labels)
    if not value:
        del c["value"]
    return c


def col(qualifier, *cells):
    c = {"cells": list(cells)}
    if qualifier:
        c["qualifier"] = b64(qualifier)
    return c


def fam(name, *cols):
    return {"name": name, "columns": list(cols)}


def row(key, *fams):
    return {"key": b64(key), "families": sorted(fams, key=lambda f: f["name"])}


def rows(*rs):
    """The normalised answer of a readRows."""
    return {"response": {"rows": list(rs)} if rs else {}}


def error(status):
    return {"error": status}


OK = {"response": {}}


# ------------------------------------------------------------- cbt steps


def run(command, diverges=None, note=None):
    """One cbt command line (as typed after `cbt -project p -instance i`).

    diverges: {"reason": str, "emulator": outcome, "production": outcome}
    with outcomes {"stdout": str, "stderr": str, "exit": int}; missing keys
    are "" / 0.
    """
    s = {"cmd": command}
    if diverges is not None:
        s["diverges"] = diverges
    if note is not None:
        s["note"] = note
    return s


def outcome(stdout="", stderr="", exit=0):
    return {"stdout": stdout, "stderr": stderr, "exit": exit}
