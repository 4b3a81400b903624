"""Both sides of a JSON scenario: the official Python client talking to the
emulator, and `tabletop json`; plus the normalisation that makes their
answers comparable.

Every request is written once, as the REST JSON body Bigtable's REST API
(and `tabletop json`) takes. For the emulator it is parsed into the
client's protobuf request type (`google.cloud.bigtable_v2` /
`bigtable_admin_v2`, proto3 JSON parsing, unknown fields refused) and sent
through the generated gRPC client, with the `bigtable-features` header real
clients send (reverse scans enabled). Streams are collected: ReadRows
chunks are merged into rows (as every client library does), MutateRows and
SampleRowKeys messages are concatenated.

Answers of both sides are brought into one canonical form:
- a response is parsed into its protobuf type and printed again as proto3
  JSON (so field order and default values cannot differ; Tabletop's answer
  must be valid JSON of that type, or the parse fails);
- an error keeps only its status name (`NOT_FOUND`): the messages are each
  server's own words;
- row families are sorted by name (the emulator returns them in random
  order; production in a fixed one);
- cell timestamps within a day of now were assigned by the server and
  become "<now>";
- a MutateRows entry's status keeps only its code;
- ListTables answers are sorted by name (the emulator's order is random);
- SampleRowKeys keeps its last key and whether keys and offsets grow
  (sample positions are each server's storage layout).
"""

import base64
import json
import os
import subprocess
import time

import grpc
from google.api_core import exceptions as gexc
from google.cloud.bigtable_v2 import types as v2
from google.cloud.bigtable_v2.services.bigtable import BigtableClient
from google.cloud.bigtable_v2.services.bigtable.transports import BigtableGrpcTransport
from google.cloud.bigtable_admin_v2 import types as admin
from google.cloud.bigtable_admin_v2.services.bigtable_table_admin import (
    BaseBigtableTableAdminClient,
)
from google.cloud.bigtable_admin_v2.services.bigtable_table_admin.transports import (
    BigtableTableAdminGrpcTransport,
)
from google.cloud.bigtable_admin_v2.services.bigtable_instance_admin import (
    BigtableInstanceAdminClient,
)
from google.cloud.bigtable_admin_v2.services.bigtable_instance_admin.transports import (
    BigtableInstanceAdminGrpcTransport,
)
from google.protobuf import json_format

NOW_WINDOW_MICROS = 24 * 3600 * 1_000_000

# method -> (request type, answer type or None for Empty, kind)
METHODS = {
    "createTable": (admin.CreateTableRequest, admin.Table, "admin"),
    "getTable": (admin.GetTableRequest, admin.Table, "admin"),
    "listTables": (admin.ListTablesRequest, admin.ListTablesResponse, "admin"),
    "deleteTable": (admin.DeleteTableRequest, None, "admin"),
    "modifyColumnFamilies": (admin.ModifyColumnFamiliesRequest, admin.Table, "admin"),
    "dropRowRange": (admin.DropRowRangeRequest, None, "admin"),
    "createAuthorizedView": (admin.CreateAuthorizedViewRequest, admin.AuthorizedView, "admin"),
    "getAuthorizedView": (admin.GetAuthorizedViewRequest, admin.AuthorizedView, "admin"),
    "listAuthorizedViews": (admin.ListAuthorizedViewsRequest, admin.ListAuthorizedViewsResponse, "admin"),
    "updateAuthorizedView": (admin.UpdateAuthorizedViewRequest, admin.AuthorizedView, "admin"),
    "deleteAuthorizedView": (admin.DeleteAuthorizedViewRequest, None, "admin"),
    "createLogicalView": (admin.CreateLogicalViewRequest, admin.LogicalView, "instance"),
    "getLogicalView": (admin.GetLogicalViewRequest, admin.LogicalView, "instance"),
    "listLogicalViews": (admin.ListLogicalViewsRequest, admin.ListLogicalViewsResponse, "instance"),
    "updateLogicalView": (admin.UpdateLogicalViewRequest, admin.LogicalView, "instance"),
    "deleteLogicalView": (admin.DeleteLogicalViewRequest, None, "instance"),
    "mutateRow": (v2.MutateRowRequest, v2.MutateRowResponse, "data"),
    "mutateRows": (v2.MutateRowsRequest, None, "data"),
    "checkAndMutateRow": (v2.CheckAndMutateRowRequest, v2.CheckAndMutateRowResponse, "data"),
    "readModifyWriteRow": (v2.ReadModifyWriteRowRequest, v2.ReadModifyWriteRowResponse, "data"),
    "readRows": (v2.ReadRowsRequest, None, "data"),
    "sampleRowKeys": (v2.SampleRowKeysRequest, None, "data"),
    "generateInitialChangeStreamPartitions": (v2.GenerateInitialChangeStreamPartitionsRequest, None, "data"),
}


