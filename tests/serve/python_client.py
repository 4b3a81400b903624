"""`tabletop serve` driven by the official Python client for Bigtable.

Starts `tabletop serve -host 127.0.0.1 -port 0` (the binary named by
--tabletop), reads the address from its first line, points the client at
it with BIGTABLE_EMULATOR_HOST and checks what users do: create a table
through the admin API, write rows (MutateRow, MutateRows,
CheckAndMutateRow, ReadModifyWriteRow), read them back as a stream, a
SQL query (PrepareQuery and ExecuteQuery), a reversed scan, SampleRowKeys,
DropRowRange, an error's status, a ReadRows stream cancelled midway that
leaves the server healthy, a large SQL result streamed in flat memory,
authorized views and UpdateTable through the admin client (a change stream,
deletion protection), logical and materialized views through the instance admin client
(used by a query, kept in the state file across a killed server), and a
table's change stream (its partitions, a
read up to an end time, a live read that sees a write as it commits). Ends with
`N passed, M failed` and exits non-zero if anything failed.
"""

import argparse
import contextlib
import os
import re
import subprocess
import sys
import traceback
import warnings

PROJECT, INSTANCE, TABLE = "p", "i", "t"


def start(tabletop, *flags):
    proc = subprocess.Popen(
        [tabletop, "serve", "-host", "127.0.0.1", "-port", "0", *flags],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    line = proc.stdout.readline().decode(errors="replace")
    m = re.match(r"Tabletop Bigtable emulator running on (127\.0\.0\.1:\d+)$", line.strip())
    if not m:
        proc.kill()
        raise RuntimeError("tabletop serve did not start: %r" % line)
    return proc, m.group(1)


@contextlib.contextmanager
def own_server(tabletop, *flags):
    """A `tabletop serve` of a test's own, with BIGTABLE_EMULATOR_HOST
    pointing at it, stopped however the test ends (SIGTERM, then SIGKILL
    if it lingers) unless the test stopped it itself."""
    proc, addr = start(tabletop, *flags)
    os.environ["BIGTABLE_EMULATOR_HOST"] = addr
    try:
        yield proc, addr
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def fill_big_table(byte):
    """Table t (family cf) of the server BIGTABLE_EMULATOR_HOST names,
    with 1000 rows r000000..r000999 of one 60 KB cell of `byte` each
    (60 MB), written 100 rows at a time."""
    from google.cloud import bigtable
    from google.cloud.bigtable.data import BigtableDataClient, RowMutationEntry, SetCell

    bigtable.Client(project=PROJECT, admin=True).instance(INSTANCE).table(TABLE).create(
        column_families={"cf": None}
    )
    with BigtableDataClient(project=PROJECT) as data:
        table = data.get_table(INSTANCE, TABLE)
        value = byte * 60000
        for k in range(10):
            table.bulk_mutate_rows([
                RowMutationEntry(b"r%06d" % (k * 100 + i), [SetCell("cf", b"c", value)])
                for i in range(100)
            ])


class Suite:
    def __init__(self, addr, tabletop):
        self.tabletop = tabletop
        # Imported here: BIGTABLE_EMULATOR_HOST must be set first.
        import grpc
        from google.cloud import bigtable
        from google.cloud.bigtable import column_family
        from google.cloud.bigtable.data import BigtableDataClient
        from google.cloud.bigtable_v2 import types as v2

        self.grpc, self.v2, self.column_family = grpc, v2, column_family
        self.admin = bigtable.Client(project=PROJECT, admin=True)
        self.instance = self.admin.instance(INSTANCE)
        self.data = BigtableDataClient(project=PROJECT)
        self.channel = grpc.insecure_channel(addr)
        self.table_name = "projects/%s/instances/%s/tables/%s" % (PROJECT, INSTANCE, TABLE)

    def close(self):
        self.data.close()
        self.channel.close()

    def read_rows_rpc(self):
        """ReadRows on a plain gRPC channel, for what the high-level
        client does not offer (reversed scans, cancelling a stream)."""
        return self.channel.unary_stream(
            "/google.bigtable.v2.Bigtable/ReadRows",
            request_serializer=self.v2.ReadRowsRequest.serialize,
            response_deserializer=self.v2.ReadRowsResponse.deserialize,
        )

    def feature_metadata(self):
        import base64

        flags = self.v2.FeatureFlags(reverse_scans=True)
        value = base64.urlsafe_b64encode(self.v2.FeatureFlags.serialize(flags)).decode()
        return [("bigtable-features", value)]

    def test_admin_creates_lists_and_describes_tables(self):
        t = self.instance.table(TABLE)
        t.create(column_families={"cf": self.column_family.MaxVersionsGCRule(2), "n": None})
        names = [x.table_id for x in self.instance.list_tables()]
        assert names == [TABLE], names
        families = t.list_column_families()
        assert sorted(families) == ["cf", "n"], families
        assert families["cf"].gc_rule == self.column_family.MaxVersionsGCRule(2)

    def test_writes_and_reads_back(self):
        from google.cloud.bigtable.data import ReadRowsQuery, RowMutationEntry, SetCell

        table = self.data.get_table(INSTANCE, TABLE)
        table.mutate_row(b"r1", SetCell("cf", b"c", b"one", timestamp_micros=1000))
        table.bulk_mutate_rows(
            [RowMutationEntry(b"r%d" % i, [SetCell("cf", b"c", b"v%d" % i)]) for i in range(2, 6)]
        )
        rows = table.read_rows(ReadRowsQuery())
        keys = [r.row_key for r in rows]
        assert keys == [b"r1", b"r2", b"r3", b"r4", b"r5"], keys
        assert rows[0].cells[0].value == b"one" and rows[0].cells[0].timestamp_micros == 1000
        limited = table.read_rows(ReadRowsQuery(row_keys=[b"r4", b"r2"], limit=1))
        assert [r.row_key for r in limited] == [b"r2"]
        assert table.read_row(b"nope") is None
        assert table.row_exists(b"r3")

    def test_check_and_mutate_and_read_modify_write(self):
        from google.cloud.bigtable.data import SetCell
        from google.cloud.bigtable.data.read_modify_write_rules import IncrementRule
        from google.cloud.bigtable.data.row_filters import FamilyNameRegexFilter

        table = self.data.get_table(INSTANCE, TABLE)
        matched = table.check_and_mutate_row(
            b"r1",
            FamilyNameRegexFilter("cf"),
            true_case_mutations=[SetCell("cf", b"seen", b"yes")],
            false_case_mutations=[SetCell("cf", b"seen", b"no")],
        )
        assert matched is True
        assert table.read_row(b"r1").get_cells("cf", b"seen")[0].value == b"yes"
        table.read_modify_write_row(b"r1", IncrementRule("n", b"count", 5))
        row = table.read_modify_write_row(b"r1", IncrementRule("n", b"count", 2))
        assert row.get_cells("n", b"count")[0].value == (7).to_bytes(8, "big")

    def test_reversed_scan(self):
        request = self.v2.ReadRowsRequest(table_name=self.table_name, reversed=True, rows_limit=3)
        keys = []
        for response in self.read_rows_rpc()(request, metadata=self.feature_metadata()):
            keys += [c.row_key for c in response.chunks if c.row_key]
        assert keys == [b"r5", b"r4", b"r3"], keys

    def test_sql_query_through_execute_query(self):
        from google.cloud.bigtable.data.execute_query.metadata import SqlType

        result = self.data.execute_query(
            "SELECT _key, cf['c'] AS c, TO_INT64(n['count']) AS count, cf FROM t "
            "WHERE _key >= b'r1' ORDER BY _key LIMIT 3",
            instance_id=INSTANCE,
        )
        rows = list(result)
        assert [r["_key"] for r in rows] == [b"r1", b"r2", b"r3"], rows
        assert rows[0]["c"] == b"one" and rows[1]["c"] == b"v2", rows
        assert rows[0]["count"] == 7 and rows[1]["count"] is None, rows
        assert rows[0]["cf"] == {b"c": b"one", b"seen": b"yes"}, rows[0]["cf"]
        types = [(c.column_name, type(c.column_type)) for c in result.metadata.columns]
        assert types == [("_key", SqlType.Bytes), ("c", SqlType.Bytes),
                         ("count", SqlType.Int64), ("cf", SqlType.Map)], types

    def test_sql_errors_and_empty_results(self):
        from google.api_core import exceptions

        empty = list(self.data.execute_query(
            "SELECT _key FROM t WHERE _key = b'none'", instance_id=INSTANCE))
        assert empty == [], empty
        try:
            list(self.data.execute_query("SELECT nope FROM t", instance_id=INSTANCE,
                                         prepare_operation_timeout=5))
        except exceptions.InvalidArgument as e:
            assert "nope" in str(e), str(e)
        else:
            raise AssertionError("a query naming no column succeeded")

    def test_request_stats_come_with_the_stream(self):
        request = self.v2.ReadRowsRequest(
            table_name=self.table_name,
            rows_limit=2,
            request_stats_view=self.v2.ReadRowsRequest.RequestStatsView.REQUEST_STATS_FULL,
        )
        stats = [r.request_stats for r in self.read_rows_rpc()(request) if "request_stats" in r]
        assert len(stats) == 1, stats
        read = stats[0].full_read_stats_view.read_iteration_stats
        assert read.rows_returned_count == 2, read

    def test_sample_row_keys(self):
        samples = self.data.get_table(INSTANCE, TABLE).sample_row_keys()
        assert samples and samples[-1][0] == b"", samples

    def test_a_missing_table_is_named_as_the_emulator_names_it(self):
        from google.api_core import exceptions
        from google.cloud.bigtable.data import ReadRowsQuery

        want = 'table "projects/p/instances/i/tables/nope" not found'
        try:
            self.data.get_table(INSTANCE, "nope").read_rows(ReadRowsQuery(), operation_timeout=5)
        except exceptions.NotFound as e:
            assert want in str(e), str(e)
        except Exception as e:  # the client wraps retried errors
            cause = getattr(e, "__cause__", None)
            assert want in repr(e) + repr(cause), repr(e)
        else:
            raise AssertionError("reading a missing table succeeded")

    def json_error(self, method, body):
        """The error `tabletop json` answers for one request (on an empty
        instance with the table `t`, in a state file of its own)."""
        import json
        import tempfile

        with tempfile.TemporaryDirectory() as work:
            lines = [
                {"method": "createTable", "request": {"parent": "projects/p/instances/i",
                 "tableId": TABLE, "table": {"columnFamilies": {"cf": {}}}}},
                {"method": method, "request": body},
            ]
            text = "".join(json.dumps(l) + "\n" for l in lines)
            out = subprocess.run(
                [self.tabletop, "json", "--state", os.path.join(work, "s.state")],
                input=text.encode(), capture_output=True, check=True,
            )
            return json.loads(out.stdout.decode().splitlines()[-1])["error"]

    def test_bad_input_gets_the_json_protocol_s_code_and_message(self):
        from google.protobuf import json_format

        cases = [
            ("readRows", self.v2.ReadRowsRequest, {"tableName": self.table_name,
             "filter": {"rowKeyRegexFilter": "KA=="}}),
            ("mutateRow", self.v2.MutateRowRequest, {"tableName": self.table_name,
             "rowKey": "cg==", "mutations": [{"setCell": {"familyName": "nope",
             "columnQualifier": "Yw==", "value": "dg=="}}]}),
            ("readRows", self.v2.ReadRowsRequest, {"tableName": "projects/p/instances/i/tables/"}),
        ]
        for method, kind, body in cases:
            want = self.json_error(method, body)
            path = "/google.bigtable.v2.Bigtable/" + method[0].upper() + method[1:]
            request = kind.wrap(json_format.ParseDict(body, kind.pb()()))
            rpc = (self.channel.unary_stream if method == "readRows" else self.channel.unary_unary)(
                path, request_serializer=kind.serialize, response_deserializer=lambda b: b
            )
            try:
                out = rpc(request)
                if method == "readRows":
                    list(out)
            except self.grpc.RpcError as e:
                got = (e.code().value[0], e.details())
            else:
                raise AssertionError("%s %s succeeded" % (method, body))
            assert got == (want["code"], want["message"]), (got, want)

    def test_cancelled_stream_leaves_the_server_healthy(self):
        from google.cloud.bigtable.data import ReadRowsQuery, RowMutationEntry, SetCell

        table = self.data.get_table(INSTANCE, TABLE)
        value = b"x" * 4096
        table.bulk_mutate_rows(
            [RowMutationEntry(b"big%05d" % i, [SetCell("cf", b"c", value)]) for i in range(1000)]
        )
        request = self.v2.ReadRowsRequest(table_name=self.table_name)
        call = self.read_rows_rpc()(request)
        first = next(call)
        assert first.chunks, "the stream sent nothing"
        call.cancel()
        try:
            for _ in call:
                pass
        except self.grpc.RpcError as e:
            assert e.code() == self.grpc.StatusCode.CANCELLED, e.code()
        rows = table.read_rows(ReadRowsQuery())
        assert len(rows) == 1005, len(rows)

    def change_stream_clients(self):
        """The generated (GAPIC) clients, which have the change stream
        methods the high-level client leaves out."""
        from google.cloud.bigtable_admin_v2.services.bigtable_table_admin import (
            BaseBigtableTableAdminClient,
        )
        from google.cloud.bigtable_admin_v2.services.bigtable_table_admin.transports import (
            BigtableTableAdminGrpcTransport,
        )
        from google.cloud.bigtable_v2.services.bigtable import BigtableClient
        from google.cloud.bigtable_v2.services.bigtable.transports import BigtableGrpcTransport

        admin = BaseBigtableTableAdminClient(
            transport=BigtableTableAdminGrpcTransport(channel=self.channel)
        )
        data = BigtableClient(transport=BigtableGrpcTransport(channel=self.channel))
        return admin, data

    def create_change_stream_table(self, admin, table_id, splits=()):
        """A table with family cf and a change stream kept one day; its
        name and the created table."""
        from google.cloud.bigtable_admin_v2 import types as admin_types

        parent = "projects/%s/instances/%s" % (PROJECT, INSTANCE)
        created = admin.create_table(request=admin_types.CreateTableRequest(
            parent=parent,
            table_id=table_id,
            table=admin_types.Table(
                column_families={"cf": admin_types.ColumnFamily()},
                change_stream_config=admin_types.ChangeStreamConfig(
                    retention_period={"seconds": 86400}
                ),
            ),
            initial_splits=[admin_types.CreateTableRequest.Split(key=k) for k in splits],
        ))
        return parent + "/tables/" + table_id, created

    def write_keys_in_a_window(self, data, name, keys):
        """Writes a cell to each key; a start time before the writes and an
        end time shortly after them."""
        import datetime

        now = lambda: datetime.datetime.now(datetime.timezone.utc)
        start = now() - datetime.timedelta(seconds=1)
        for key in keys:
            data.mutate_row(
                table_name=name,
                row_key=key,
                mutations=[self.v2.Mutation(set_cell=self.v2.Mutation.SetCell(
                    family_name="cf", column_qualifier=b"q", timestamp_micros=-1, value=b"v"))],
            )
        return start, now() + datetime.timedelta(milliseconds=300)

    def test_change_stream_partitions_and_a_read_up_to_an_end_time(self):
        admin, data = self.change_stream_clients()
        name, created = self.create_change_stream_table(admin, "cs")
        assert created.change_stream_config.retention_period.total_seconds() == 86400, created
        parts = list(data.generate_initial_change_stream_partitions(table_name=name))
        assert len(parts) == 1, parts
        assert parts[0].partition.row_range == self.v2.RowRange(), parts
        start, end = self.write_keys_in_a_window(data, name, (b"a", b"b"))
        request = self.v2.ReadChangeStreamRequest(
            table_name=name, partition=parts[0].partition, start_time=start, end_time=end
        )
        messages = list(data.read_change_stream(request=request, timeout=30))
        changes = [m.data_change for m in messages if "data_change" in m]
        assert [c.row_key for c in changes] == [b"a", b"b"], messages
        assert all(c.type_ == self.v2.ReadChangeStreamResponse.DataChange.Type.USER for c in changes)
        assert changes[0].chunks[0].mutation.set_cell.value == b"v", changes[0]
        assert changes[0].done and changes[0].token, changes[0]
        assert "close_stream" in messages[-1], messages[-1]
        assert messages[-1].close_stream.status.code == 0, messages[-1]

    def test_a_live_change_stream_sends_writes_as_they_commit(self):
        admin, data = self.change_stream_clients()
        name = "projects/%s/instances/%s/tables/cs" % (PROJECT, INSTANCE)
        read = self.channel.unary_stream(
            "/google.bigtable.v2.Bigtable/ReadChangeStream",
            request_serializer=self.v2.ReadChangeStreamRequest.serialize,
            response_deserializer=self.v2.ReadChangeStreamResponse.deserialize,
        )
        call = read(self.v2.ReadChangeStreamRequest(
            table_name=name, partition=self.v2.StreamPartition(row_range=self.v2.RowRange())))
        first = next(call)
        assert "heartbeat" in first, first
        assert first.heartbeat.continuation_token.token, first
        data.mutate_row(
            table_name=name,
            row_key=b"live",
            mutations=[self.v2.Mutation(delete_from_row=self.v2.Mutation.DeleteFromRow())],
        )
        change = next(m for m in call if "data_change" in m)
        assert change.data_change.row_key == b"live", change
        assert change.data_change.chunks[0].mutation.delete_from_family.family_name == "cf", change
        call.cancel()
        # A table without a change stream: FAILED_PRECONDITION.
        try:
            list(data.read_change_stream(request=self.v2.ReadChangeStreamRequest(
                table_name=self.table_name,
                partition=self.v2.StreamPartition(row_range=self.v2.RowRange())), retry=None))
        except Exception as e:
            assert e.grpc_status_code == self.grpc.StatusCode.FAILED_PRECONDITION, e
        else:
            raise AssertionError("read a change stream the table does not have")
        admin.delete_table(name=name)

    def test_change_stream_partitions_follow_the_tablets(self):
        """One partition per tablet; a read of a range that is not a
        partition (any more) ends with a close_stream naming the new
        partitions and the tokens to start them from (bigtable.proto,
        ReadChangeStreamResponse.CloseStream)."""
        admin, data = self.change_stream_clients()
        name, _ = self.create_change_stream_table(admin, "csplit", splits=(b"m",))
        parts = [p.partition for p in data.generate_initial_change_stream_partitions(table_name=name)]
        assert [(p.row_range.start_key_closed, p.row_range.end_key_open) for p in parts] == [
            (b"", b"m"), (b"m", b"")], parts
        start, end = self.write_keys_in_a_window(data, name, (b"a", b"z"))

        def keys(messages):
            return [m.data_change.row_key for m in messages if "data_change" in m]

        high = list(data.read_change_stream(request=self.v2.ReadChangeStreamRequest(
            table_name=name, partition=parts[1], start_time=start, end_time=end), timeout=30))
        assert keys(high) == [b"z"], high
        # The whole key space is not a partition of this table.
        whole = list(data.read_change_stream(request=self.v2.ReadChangeStreamRequest(
            table_name=name, partition=self.v2.StreamPartition(row_range=self.v2.RowRange()),
            start_time=start, end_time=end), timeout=30))
        assert len(whole) == 1 and "close_stream" in whole[0], whole
        close = whole[0].close_stream
        assert close.status.code == self.grpc.StatusCode.OUT_OF_RANGE.value[0], close
        assert list(close.new_partitions) == parts, close
        tokens = list(close.continuation_tokens)
        assert [t.partition for t in tokens] == parts, close
        low = list(data.read_change_stream(request=self.v2.ReadChangeStreamRequest(
            table_name=name, partition=parts[0],
            continuation_tokens=self.v2.StreamContinuationTokens(tokens=[tokens[0]]),
            end_time=end), timeout=30))
        assert keys(low) == [b"a"], low
        admin.delete_table(name=name)

    def test_sql_results_span_batches_and_carry_history(self):
        rows = list(self.data.execute_query(
            "SELECT _key, cf['c'] AS c FROM t WHERE STARTS_WITH(_key, b'big')",
            instance_id=INSTANCE,
        ))
        assert len(rows) == 1000, len(rows)
        assert rows[999]["_key"] == b"big00999" and len(rows[999]["c"]) == 4096
        [row] = list(self.data.execute_query(
            "SELECT cf['c'] AS history FROM t(with_history => TRUE) WHERE _key = b'r1'",
            instance_id=INSTANCE,
        ))
        [cell] = row["history"]
        assert cell["value"] == b"one", cell
        assert cell["timestamp"].timestamp() == 0.001, cell["timestamp"]

    def table_admin_client(self):
        """The admin client the library publishes (BigtableTableAdminClient),
        on the suite's channel."""
        from google.cloud.bigtable_admin_v2 import BigtableTableAdminClient
        from google.cloud.bigtable_admin_v2.services.bigtable_table_admin.transports import (
            BigtableTableAdminGrpcTransport,
        )

        return BigtableTableAdminClient(transport=BigtableTableAdminGrpcTransport(channel=self.channel))

    def test_authorized_views_through_the_admin_client(self):
        from google.api_core import exceptions
        from google.cloud.bigtable.data import ReadRowsQuery
        from google.cloud.bigtable_admin_v2 import types as admin_types
        from google.protobuf import field_mask_pb2

        admin = self.table_admin_client()
        name = self.table_name + "/authorizedViews/v"
        subset = admin_types.AuthorizedView.SubsetView(
            row_prefixes=[b"r1", b"r2"],
            family_subsets={"cf": admin_types.AuthorizedView.FamilySubsets(qualifier_prefixes=[b""])},
        )
        operation = admin.create_authorized_view(
            parent=self.table_name,
            authorized_view_id="v",
            authorized_view=admin_types.AuthorizedView(subset_view=subset),
        )
        created = operation.result(timeout=10)
        assert created.name == name, created
        assert list(created.subset_view.row_prefixes) == [b"r1", b"r2"], created
        assert created.etag, "a view answers its etag"
        meta = operation.metadata
        assert meta.original_request.authorized_view_id == "v", meta
        assert meta.finish_time.timestamp() >= meta.request_time.timestamp() > 0, meta
        # A client that polls finds the finished operation by its name.
        polled = admin._transport.operations_client.get_operation(operation.operation.name)
        assert polled.done and polled.response.type_url.endswith(
            "google.bigtable.admin.v2.AuthorizedView"), polled
        got = admin.get_authorized_view(name=name)
        assert got.subset_view == created.subset_view and got.etag == created.etag, got
        listed = [v.name for v in admin.list_authorized_views(parent=self.table_name)]
        assert listed == [name], listed
        # The data API sees only the view's rows and family.
        view = self.data.get_authorized_view(INSTANCE, TABLE, "v")
        keys = [r.row_key for r in view.read_rows(ReadRowsQuery())]
        assert keys == [b"r1", b"r2"], keys
        assert {c.family for r in view.read_rows(ReadRowsQuery()) for c in r.cells} == {"cf"}
        updated = admin.update_authorized_view(
            authorized_view=admin_types.AuthorizedView(name=name, deletion_protection=True),
            update_mask=field_mask_pb2.FieldMask(paths=["deletion_protection"]),
        ).result(timeout=10)
        assert updated.deletion_protection and updated.etag != created.etag, updated
        try:
            admin.delete_authorized_view(name=name)
        except exceptions.FailedPrecondition as e:
            assert "protect" in str(e), str(e)
        else:
            raise AssertionError("deleted a view under deletion protection")
        admin.update_authorized_view(
            authorized_view=admin_types.AuthorizedView(name=name, deletion_protection=False),
            update_mask=field_mask_pb2.FieldMask(paths=["deletion_protection"]),
        ).result(timeout=10)
        admin.delete_authorized_view(name=name)
        assert list(admin.list_authorized_views(parent=self.table_name)) == []
        try:
            admin.get_authorized_view(name=name)
        except exceptions.NotFound:
            pass
        else:
            raise AssertionError("a deleted view is still there")
        try:
            admin._transport.operations_client.get_operation("operations/nope")
        except exceptions.NotFound:
            pass
        else:
            raise AssertionError("found an operation that never ran")

    def test_update_table_turns_a_change_stream_on_and_off(self):
        from google.cloud.bigtable_admin_v2 import types as admin_types
        from google.protobuf import field_mask_pb2

        admin = self.table_admin_client()
        mask = field_mask_pb2.FieldMask(paths=["change_stream_config"])
        operation = admin.update_table(
            table=admin_types.Table(
                name=self.table_name,
                change_stream_config=admin_types.ChangeStreamConfig(retention_period={"seconds": 172800}),
            ),
            update_mask=mask,
        )
        table = operation.result(timeout=10)
        assert table.change_stream_config.retention_period.total_seconds() == 172800, table
        assert operation.metadata.name == self.table_name, operation.metadata
        got = admin.get_table(request={"name": self.table_name, "view": admin_types.Table.View.SCHEMA_VIEW})
        assert got.change_stream_config.retention_period.total_seconds() == 172800, got
        off = admin.update_table(table=admin_types.Table(name=self.table_name), update_mask=mask)
        assert "change_stream_config" not in off.result(timeout=10), off.result()
        got = admin.get_table(request={"name": self.table_name, "view": admin_types.Table.View.SCHEMA_VIEW})
        assert "change_stream_config" not in got, got

    def test_deletion_protection_keeps_the_table_and_its_families(self):
        from google.api_core import exceptions
        from google.cloud.bigtable_admin_v2 import types as admin_types
        from google.protobuf import field_mask_pb2

        admin = self.table_admin_client()
        mask = field_mask_pb2.FieldMask(paths=["deletion_protection"])
        schema = {"name": self.table_name, "view": admin_types.Table.View.SCHEMA_VIEW}

        def protect(on):
            table = admin.update_table(
                table=admin_types.Table(name=self.table_name, deletion_protection=on),
                update_mask=mask,
            ).result(timeout=10)
            assert table.deletion_protection == on, table

        protect(True)
        assert admin.get_table(request=schema).deletion_protection
        try:
            admin.delete_table(name=self.table_name)
        except exceptions.FailedPrecondition as e:
            assert "deletion protection" in str(e), str(e)
        else:
            raise AssertionError("deleted a table under deletion protection")
        drop = admin_types.ModifyColumnFamiliesRequest.Modification(id="cf", drop=True)
        try:
            admin.modify_column_families(name=self.table_name, modifications=[drop])
        except exceptions.FailedPrecondition:
            pass
        else:
            raise AssertionError("dropped a family of a table under deletion protection")
        assert "cf" in admin.get_table(request=schema).column_families
        protect(False)
        assert not admin.get_table(request=schema).deletion_protection

    def test_drop_row_range_and_delete_table(self):
        from google.cloud.bigtable.data import ReadRowsQuery

        t = self.instance.table(TABLE)
        t.drop_by_prefix(b"big")
        rows = self.data.get_table(INSTANCE, TABLE).read_rows(ReadRowsQuery())
        assert len(rows) == 5, len(rows)
        t.delete()
        assert list(self.instance.list_tables()) == []


def resident_bytes(pid):
    """The resident memory of a process (Linux)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS for %d" % pid)


def stalled_reader_does_not_hold_shutdown(tabletop):
    """A client that stops reading a big ReadRows stream holds little of
    the server's memory and does not keep a SIGTERM'd server alive: it
    exits 0 after its grace period (5 s)."""
    import time

    import grpc
    from google.cloud.bigtable_v2 import types as v2

    with own_server(tabletop) as (proc, addr):
        fill_big_table(b"x")
        channel = grpc.insecure_channel(addr)
        read = channel.unary_stream(
            "/google.bigtable.v2.Bigtable/ReadRows",
            request_serializer=v2.ReadRowsRequest.serialize,
            response_deserializer=v2.ReadRowsResponse.deserialize,
        )
        before = resident_bytes(proc.pid)
        call = read(v2.ReadRowsRequest(table_name="projects/p/instances/i/tables/t"))
        next(call)  # then stop reading 60 MB
        time.sleep(0.5)
        # ReadRows reads as it sends, a page or two ahead of the client: the
        # 60 MB answer is never held whole.
        grew = resident_bytes(proc.pid) - before
        assert grew < 20 << 20, "the server grew by %d bytes" % grew
        started = time.time()
        proc.terminate()
        code = proc.wait(timeout=30)
        took = time.time() - started
        channel.close()
        assert code == 0, code
        assert took < 15, took


def large_query_streams_in_flat_memory(tabletop):
    """ExecuteQuery over 60 MB of rows: the server reads and sends the
    result a batch at a time, so a client that has taken one row holds
    little of the server's memory, and the whole result still arrives,
    in order, through the official client's execute_query."""
    import time

    from google.cloud.bigtable.data import BigtableDataClient

    with own_server(tabletop) as (proc, _):
        fill_big_table(b"q")
        with BigtableDataClient(project=PROJECT) as data:
            before = resident_bytes(proc.pid)
            rows = iter(data.execute_query(
                "SELECT _key, cf['c'] AS c FROM t WHERE _key >= b'r000000'", instance_id=INSTANCE))
            first = next(rows)
            assert first["_key"] == b"r000000" and len(first["c"]) == 60000, first["_key"]
            time.sleep(0.5)
            grew = resident_bytes(proc.pid) - before
            assert grew < 20 << 20, "the server grew by %d bytes for one row" % grew
            keys = [first["_key"]] + [r["_key"] for r in rows]
            assert keys == [b"r%06d" % i for i in range(1000)], (len(keys), keys[-1])
            # LIMIT and OFFSET count across the server's pages.
            limited = [r["_key"] for r in data.execute_query(
                "SELECT _key, cf['c'] AS c FROM t LIMIT 3 OFFSET 997", instance_id=INSTANCE)]
            assert limited == [b"r000997", b"r000998", b"r000999"], limited


def parity_refuses_sql_as_the_emulator(tabletop):
    """Google's emulator answers PrepareQuery and ExecuteQuery with
    UNIMPLEMENTED ("the emulator does not currently support ..."); with
    --emulator-parity tabletop serve answers the same, so a team sees that
    its SQL tests cannot run on the emulator."""
    import grpc
    from google.cloud.bigtable_v2.services.bigtable import BigtableClient
    from google.cloud.bigtable_v2.services.bigtable.transports import BigtableGrpcTransport

    with own_server(tabletop, "--emulator-parity") as (_, addr):
        channel = grpc.insecure_channel(addr)
        try:
            client = BigtableClient(transport=BigtableGrpcTransport(channel=channel))
            request = {"instance_name": "projects/%s/instances/%s" % (PROJECT, INSTANCE), "query": "SELECT _key FROM t"}
            for method, call in [
                ("PrepareQuery", lambda: client.prepare_query(request=request)),
                ("ExecuteQuery", lambda: list(client.execute_query(request=request))),
            ]:
                try:
                    call()
                except Exception as e:  # the client's MethodNotImplemented
                    assert getattr(e, "grpc_status_code", None) == grpc.StatusCode.UNIMPLEMENTED, repr(e)
                    assert "the emulator does not currently support %s" % method in str(e), str(e)
                else:
                    raise AssertionError("%s answered under --emulator-parity" % method)
        finally:
            channel.close()


def logical_views_through_the_instance_admin_client(tabletop):
    """The logical view methods of BigtableInstanceAdmin, through the
    client the library publishes (BigtableInstanceAdminClient): create (a
    long-running operation, answered done), get, list, update, a query
    reading the view through ExecuteQuery, deletion protection, delete;
    the view kept in the state file across a server killed with SIGKILL;
    the other instance admin methods UNIMPLEMENTED with a sentence."""
    import signal
    import tempfile

    import grpc
    from google.api_core import exceptions
    from google.cloud.bigtable.data import BigtableDataClient, SetCell
    from google.cloud.bigtable_admin_v2 import BigtableInstanceAdminClient
    from google.cloud.bigtable_admin_v2 import types as admin_types
    from google.cloud.bigtable_admin_v2.services.bigtable_instance_admin.transports import (
        BigtableInstanceAdminGrpcTransport,
    )
    from google.protobuf import field_mask_pb2

    parent = "projects/%s/instances/%s" % (PROJECT, INSTANCE)
    name = parent + "/logicalViews/lv"

    def clients(addr):
        channel = grpc.insecure_channel(addr)
        admin = BigtableInstanceAdminClient(
            transport=BigtableInstanceAdminGrpcTransport(channel=channel))
        return channel, admin

    def query(addr, sql):
        os.environ["BIGTABLE_EMULATOR_HOST"] = addr
        with BigtableDataClient(project=PROJECT) as data:
            return [dict(r.fields) for r in data.execute_query(sql, instance_id=INSTANCE)]

    with tempfile.TemporaryDirectory() as work:
        state = os.path.join(work, "s.state")
        with own_server(tabletop, "--state", state) as (proc, addr):
            from google.cloud import bigtable

            bigtable.Client(project=PROJECT, admin=True).instance(INSTANCE).table(TABLE).create(
                column_families={"cf": None})
            with BigtableDataClient(project=PROJECT) as data:
                table = data.get_table(INSTANCE, TABLE)
                for key, value in [(b"a1", b"x"), (b"b1", b"y"), (b"a2", b"z")]:
                    table.mutate_row(key, SetCell("cf", b"q", value))
            channel, admin = clients(addr)
            try:
                operation = admin.create_logical_view(
                    parent=parent,
                    logical_view_id="lv",
                    logical_view=admin_types.LogicalView(
                        query="SELECT _key, cf['q'] AS q FROM t WHERE _key < b'b'"),
                )
                assert operation.done(), operation
                created = operation.result(timeout=10)
                assert created.name == name and created.etag, created
                got = admin.get_logical_view(name=name)
                assert got.query == created.query and got.etag == created.etag, got
                listed = [v.name for v in admin.list_logical_views(parent=parent)]
                assert listed == [name], listed
                rows = query(addr, "SELECT _key, q FROM lv ORDER BY _key")
                assert rows == [{"_key": b"a1", "q": b"x"}, {"_key": b"a2", "q": b"z"}], rows
                updated = admin.update_logical_view(
                    logical_view=admin_types.LogicalView(
                        name=name, query="SELECT _key FROM t", deletion_protection=True),
                    update_mask=field_mask_pb2.FieldMask(paths=["query", "deletion_protection"]),
                ).result(timeout=10)
                assert updated.deletion_protection and updated.etag != created.etag, updated
                try:
                    admin.delete_logical_view(name=name)
                except exceptions.GoogleAPICallError as e:
                    assert e.grpc_status_code == grpc.StatusCode.FAILED_PRECONDITION, repr(e)
                else:
                    raise AssertionError("a protected logical view was deleted")
                try:
                    admin.list_clusters(parent=parent)
                except exceptions.GoogleAPICallError as e:
                    assert e.grpc_status_code == grpc.StatusCode.UNIMPLEMENTED, repr(e)
                    assert "BigtableInstanceAdmin.ListClusters" in str(e), str(e)
                else:
                    raise AssertionError("ListClusters answered")
            finally:
                channel.close()
            # Killed: only what the state file kept on each change survives.
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        with own_server(tabletop, "--state", state) as (_, addr):
            channel, admin = clients(addr)
            try:
                kept = admin.get_logical_view(name=name)
                assert kept.query == "SELECT _key FROM t" and kept.deletion_protection, kept
                rows = query(addr, "SELECT _key FROM lv ORDER BY _key")
                assert [r["_key"] for r in rows] == [b"a1", b"a2", b"b1"], rows
                admin.update_logical_view(
                    logical_view=admin_types.LogicalView(name=name, deletion_protection=False),
                    update_mask=field_mask_pb2.FieldMask(paths=["deletion_protection"]),
                ).result(timeout=10)
                admin.delete_logical_view(name=name)
                assert list(admin.list_logical_views(parent=parent)) == []
            finally:
                channel.close()


def materialized_views_through_the_instance_admin_client(tabletop):
    """The materialized view methods of BigtableInstanceAdmin over the
    core's continuous views: create (a done operation), get, list, a query
    reading the view through ExecuteQuery that follows a later write,
    UpdateMaterializedView and deletion protection refused with
    FAILED_PRECONDITION (Tabletop's views have none), delete; the view kept
    in the state file across a server killed with SIGKILL."""
    import signal
    import tempfile
    import time

    import grpc
    from google.api_core import exceptions
    from google.cloud import bigtable
    from google.cloud.bigtable.data import BigtableDataClient, SetCell
    from google.cloud.bigtable_admin_v2 import BigtableInstanceAdminClient
    from google.cloud.bigtable_admin_v2 import types as admin_types
    from google.cloud.bigtable_admin_v2.services.bigtable_instance_admin.transports import (
        BigtableInstanceAdminGrpcTransport,
    )
    from google.protobuf import field_mask_pb2

    parent = "projects/%s/instances/%s" % (PROJECT, INSTANCE)
    name = parent + "/materializedViews/mv"
    query = "SELECT cf['q'] AS q, COUNT(*) AS n FROM t GROUP BY q"

    def counts(addr):
        os.environ["BIGTABLE_EMULATOR_HOST"] = addr
        with BigtableDataClient(project=PROJECT) as data:
            rows = data.execute_query("SELECT q, n FROM mv", instance_id=INSTANCE)
            return {r["q"]: r["n"] for r in rows}

    def expect_code(code, call):
        try:
            call()
        except exceptions.GoogleAPICallError as e:
            assert e.grpc_status_code == code, repr(e)
            return str(e)
        raise AssertionError("answered instead of %s" % code)

    with tempfile.TemporaryDirectory() as work:
        state = os.path.join(work, "s.state")
        with own_server(tabletop, "--state", state) as (proc, addr):
            bigtable.Client(project=PROJECT, admin=True).instance(INSTANCE).table(TABLE).create(
                column_families={"cf": None})
            with BigtableDataClient(project=PROJECT) as data:
                table = data.get_table(INSTANCE, TABLE)
                for key, value in [(b"a1", b"x"), (b"a2", b"x"), (b"b1", b"y")]:
                    table.mutate_row(key, SetCell("cf", b"q", value))
            channel = grpc.insecure_channel(addr)
            admin = BigtableInstanceAdminClient(
                transport=BigtableInstanceAdminGrpcTransport(channel=channel))
            try:
                operation = admin.create_materialized_view(
                    parent=parent, materialized_view_id="mv",
                    materialized_view=admin_types.MaterializedView(query=query))
                assert operation.done(), operation
                created = operation.result(timeout=10)
                assert created.name == name and created.query == query, created
                assert admin.get_materialized_view(name=name).query == query
                listed = [v.name for v in admin.list_materialized_views(parent=parent)]
                assert listed == [name], listed
                assert counts(addr) == {b"x": 2, b"y": 1}, counts(addr)
                with BigtableDataClient(project=PROJECT) as data:
                    data.get_table(INSTANCE, TABLE).mutate_row(b"b2", SetCell("cf", b"q", b"y"))
                # The view follows the write in the background.
                deadline = time.time() + 20
                while counts(addr) != {b"x": 2, b"y": 2} and time.time() < deadline:
                    time.sleep(0.2)
                assert counts(addr) == {b"x": 2, b"y": 2}, counts(addr)
                message = expect_code(grpc.StatusCode.FAILED_PRECONDITION, lambda: admin.update_materialized_view(
                    materialized_view=admin_types.MaterializedView(name=name, deletion_protection=True),
                    update_mask=field_mask_pb2.FieldMask(paths=["deletion_protection"])))
                assert "deletion protection" in message, message
                expect_code(grpc.StatusCode.FAILED_PRECONDITION, lambda: admin.create_materialized_view(
                    parent=parent, materialized_view_id="protected",
                    materialized_view=admin_types.MaterializedView(query=query, deletion_protection=True)))
                expect_code(grpc.StatusCode.NOT_FOUND,
                            lambda: admin.get_materialized_view(name=parent + "/materializedViews/nope"))
            finally:
                channel.close()
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        with own_server(tabletop, "--state", state) as (_, addr):
            channel = grpc.insecure_channel(addr)
            admin = BigtableInstanceAdminClient(
                transport=BigtableInstanceAdminGrpcTransport(channel=channel))
            try:
                assert admin.get_materialized_view(name=name).query == query
                assert counts(addr) == {b"x": 2, b"y": 2}, counts(addr)
                admin.delete_materialized_view(name=name)
                assert list(admin.list_materialized_views(parent=parent)) == []
            finally:
                channel.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tabletop", required=True)
    parser.add_argument("-k", dest="only", default="",
                        help="run only the tests whose names contain this")
    args = parser.parse_args()
    proc, addr = start(args.tabletop)
    os.environ["BIGTABLE_EMULATOR_HOST"] = addr
    # The client warns on every connection that it talks to an emulator.
    warnings.filterwarnings("ignore", "Connecting to Bigtable emulator")
    passed = failed = 0
    try:
        suite = Suite(addr, args.tabletop)
        tests = [n for n in Suite.__dict__ if n.startswith("test_") and args.only in n]
        for name in tests:
            try:
                getattr(suite, name)()
                print("ok   " + name)
                passed += 1
            except Exception:
                print("FAIL " + name)
                traceback.print_exc(file=sys.stdout)
                failed += 1
        suite.close()
        for own_server in [
            stalled_reader_does_not_hold_shutdown,
            large_query_streams_in_flat_memory,
            parity_refuses_sql_as_the_emulator,
            logical_views_through_the_instance_admin_client,
            materialized_views_through_the_instance_admin_client,
        ]:
            if args.only not in own_server.__name__:
                continue
            try:
                own_server(args.tabletop)
                print("ok   " + own_server.__name__)
                passed += 1
            except Exception:
                print("FAIL " + own_server.__name__)
                traceback.print_exc(file=sys.stdout)
                failed += 1
    finally:
        proc.terminate()
        code = proc.wait(timeout=10)
        if code != 0:
            print("FAIL tabletop serve exited %s after SIGTERM" % code)
            failed += 1
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
