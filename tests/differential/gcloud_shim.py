"""A stand-in for `gcloud bigtable instances tables create` that reads its
arguments with gcloud's own code and sends the request to the emulator.

The emulator speaks gRPC only, and gcloud talks REST, so the real gcloud
cannot reach it. This shim takes the command line of an exported gcloud
script, parses `--column-families` and `--splits` with the functions
gcloud itself uses (`googlecloudsdk.api_lib.bigtable.tables` and the
`ArgList` type, escaping included) into gcloud's CreateTableRequest, and
sends that request (its JSON, which is the REST form) to the emulator at
BIGTABLE_EMULATOR_HOST with the official client. Anything else on the
command line is refused, so a script that needs more than this is noticed.

Usage (as `gcloud`): gcloud_shim.py bigtable instances tables create TABLE
    --project=P --instance=I --column-families=LIST [--splits=LIST]
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.environ.get("GCLOUD_SDK_LIB", "/usr/lib/google-cloud-sdk/lib")


def main(argv):
    words = list(argv)
    if len(words) < 5 or words[:4] != ["bigtable", "instances", "tables", "create"]:
        print("gcloud shim: only `gcloud bigtable instances tables create` is supported: %s" % words, file=sys.stderr)
        return 2
    table = words[4]
    flags = {}
    for w in words[5:]:
        if not w.startswith("--") or "=" not in w:
            print("gcloud shim: unexpected argument %r" % w, file=sys.stderr)
            return 2
        name, value = w[2:].split("=", 1)
        if name not in ("project", "instance", "column-families", "splits"):
            print("gcloud shim: unsupported flag --%s" % name, file=sys.stderr)
            return 2
        flags[name] = value
    # The official client first (the `google` namespace must be the virtual
    # environment's), then gcloud's own parsing, whose packages come after
    # the environment's.
    sys.path.insert(0, HERE)
    from oracle import Oracle

    sys.path.append(SDK)
    sys.path.append(os.path.join(SDK, "third_party"))
    from apitools.base.py import encoding
    from googlecloudsdk.api_lib.bigtable import tables, util
    from googlecloudsdk.calliope import arg_parsers

    messages = util.GetAdminMessages()
    families = tables.ParseColumnFamilies(arg_parsers.ArgList()(flags["column-families"]))
    req = messages.CreateTableRequest(tableId=table, table=messages.Table(columnFamilies=families))
    if "splits" in flags:
        req.initialSplits = tables.MakeSplits(arg_parsers.ArgList()(flags["splits"]))
    body = json.loads(encoding.MessageToJson(req))
    body["parent"] = "projects/%s/instances/%s" % (flags["project"], flags["instance"])

    oracle = Oracle(os.environ["BIGTABLE_EMULATOR_HOST"])
    try:
        answer = oracle.call("createTable", body)
    finally:
        oracle.close()
    if "error" in answer:
        print("gcloud shim: createTable failed: %s" % answer, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