def pb(message):
    """The raw protobuf message under a proto-plus one."""
    return type(message).pb(message)


def to_json(message):
    return json_format.MessageToDict(pb(message), preserving_proto_field_name=False)


def parse(proto_type, obj):
    """Parses proto3 JSON into a proto-plus message; unknown fields fail."""
    return proto_type.wrap(json_format.ParseDict(obj, proto_type.pb()(), ignore_unknown_fields=False))


class Oracle:
    """The official client against the emulator at `addr`."""

    def __init__(self, addr):
        self.channel = grpc.insecure_channel(addr)
        self.data = BigtableClient(transport=BigtableGrpcTransport(channel=self.channel))
        self.admin = BaseBigtableTableAdminClient(
            transport=BigtableTableAdminGrpcTransport(channel=self.channel)
        )
        self.instance_admin = BigtableInstanceAdminClient(
            transport=BigtableInstanceAdminGrpcTransport(channel=self.channel)
        )
        flags = v2.FeatureFlags(reverse_scans=True, last_scanned_row_responses=True)
        value = base64.urlsafe_b64encode(v2.FeatureFlags.serialize(flags)).decode()
        self.metadata = [("bigtable-features", value)]

    def close(self):
        self.channel.close()

    def call(self, method, body):
        """Runs one request; returns {"response": json} or {"error": status}."""
        return self.send(method, self.parse(method, body))

    @staticmethod
    def parse(method, body):
        """The request message of `method` from its proto3 JSON `body`."""
        if method not in METHODS:
            raise ValueError("no such method in the oracle: %s" % method)
        return parse(METHODS[method][0], body)

    def send(self, method, req):
        """Runs one parsed request (see `parse`); answers as `call`."""
        opts = {"metadata": self.metadata, "timeout": 30}
        if method != "readRows":
            opts["retry"] = None
        try:
            if method == "createTable":
                out = to_json(self.admin.create_table(request=req, **opts))
            elif method == "getTable":
                out = to_json(self.admin.get_table(request=req, **opts))
            elif method == "listTables":
                tables = []
                for page in self.admin.list_tables(request=req, **opts).pages:
                    tables.extend(to_json(t) for t in page.tables)
                out = {"tables": tables} if tables else {}
            elif method == "deleteTable":
                self.admin.delete_table(request=req, **opts)
                out = {}
            elif method == "modifyColumnFamilies":
                out = to_json(self.admin.modify_column_families(request=req, **opts))
            elif method == "dropRowRange":
                self.admin.drop_row_range(request=req, **opts)
                out = {}
            elif method == "createAuthorizedView":
                # A long-running operation; the emulator answers at once.
                out = to_json(self.admin.create_authorized_view(request=req, **opts).result(timeout=30))
            elif method == "getAuthorizedView":
                out = to_json(self.admin.get_authorized_view(request=req, **opts))
            elif method == "listAuthorizedViews":
                views = []
                for page in self.admin.list_authorized_views(request=req, **opts).pages:
                    views.extend(to_json(v) for v in page.authorized_views)
                out = {"authorizedViews": views} if views else {}
            elif method == "updateAuthorizedView":
                out = to_json(self.admin.update_authorized_view(request=req, **opts).result(timeout=30))
            elif method == "deleteAuthorizedView":
                self.admin.delete_authorized_view(request=req, **opts)
                out = {}
            elif method == "createLogicalView":
                # A long-running operation in production.
                out = to_json(self.instance_admin.create_logical_view(request=req, **opts).result(timeout=30))
            elif method == "getLogicalView":
                out = to_json(self.instance_admin.get_logical_view(request=req, **opts))
            elif method == "listLogicalViews":
                views = []
                for page in self.instance_admin.list_logical_views(request=req, **opts).pages:
                    views.extend(to_json(v) for v in page.logical_views)
                out = {"logicalViews": views} if views else {}
            elif method == "updateLogicalView":
                out = to_json(self.instance_admin.update_logical_view(request=req, **opts).result(timeout=30))
            elif method == "deleteLogicalView":
                self.instance_admin.delete_logical_view(request=req, **opts)
                out = {}
            elif method == "mutateRow":
                out = to_json(self.data.mutate_row(request=req, **opts))
            elif method == "mutateRows":
                entries = []
                for resp in self.data.mutate_rows(request=req, **opts):
                    entries.extend(to_json(e) for e in resp.entries)
                entries.sort(key=lambda e: int(e.get("index", "0")))
                out = {"entries": entries} if entries else {}
            elif method == "checkAndMutateRow":
                out = to_json(self.data.check_and_mutate_row(request=req, **opts))
            elif method == "readModifyWriteRow":
                out = to_json(self.data.read_modify_write_row(request=req, **opts))
            elif method == "readRows":
                out = merge_chunks(self.data.read_rows(request=req, retry=None, **opts))
            elif method == "sampleRowKeys":
                samples = [to_json(s) for s in self.data.sample_row_keys(request=req, **opts)]
                out = {"samples": samples} if samples else {}
            elif method == "generateInitialChangeStreamPartitions":
                # A stream of messages: the JSON protocol answers the list.
                stream = self.data.generate_initial_change_stream_partitions(request=req, **opts)
                out = [to_json(m) for m in stream]
        except gexc.GoogleAPICallError as e:
            code = e.grpc_status_code
            return {"error": code.name if code is not None else "UNKNOWN", "message": e.message}
        return {"response": out}


def merge_chunks(stream):
    """Merges ReadRows chunks into rows (proto3 JSON of google.bigtable.v2.Row),
    as the client libraries do; a reset discards the row being built."""
    rows = []
    row = fam = col = cell = None
    value = b""
    for resp in stream:
        for ch in pb(resp).chunks:
            if ch.reset_row:
                row = fam = col = cell = None
                value = b""
                continue
            # The emulator repeats the row key in every chunk of a row.
            if row is None or (ch.row_key and ch.row_key != row["key"]):
                row = {"key": ch.row_key, "families": []}
                fam = col = None
            # Family and qualifier start a new group when they change (the
            # emulator repeats them in every chunk).
            if ch.HasField("family_name") and (fam is None or fam["name"] != ch.family_name.value):
                fam = {"name": ch.family_name.value, "columns": []}
                row["families"].append(fam)
                col = None
            if ch.HasField("qualifier") and (col is None or col["qualifier"] != ch.qualifier.value):
                col = {"qualifier": ch.qualifier.value, "cells": []}
                fam["columns"].append(col)
            if cell is None:
                cell = {"timestampMicros": ch.timestamp_micros, "labels": list(ch.labels)}
            value += ch.value
            if ch.value_size == 0:
                cell["value"] = value
                col["cells"].append(cell)
                cell = None
                value = b""
            if ch.commit_row:
                rows.append(row)
                row = None
    out = [row_dict_to_json(r) for r in rows]
    return {"rows": out} if out else {}


def row_dict_to_json(r):
    """A merged row into the proto3 JSON of google.bigtable.v2.Row."""
    row = v2.Row(
        key=r["key"],
        families=[
            v2.Family(
                name=f["name"],
                columns=[
                    v2.Column(
                        qualifier=c["qualifier"],
                        cells=[
                            v2.Cell(timestamp_micros=x["timestampMicros"], value=x["value"], labels=x["labels"])
                            for x in c["cells"]
                        ],
                    )
                    for c in f["columns"]
                ],
            )
            for f in r["families"]
        ],
    )
    return to_json(row)


# ---------------------------------------------------------------- tabletop


def run_tabletop_json(tabletop, state_path, lines, timeout=120, extra_args=()):
    """Sends request lines to one `tabletop json` process (with
    `extra_args`, such as --emulator-parity); returns the parsed answers
    (one per line)."""
    text = "".join(json.dumps(l, separators=(",", ":")) + "\n" for l in lines)
    proc = subprocess.run(
        [tabletop, "json", *extra_args, "--state", state_path],
        input=text.encode(),
        capture_output=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError("tabletop json exited %d: %s" % (proc.returncode, proc.stderr.decode(errors="replace")))
    answers = [json.loads(l) for l in proc.stdout.decode().splitlines()]
    if len(answers) != len(lines):
        raise RuntimeError("tabletop json gave %d answers for %d requests" % (len(answers), len(lines)))
    out = []
    for line, a in zip(lines, answers):
        if "error" in a:
            out.append({"error": a["error"].get("status", "UNKNOWN"), "message": a["error"].get("message", "")})
        else:
            check_documented_form(line.get("method"), a["response"])
            out.append({"response": a["response"]})
    return out


def check_documented_form(method, response):
    """Tabletop's wrappers keep the form `tabletop json --help` documents,
    whatever they hold: `rows` and `samples` are always lists, and every
    mutateRows entry has a numeric `index` and a `status` with a `code`.
    (The comparison with the emulator happens after `canonical`, which
    re-prints both sides as proto3 JSON.)"""
    def fail(what):
        raise RuntimeError("tabletop json answered %s in another form than documented (%s): %r"
                           % (method, what, response))
    if method == "readRows" and not isinstance(response.get("rows"), list):
        fail('"rows" must be a list')
    if method == "sampleRowKeys" and not isinstance(response.get("samples"), list):
        fail('"samples" must be a list')
    if method == "mutateRows":
        entries = response.get("entries")
        if not isinstance(entries, list):
            fail('"entries" must be a list')
        for i, e in enumerate(entries):
            if e.get("index") != i or not isinstance(e.get("status", {}).get("code"), int):
                fail("entry %d must be {\"index\": %d, \"status\": {\"code\": N}}" % (i, i))


# ---------------------------------------------------------------- normalise


def canonical(method, response):
    """Re-prints an answer body through its protobuf type (see module docs)."""
    _, answer_type, _ = METHODS[method]
    if method == "readRows":
        return {"rows": [to_json(parse(v2.Row, r)) for r in response.get("rows", [])]} if response.get("rows") else {}
    if method == "mutateRows":
        entries = [to_json(parse(v2.MutateRowsResponse.Entry, e)) for e in response.get("entries", [])]
        return {"entries": entries} if entries else {}
    if method == "sampleRowKeys":
        samples = [to_json(parse(v2.SampleRowKeysResponse, s)) for s in response.get("samples", [])]
        return {"samples": samples} if samples else {}
    if method == "generateInitialChangeStreamPartitions":
        return [to_json(parse(v2.GenerateInitialChangeStreamPartitionsResponse, m)) for m in response]
    if answer_type is None:
        if response not in ({}, None):
            raise ValueError("%s answers Empty, got %r" % (method, response))
        return {}
    return to_json(parse(answer_type, response))


def mask_now(ts, now_micros):
    try:
        t = int(ts)
    except (TypeError, ValueError):
        return ts
    if abs(t - now_micros) <= NOW_WINDOW_MICROS:
        return "<now>"
    return ts


def normalise_row(row, now_micros):
    fams = sorted(row.get("families", []), key=lambda f: f.get("name", ""))
    for f in fams:
        for c in f.get("columns", []):
            for cell in c.get("cells", []):
                if "timestampMicros" in cell:
                    cell["timestampMicros"] = mask_now(cell["timestampMicros"], now_micros)
    if fams:
        row["families"] = fams
    return row


def normalise(method, answer, now_micros=None, instance_map=None):
    """The canonical, comparable form of one answer (see module docs)."""
    if now_micros is None:
        now_micros = int(time.time() * 1_000_000)
    if "error" in answer:
        return {"error": answer["error"]}
    body = canonical(method, answer["response"])
    if method == "readRows":
        for r in body.get("rows", []):
            normalise_row(r, now_micros)
    elif method == "readModifyWriteRow" and "row" in body:
        normalise_row(body["row"], now_micros)
    elif method == "mutateRows":
        for e in body.get("entries", []):
            st = e.get("status", {})
            e["status"] = {"code": st["code"]} if st.get("code") else {}
    elif method == "listTables":
        # The emulator lists tables in Go map order (random).
        if "tables" in body:
            body["tables"].sort(key=lambda t: t.get("name", ""))
    elif method == "sampleRowKeys":
        samples = body.get("samples", [])
        keys = [base64.b64decode(s.get("rowKey", "")) for s in samples]
        offs = [int(s.get("offsetBytes", "0")) for s in samples]
        body = {
            "count>0": bool(samples),
            "lastRowKey": samples[-1].get("rowKey", "") if samples else None,
            "keysAscending": all(a < b for a, b in zip(keys, keys[1:]) if b),
            "offsetsAscending": all(a <= b for a, b in zip(offs, offs[1:])),
        }
    text = json.dumps(body, sort_keys=True)
    if instance_map:
        for old, new in instance_map.items():
            text = text.replace(old, new)
    return {"response": json.loads(text)}
