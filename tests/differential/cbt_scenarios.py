"""cbt scenarios: each runs its commands, in order, through the real `cbt`
(against the emulator) and through `tabletop cbt` (against a fresh state
file), one process per command, and compares stdout, stderr and the exit
status of every command (see README.md for the normalisation).

Each scenario gets its own instance (`-instance cNNN`), so `ls` sees only
its tables; outputs are recorded with the instance spelled `i`.

Known differences between the emulator and production Bigtable are written
as `diverges` on the command: Tabletop must print what production prints,
and the emulator must still print what it printed when the entry was
written. Avoided on purpose: GC policies together with data they would
collect (the emulator's GC runs at random times), `workers=` above 1 (log
lines name random workers).
"""

from dsl import outcome, run

SCENARIOS = []


def scenario(name, steps, files=None):
    SCENARIOS.append({"name": name, "steps": [s if isinstance(s, dict) else run(s) for s in steps], "files": files or {}})


MOBILE = "mobile-time-series"

# ------------------------------------------------------------ the seeds

scenario("mobile time series: rows per phone and day, read by prefix", [
    "createtable %s families=stats_summary,stats_detail" % MOBILE,
    "set %s phone#4c410523#20200501 stats_summary:connected_cell=1@1588291200000000 stats_summary:connected_wifi=1@1588291200000000 stats_summary:os_build=PQ2A.190405.003@1588291200000000" % MOBILE,
    "set %s phone#4c410523#20200502 stats_summary:connected_cell=1@1588377600000000 stats_summary:connected_wifi=1@1588377600000000 stats_summary:os_build=PQ2A.190405.004@1588377600000000" % MOBILE,
    "set %s phone#5c10102#20200501 stats_summary:connected_cell=1@1588291200000000 stats_summary:connected_wifi=0@1588291200000000 stats_summary:os_build=PQ2A.190401.002@1588291200000000" % MOBILE,
    "set %s phone#5c10102#20200502 stats_summary:connected_cell=1@1588377600000000 stats_summary:connected_wifi=1@1588377600000000 stats_summary:os_build=PQ2A.190406.000@1588377600000000" % MOBILE,
    "read %s prefix=phone#4c410523" % MOBILE,
    "read %s prefix=phone#5c10102 columns=stats_summary:os_build" % MOBILE,
    "count %s" % MOBILE,
    "lookup %s phone#5c10102#20200502 columns=stats_summary:connected_wifi" % MOBILE,
])

scenario("mobile time series: detail family, day ranges", [
    "createtable %s families=stats_summary,stats_detail" % MOBILE,
    "set %s phone#4c410523#20190501 stats_detail:os_name=android@1556668800000000 stats_detail:os_version=9@1556668800000000" % MOBILE,
    "set %s phone#4c410523#20190502 stats_detail:os_name=android@1556755200000000 stats_detail:os_version=9@1556755200000000" % MOBILE,
    "set %s phone#4c410523#20190601 stats_detail:os_name=android@1559347200000000 stats_detail:os_version=10@1559347200000000" % MOBILE,
    "set %s phone#4c410523#20190701 stats_detail:os_name=android@1561939200000000" % MOBILE,
    "read %s start=phone#4c410523#20190501 end=phone#4c410523#20190601" % MOBILE,
    "read %s start=phone#4c410523#20190502" % MOBILE,
    "read %s end=phone#4c410523#20190502" % MOBILE,
    "read %s prefix=phone columns=stats_detail:os_name,os_version count=2" % MOBILE,
])

scenario("mobile time series: versions and cells-per-column", [
    "createtable %s families=stats_summary" % MOBILE,
    "set %s phone#4c410523#20200501 stats_summary:os_build=PQ2A.190405.001@1588291200000000" % MOBILE,
    "set %s phone#4c410523#20200501 stats_summary:os_build=PQ2A.190405.002@1588294800000000" % MOBILE,
    "set %s phone#4c410523#20200501 stats_summary:os_build=PQ2A.190405.003@1588298400000000" % MOBILE,
    "read %s" % MOBILE,
    "read %s cells-per-column=1" % MOBILE,
    "lookup %s phone#4c410523#20200501 cells-per-column=2" % MOBILE,
])

scenario("mobile time series: reversed scans", [
    "createtable %s families=stats_summary" % MOBILE,
    "set %s phone#4c410523#20200501 stats_summary:os_build=A@1588291200000000" % MOBILE,
    "set %s phone#4c410523#20200502 stats_summary:os_build=B@1588377600000000" % MOBILE,
    "set %s phone#4c410523#20200503 stats_summary:os_build=C@1588464000000000" % MOBILE,
    "set %s phone#5c10102#20200501 stats_summary:os_build=D@1588291200000000" % MOBILE,
    "read %s reversed=true" % MOBILE,
    "read %s prefix=phone#4c410523 reversed=true count=2" % MOBILE,
    "read %s start=phone#4c410523#20200502 end=phone#5c10102 reversed=true" % MOBILE,
])

scenario("mobile time series: the newest reading first with a reversed timestamp", [
    "createtable %s families=stats_summary" % MOBILE,
    "set %s phone#4c410523#9223370448563575807 stats_summary:os_build=newer@1588291200000000" % MOBILE,
    "set %s phone#4c410523#9223370448649975807 stats_summary:os_build=older@1588204800000000" % MOBILE,
    "read %s prefix=phone#4c410523 count=1" % MOBILE,
])

scenario("multi-tenant: one prefix per tenant", [
    "createtable %s families=stats_summary" % MOBILE,
    "set %s altostrat#phone#4c410523#20200501 stats_summary:os_build=PQ2A.190405.003@1588291200000000" % MOBILE,
    "set %s altostrat#phone#4c410523#20200502 stats_summary:os_build=PQ2A.190405.004@1588377600000000" % MOBILE,
    "set %s examplepetstore#phone#4c410523#20200501 stats_summary:os_build=PQ2A.190401.002@1588291200000000" % MOBILE,
    "set %s examplepetstore#phone#5c10102#20200501 stats_summary:os_build=PQ2A.190406.000@1588291200000000" % MOBILE,
    "read %s prefix=altostrat#" % MOBILE,
    "read %s prefix=examplepetstore#phone#5c10102" % MOBILE,
    "count %s prefix=examplepetstore#" % MOBILE,
    "count %s prefix=cymbal#" % MOBILE,
])

scenario("multi-tenant: deleting one tenant's rows", [
    "createtable %s families=stats_summary" % MOBILE,
    "set %s altostrat#phone#1 stats_summary:os_build=a@1000" % MOBILE,
    "set %s altostrat#phone#2 stats_summary:os_build=b@1000" % MOBILE,
    "set %s examplepetstore#phone#1 stats_summary:os_build=c@1000" % MOBILE,
    "deleterow %s altostrat#phone#1" % MOBILE,
    "deleterow %s altostrat#phone#2" % MOBILE,
    "read %s" % MOBILE,
    "count %s prefix=altostrat#" % MOBILE,
])

scenario("reversed domain names", [
    "createtable web families=content,anchor",
    "set web com.google.maps content:html=maps@1000 anchor:cnnsi.com=CNN@1000",
    "set web com.google.www content:html=search@1000",
    "set web com.example.www content:html=example@1000 anchor:my.look.ca=look@1000",
    "set web org.wikipedia.en content:html=wiki@1000",
    "read web prefix=com.google.",
    "read web start=com. end=com.z keys-only=true",
    "count web prefix=org.",
    "lookup web com.example.www columns=anchor:my.look.ca",
])

scenario("friends as column qualifiers", [
    "createtable social families=friends,profile",
    "set social user#alice friends:bob=1@1000 friends:carol=1@1000 friends:dave=1@1000 profile:name=Alice@1000",
    "set social user#bob friends:alice=1@1000 profile:name=Bob@1000",
    "set social user#carol friends:alice=1@1000 friends:bob=1@1000 profile:name=Carol@1000",
    "lookup social user#alice columns=friends:",
    "read social columns=friends:alice",
    "deletecolumn social user#alice friends dave",
    "lookup social user#alice",
    "read social columns=profile:name keys-only=true",
])

scenario("product catalog: one row per product", [
    "createtable catalog families=product,price",
    "set catalog product#shoes#1234 product:name=Runner@1000 product:color=red@1000 price:usd=59.99@1000",
    "set catalog product#shoes#2345 product:name=Trail@1000 product:color=blue@1000 price:usd=89.00@1000",
    "set catalog product#shirts#3456 product:name=Tee@1000 product:size=M@1000 price:usd=15.00@1000",
    "read catalog prefix=product#shoes#",
    "read catalog regex=product#sh.*#[0-9]{4} columns=product:name",
    "lookup catalog product#shirts#3456 columns=price:usd,product:size",
    "count catalog",
])

scenario("video comments: a single table for videos and their comments", [
    "createtable media families=video,comment",
    "set media video#v1 video:title=Intro@1000 video:length=300@1000",
    "set media video#v1#comment#0001 comment:user=ana@1000 comment:text=nice@1000",
    "set media video#v1#comment#0002 comment:user=bo@2000 comment:text=thanks@2000",
    "set media video#v2 video:title=Advanced@1000",
    "set media video#v2#comment#0001 comment:user=cy@3000 comment:text=wow@3000",
    "read media prefix=video#v1#comment#",
    "read media prefix=video#v1 columns=video:title",
    "read media regex=video#v[0-9]+ keys-only=true",
    "count media prefix=video#v2",
])

scenario("invoices and payments: an adjacency list", [
    "createtable billing families=invoice,payment",
    "set billing customer#1#invoice#2020-001 invoice:amount=100@1000 invoice:status=open@1000",
    "set billing customer#1#invoice#2020-002 invoice:amount=250@1000 invoice:status=paid@1000",
    "set billing customer#1#payment#p-77 payment:amount=250@2000 payment:invoice=2020-002@2000",
    "set billing customer#2#invoice#2020-003 invoice:amount=75@1000 invoice:status=open@1000",
    "read billing prefix=customer#1#invoice#",
    "read billing prefix=customer#1# columns=payment:",
    "read billing start=customer#1 end=customer#2 keys-only=true",
    "lookup billing customer#2#invoice#2020-003 columns=invoice:status",
])

scenario("time buckets: many cells in one row per hour", [
    "createtable metrics families=m",
    "set metrics sensor#7#2020050100 m:0000=12@1588291200000000 m:0015=14@1588292100000000 m:0030=11@1588293000000000 m:0045=13@1588293900000000",
    "set metrics sensor#7#2020050101 m:0000=15@1588294800000000",
    "read metrics prefix=sensor#7#20200501",
    "read metrics columns=m:0030 keys-only=true",
])

scenario("field promotion: the user id in the key", [
    "createtable users families=info",
    "set users user#00042#email info:value=ana@example.com@1000",
    "set users user#00042#name info:value=Ana@1000",
    "set users user#00043#name info:value=Bo@1000",
    "read users prefix=user#00042#",
    "read users regex=user#0004[23]#name",
])

# ------------------------------------------------------- table admin

scenario("createtable with families and ls", [
    "createtable t1 families=cf",
    "createtable t2 families=a,b,c",
    "ls",
    "ls t2",
    "ls t1",
])

scenario("createtable: the table exists already", [
    "createtable t families=cf",
    "createtable t families=cf",
    "ls",
])

scenario("createtable: pre-split with splits=", [
    "createtable t families=cf splits=g,n,t",
    "set t a cf:q=1@1000",
    "set t m cf:q=2@1000",
    "set t z cf:q=3@1000",
    "read t keys-only=true",
    "count t",
])

scenario("createtable: usage mistakes", [
    "createtable",
    "createtable t bogus=1",
    "createtable t nokey",
    "ls",
])

scenario("createtable: GC policies in families=", [
    "createtable t \"families=a:maxversions=1,b:maxage=10d,c:never,d:maxage=1d&&maxversions=2,e:maxage=1d||maxversions=3\"",
    "ls t",
])

scenario("createtable: aggregate families", [
    "createtable counters \"families=views:never:intsum,low:never:intmin,high:never:intmax,uniq:never:inthll\"",
    "ls counters",
])

scenario("createtable: table ids", [
    "createtable ok_name-1.x families=cf",
    {"cmd": "createtable 'bad name' families=cf", "diverges": {
        "reason": "the emulator accepts any table id; production requires [_a-zA-Z0-9][-_.a-zA-Z0-9]*",
        "emulator": outcome(),
        "production": outcome(stderr="Creating table: rpc error: code = InvalidArgument desc = table id \"bad name\" must match [_a-zA-Z0-9][-_.a-zA-Z0-9]*\n", exit=1),
        "serve": outcome(stderr="Creating table: rpc error: code = InvalidArgument desc = request.tableId: table id \"bad name\" must match [_a-zA-Z0-9][-_.a-zA-Z0-9]*\n", exit=1),
    }},
    {"cmd": "ls", "diverges": {
        "reason": "the table with the bad id exists only in the emulator (see above)",
        "emulator": outcome(stdout="bad name\nok_name-1.x\n"),
        "production": outcome(stdout="ok_name-1.x\n"),
    }},
])

scenario("createfamily and deletefamily", [
    "createtable t",
    "createfamily t plain",
    "createfamily t versioned:maxversions=3",
    "createfamily t aged:maxage=36h",
    "createfamily t total:never:intsum",
    "ls t",
    "deletefamily t aged",
    "ls t",
])

# cbt reads createfamily's second argument as family[:gcpolicy[:type]]: a
# type alone (`agg:intsum`) is read as a GC policy and refused in the GC
# parser's words, a part after the type is ignored (and so is the type
# then: cbt creates a plain family), and the policy may be an expression.
scenario("createfamily: GC policy and type forms", [
    "createtable t",
    "createfamily t agg:intsum",
    "createfamily t bad:foo",
    "createfamily t total:never:intsum",
    "createfamily t capped:maxversions=1:intsum",
    "createfamily t 'either:maxversions=1 || maxage=1d'",
    "createfamily t extra:never:inthll:x",
    "ls t",
])

scenario("createfamily: the family exists already", [
    "createtable t families=cf",
    "createfamily t cf",
    "createfamily t",
    "createfamily nope cf",
])

scenario("deletefamily removes its cells", [
    "createtable t families=keep,drop",
    "set t r keep:a=1@1000 drop:b=2@1000",
    "set t only-drop drop:c=3@1000",
    "deletefamily t drop",
    "read t",
    "count t",
    "ls t",
])

scenario("deletefamily: mistakes", [
    "createtable t families=cf",
    "deletefamily t",
    "deletefamily nope cf",
])

scenario("setgcpolicy: the policy forms", [
    "createtable t families=cf",
    "setgcpolicy t cf maxversions=3",
    "ls t",
    "setgcpolicy t cf maxage=10d",
    "ls t",
    "setgcpolicy t cf maxage=10d or maxversions=1",
    "ls t",
    "setgcpolicy t cf maxage=10d and maxversions=1 force",
    "ls t",
    "setgcpolicy t cf never",
    "ls t",
])

scenario("setgcpolicy: units and nesting", [
    "createtable t families=cf",
    "setgcpolicy t cf maxage=90m",
    "ls t",
    "setgcpolicy t cf maxage=45s",
    "ls t",
    "setgcpolicy t cf force \"maxage=1d || (maxage=3d && maxversions=100)\"",
    "ls t",
])

scenario("setgcpolicy: mistakes", [
    "createtable t families=cf",
    "setgcpolicy t cf",
    "setgcpolicy t cf maxversions=x",
    "setgcpolicy t cf maxage=1x",
    "setgcpolicy t cf maxage=1d maxversions=1",
    "setgcpolicy nope cf maxversions=1",
    "ls t",
])

scenario("deletetable and ls", [
    "createtable t families=cf",
    "createtable u",
    "ls",
    "deletetable t",
    "ls",
    "deletetable t",
    "deletetable",
    "read t",
])

scenario("ls: many families", [
    "createtable wide families=f01,f02,f03,f04,f05,f06,f07,f08,f09,f10,f11,f12",
    "ls wide",
    "ls wide extra",
    "ls nope",
])

# ------------------------------------------------------------ writes

scenario("set: several cells and versions in one command", [
    "createtable t families=cf,other",
    "set t r cf:a=1@1000 cf:a=2@2000 cf:b=3@1000 other:c=4@3000",
    "read t",
    "lookup t r columns=cf:a cells-per-column=1",
])

scenario("set: argument forms", [
    "createtable t families=cf",
    "set t r ::cf:c=v@1000",
    "set t r cf:hex=x@0x3e8",
    "set t r cf:under=y@1_000",
    "set t r cf:at=value@with@2000",
    "set t r \"cf:spaces=a b c@3000\"",
    "read t",
])

scenario("set: usage mistakes", [
    "createtable t families=cf",
    "set t",
    "set t r",
    "set t r nocolon",
    "set t r cf:q",
    "set nope r cf:q=1@1000",
])

scenario("set: an unknown family", [
    "createtable t families=cf",
    {"cmd": "set t r nope:q=1@1000", "diverges": {
        "reason": "the emulator answers UNKNOWN \"unknown family\"; production answers NOT_FOUND",
        "emulator": outcome(stderr="Applying mutation: rpc error: code = Unknown desc = unknown family \"nope\"\n", exit=1),
        "production": outcome(stderr="Applying mutation: rpc error: code = NotFound desc = mutation 0: column family \"nope\" does not exist in this table\n", exit=1),
    }},
    "count t",
])

# `read t` after a `set t r cf:a=1@1000 BAD` whose second mutation is
# refused: the emulator kept the first, production kept neither.
READ_AFTER_PARTIAL_WRITE = {"cmd": "read t", "diverges": {
    "reason": "the emulator applied the mutations before the invalid one; production applies all or none",
    "emulator": outcome(stdout="----------------------------------------\nr\n  cf:a                                     @ 1970/01/01-00:00:00.001000\n    \"1\"\n\n"),
    "production": outcome(),
}}

scenario("set: all mutations of a row or none", [
    "createtable t families=cf",
    {"cmd": "set t r cf:a=1@1000 nope:b=2@1000", "diverges": {
        "reason": "the emulator answers UNKNOWN; production answers NOT_FOUND and applies nothing",
        "emulator": outcome(stderr="Applying mutation: rpc error: code = Unknown desc = unknown family \"nope\"\n", exit=1),
        "production": outcome(stderr="Applying mutation: rpc error: code = NotFound desc = mutation 1: column family \"nope\" does not exist in this table\n", exit=1),
    }},
    READ_AFTER_PARTIAL_WRITE,
])

# cbt (through the Go client) truncates every timestamp but -1 to
# milliseconds before it sends the mutation, so `@1999` writes at 1000 on
# the emulator and on production alike; the server never sees 1999.
scenario("set: cbt truncates timestamps to milliseconds", [
    "createtable t families=cf",
    "set t r cf:a=1@1001",
    "set t r cf:b=2@1999",
    "read t",
    "createtable c families=n:never:intsum",
    "addtocell c r n:q=5@1999",
    "read c",
])

scenario("set: server timestamps", [
    "createtable t families=cf",
    "set t r cf:a=now",
    "set t r cf:b=also@-1",
    "read t",
])

scenario("addtocell: an intsum counter", [
    "createtable counters families=views:never:intsum",
    "addtocell counters page#home views:total=5@1000 views:total=7@1000",
    "addtocell counters page#home views:total=0x10@1000 views:today=1@2000",
    "read counters",
    "addtocell counters page#home views:total=-40@1000",
    "lookup counters page#home",
])

scenario("addtocell: intmin and intmax", [
    "createtable counters \"families=low:never:intmin,high:never:intmax\"",
    "addtocell counters page#home low:v=30@1000 low:v=12@1000 low:v=50@1000",
    "addtocell counters page#home high:v=30@1000 high:v=90@1000 high:v=50@1000",
    {"cmd": "lookup counters page#home", "diverges": {
        "reason": "the emulator does not aggregate intmin/intmax families (the last input wins); production keeps the minimum (12) and the maximum (90)",
        "emulator": outcome(stdout='----------------------------------------\npage#home\n  high:v                                   @ 1970/01/01-00:00:00.001000\n    "\\x00\\x00\\x00\\x00\\x00\\x00\\x002"\n  low:v                                    @ 1970/01/01-00:00:00.001000\n    "\\x00\\x00\\x00\\x00\\x00\\x00\\x002"\n\n'),
        "production": outcome(stdout='----------------------------------------\npage#home\n  high:v                                   @ 1970/01/01-00:00:00.001000\n    "\\x00\\x00\\x00\\x00\\x00\\x00\\x00Z"\n  low:v                                    @ 1970/01/01-00:00:00.001000\n    "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\f"\n\n'),
    }},
])

scenario("addtocell: mistakes", [
    "createtable counters families=views:never:intsum,plain",
    "addtocell counters page#home views:total=abc",
    "addtocell counters page#home",
    "addtocell nope page#home views:total=1@1000",
])

# ------------------------------------------------------------- reads

scenario("lookup: a missing row and a missing table", [
    "createtable t families=cf",
    "lookup t nothing",
    "lookup nope r",
    "lookup t",
])

scenario("lookup: columns and versions", [
    "createtable t families=cf,other",
    "set t r cf:a=1@1000 cf:a=2@2000 cf:a=3@3000 cf:b=4@1000 other:a=5@1000",
    "lookup t r columns=cf:a",
    "lookup t r columns=cf:a,other:a cells-per-column=1",
    "lookup t r columns=other:",
    "lookup t r columns=cf",
])

scenario("read: count= and ranges", [
    "createtable t families=cf",
    "set t a cf:q=1@1000",
    "set t b cf:q=2@1000",
    "set t c cf:q=3@1000",
    "set t d cf:q=4@1000",
    "read t count=2",
    "read t start=b end=d",
    "read t start=c end=b",
    "read t start=b count=0",
    "read t prefix=",
])

scenario("read: regex= over row keys", [
    "createtable t families=cf",
    "set t user#1 cf:q=1@1000",
    "set t user#22 cf:q=2@1000",
    "set t admin#3 cf:q=3@1000",
    "read t regex=user#[0-9]",
    "read t regex=.*#2.*",
    "read t regex=user keys-only=true",
])

scenario("read: keys-only and include-stats", [
    "createtable t families=cf",
    "set t a cf:q=1@1000 cf:r=2@1000",
    "set t b cf:q=3@1000",
    "read t keys-only=true",
    "read t keys-only=false",
    "read t keys-only=maybe",
])

scenario("read: argument mistakes", [
    "createtable t families=cf",
    "read",
    "read t count=x",
    "read t bogus=1",
    "read t cells-per-column=x",
    "read nope",
])

scenario("read: columns= with several families", [
    "createtable t families=a,b,c",
    "set t r a:x=1@1000 a:y=2@1000 b:x=3@1000 c:z=4@1000",
    "read t columns=a:x,b:x",
    "read t columns=c:",
    "read t columns=a:y,c:z cells-per-column=1",
])

scenario("count: prefixes, ranges and mistakes", [
    "createtable t families=cf",
    "count t",
    "set t a#1 cf:q=1@1000",
    "set t a#2 cf:q=1@1000 cf:r=2@1000",
    "set t b#1 cf:q=1@1000",
    "count t",
    "count t prefix=a#",
    "count t prefix=zzz",
    "count",
    "count nope",
])

# ----------------------------------------------------------- deletes

scenario("deletecolumn", [
    "createtable t families=cf,other",
    "set t r cf:a=1@1000 cf:a=2@2000 cf:b=3@1000 other:a=4@1000",
    "deletecolumn t r cf a",
    "read t",
    "deletecolumn t r cf missing",
    "deletecolumn t no-such-row cf a",
    "deletecolumn t r cf",
    "deletecolumn nope r cf a",
])

scenario("deleterow", [
    "createtable t families=cf",
    "set t r1 cf:a=1@1000",
    "set t r2 cf:a=2@1000",
    "deleterow t r1",
    "read t",
    "deleterow t r1",
    "deleterow t",
    "deleterow nope r",
    "count t",
])

scenario("deleteallrows", [
    "createtable t families=cf",
    "set t a cf:q=1@1000",
    "set t b cf:q=2@1000",
    "count t",
    "deleteallrows t",
    "count t",
    "ls t",
    "deleteallrows nope",
])

# ------------------------------------------------------------ import

MOBILE_CSV = """\
,stats_summary,stats_summary,stats_detail
,os_build,connected_wifi,os_name
phone#4c410523#20200501,PQ2A.190405.003,1,android
phone#4c410523#20200502,PQ2A.190405.004,0,android
phone#5c10102#20200501,PQ2A.190401.002,1,
"""

scenario("import: the mobile time series from CSV", [
    "createtable %s families=stats_summary,stats_detail" % MOBILE,
    "import %s data.csv" % MOBILE,
    "count %s" % MOBILE,
    "read %s columns=stats_detail:os_name" % MOBILE,
], files={"data.csv": MOBILE_CSV})

scenario("import: value-encoded timestamps and batches", [
    "createtable t families=cf",
    "import t ts.csv timestamp=value-encoded batch-size=2",
    "read t",
], files={"ts.csv": ",cf,cf\n,a,b\nr1,x@1000,y@2000\nr2,z@3000,\nr3,,w@4000\n"})

scenario("import: column-family= and skipped rows", [
    "createtable t families=cf",
    "import t plain.csv column-family=cf",
    "read t",
], files={"plain.csv": "rowkey,a,b\nr1,1,2\n,3,4\nr2,,\nr3,5,\n"})

scenario("import: mistakes", [
    "createtable t families=cf",
    "import t",
    "import t missing.csv",
    "import t ok.csv batch-size=x",
    "import t ok.csv timestamp=later",
    "import nope ok.csv",
    "count t",
], files={"ok.csv": ",cf\n,a\nr1,1\n"})

scenario("import: a file with quotes and commas", [
    "createtable t families=cf",
    "import t quoted.csv",
    "read t",
], files={"quoted.csv": ',cf,cf\n,a,b\n"r,1","x,y","say ""hi"""\nr2,"multi\nline",z\n'})

# ------------------------------------------------------ bytes and text

scenario("binary row keys, qualifiers and values", [
    "createtable bin families=cf",
    "set bin $'\\x01\\x02' cf:q=one@1000",
    "set bin $'\\xff\\xfe' $'cf:\\xc0\\x80'=$'\\x7f\\x80\\xff'@1000",
    "set bin $'tab\\tkey' cf:a=$'\\t\\n\\r\\a\\b\\f\\v'@1000",
    "read bin",
    "lookup bin $'\\xff\\xfe'",
    "read bin prefix=$'\\xff'",
    "count bin",
])

scenario("unicode keys and values", [
    "createtable u families=cf",
    "set u café cf:naïve=日本語@1000",
    "set u 한국 cf:emoji=🙂@1000",
    "set u $'zero\\u200bwidth' cf:nbsp=$'a\\u00a0b'@1000",
    "read u",
    "lookup u café",
])

scenario("empty and long values", [
    "createtable t families=cf",
    "set t r cf:=@1000 cf:blank=@1000",
    "set t long cf:v=" + "abcdefghij" * 300 + "@1000",
    "read t",
    "lookup t r",
])

scenario("format-file: hex and JSON values", [
    "createtable t families=cf,js",
    "set t r cf:hex=hello@1000 js:doc='{\"a\":1,\"b\":[true,null]}'@1000",
    "lookup t r format-file=formats.yml",
    "read t format-file=formats.yml columns=js:doc",
    "lookup t r format-file=missing.yml",
], files={"formats.yml": "columns:\n  hex:\n    encoding: hex\n  doc:\n    encoding: json\n"})

# --------------------------------------------------- the command line

scenario("help texts", [
    "help set",
    "help read",
    "help lookup",
    "help nope",
])

scenario("unknown commands and global flags", [
    "nope",
    "Read t",
    "-timeout 10s ls",
    "-timeout=10s createtable t",
    "--user-agent tabletop ls",
])

scenario("an empty instance", [
    "ls",
    "read t",
    "count t",
    "deletetable t",
])

scenario("a long session: write, read, delete, write again", [
    "createtable t families=cf",
    "set t r cf:a=1@1000",
    "deleterow t r",
    "set t r cf:a=2@2000",
    "read t",
    "deleteallrows t",
    "set t s cf:b=3@3000",
    "read t",
    "deletetable t",
    "createtable t families=other",
    "read t",
    "ls t",
])

scenario("hotspots: sequential keys versus hashed prefixes", [
    "createtable events families=e",
    "set events 20200501000000#a e:v=1@1000",
    "set events 20200501000001#b e:v=2@1000",
    "set events 3f#20200501000000#a e:v=1@1000",
    "set events a9#20200501000001#b e:v=2@1000",
    "read events keys-only=true",
    "read events regex=[0-9a-f]{2}#.* keys-only=true",
])

# ------------------------------------------ known emulator differences


scenario("createtable: GC rules that keep nothing", [
    {"cmd": "createtable zero families=cf:maxversions=0", "diverges": {
        "reason": "the emulator accepts max_num_versions 0; production requires at least 1",
        "emulator": outcome(),
        "production": outcome(stderr="Creating table: rpc error: code = InvalidArgument desc = column family \"cf\": GC rule max_num_versions must be at least 1, got 0\n", exit=1),
        "serve": outcome(stderr="Creating table: rpc error: code = InvalidArgument desc = request.table.columnFamilies[\"cf\"].gcRule: GC rule max_num_versions must be at least 1, got 0\n", exit=1),
    }},
    {"cmd": "createtable young families=cf:maxage=0s", "diverges": {
        "reason": "the emulator accepts max_age 0; production requires at least one millisecond",
        "emulator": outcome(),
        "production": outcome(stderr="Creating table: rpc error: code = InvalidArgument desc = column family \"cf\": GC rule max_age must be at least one millisecond\n", exit=1),
        "serve": outcome(stderr="Creating table: rpc error: code = InvalidArgument desc = request.table.columnFamilies[\"cf\"].gcRule: GC rule max_age must be at least one millisecond\n", exit=1),
    }},
    {"cmd": "ls", "diverges": {
        "reason": "the tables above were created by the emulator only (see there)",
        "emulator": outcome(stdout="young\nzero\n"),
        "production": outcome(),
    }},
])

scenario("createtable: an empty split key", [
    {"cmd": "createtable blank families=cf splits=b,,a", "diverges": {
        "reason": "the emulator accepts an empty split key; production rejects it (INVALID_ARGUMENT)",
        "emulator": outcome(),
        "production": outcome(stderr="Creating table: rpc error: code = InvalidArgument desc = initial split 1 is an empty row key\n", exit=1),
        "serve": outcome(stderr="Creating table: rpc error: code = InvalidArgument desc = request.initialSplits[1]: a split key must not be empty\n", exit=1),
    }},
    "createtable dupes families=cf splits=m,m,a",
])

scenario("setgcpolicy: a family the table does not have", [
    "createtable t families=cf",
    {"cmd": "setgcpolicy t nofam maxversions=1", "diverges": {
        "reason": "the emulator answers UNKNOWN \"no such family\"; production answers NOT_FOUND",
        "emulator": outcome(stderr="Setting GC policy: rpc error: code = Unknown desc = no such family \"nofam\"\n", exit=1),
        "production": outcome(stderr="Setting GC policy: rpc error: code = NotFound desc = column family \"nofam\" does not exist in this table\n", exit=1),
        "serve": outcome(stderr="Setting GC policy: rpc error: code = NotFound desc = modification 0: column family \"nofam\" does not exist in this table\n", exit=1),
    }},
])

scenario("set: a negative timestamp among good cells", [
    "createtable t families=cf",
    {"cmd": "set t r cf:a=1@1000 cf:b=2@-5000 cf:c=3@1000", "diverges": {
        "reason": "the emulator answers UNKNOWN \"invalid timestamp\"; production answers INVALID_ARGUMENT and applies nothing",
        "emulator": outcome(stderr="Applying mutation: rpc error: code = Unknown desc = invalid timestamp -5000\n", exit=1),
        "production": outcome(stderr="Applying mutation: rpc error: code = InvalidArgument desc = mutation 1: timestamp -5000 is negative; use -1 for the server's time or a value in microseconds\n", exit=1),
    }},
    READ_AFTER_PARTIAL_WRITE,
])

scenario("addtocell: a family that is not an aggregate", [
    "createtable counters families=views:never:intsum,plain",
    {"cmd": "addtocell counters page#home plain:c=1@1000", "diverges": {
        "reason": "the emulator answers UNKNOWN; production answers INVALID_ARGUMENT (AddToCell must name an aggregate family)",
        "emulator": outcome(stderr="Applying mutation: rpc error: code = Unknown desc = illegal attempt to use AddToCell on non-aggregate cell\n", exit=1),
        "production": outcome(stderr="Applying mutation: rpc error: code = InvalidArgument desc = mutation 0: column family \"plain\" is not an aggregate family; AddToCell and MergeToCell need one\n", exit=1),
    }},
])

scenario("addtocell: inthll", [
    "createtable h families=visitors:never:inthll",
    "addtocell h page#home visitors:unique=5@1000 visitors:unique=7@1000 visitors:unique=5@1000",
    {"cmd": "read h", "diverges": {
        "reason": "the emulator does not aggregate inthll families (it keeps the last input); production keeps a HyperLogLog++ sketch (the expected bytes are Tabletop's encoding; production's is not published)",
        "emulator": outcome(stdout='----------------------------------------\npage#home\n  visitors:unique                          @ 1970/01/01-00:00:00.001000\n    "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x05"\n\n'),
        "production": outcome(stdout='----------------------------------------\npage#home\n  visitors:unique                          @ 1970/01/01-00:00:00.001000\n    "\\bp\\x10\\x03\\x18\\x02 \\b\\x82\\a\\r\\x10\\x02\\x18\\x0f \\x142\\x05\\xe4\\xf7\\a\\x90~"\n\n'),
    }},
])

scenario("import: rows naming an unknown family", [
    "createtable t families=cf",
    {"cmd": "import t nofam.csv", "diverges": {
        "reason": "the emulator reports failed MutateRows entries as INTERNAL; production gives each entry its own status (NOT_FOUND here)",
        "emulator": outcome(stderr="[0] Writing batch:: size: 3, firstRowKey: k1, lastRowKey: k3\nerror: applying bulk mutations had 3 errors, first:rpc error: code = Internal desc = unknown family \"nofam\"\n", exit=1),
        "production": outcome(stderr="[0] Writing batch:: size: 3, firstRowKey: k1, lastRowKey: k3\nerror: applying bulk mutations had 3 errors, first:rpc error: code = NotFound desc = mutation 0: column family \"nofam\" does not exist in this table\n", exit=1),
    }},
    "count t",
], files={"nofam.csv": ",nofam\n,q\nk1,1\nk2,2\nk3,3\n"})

GO_REGEXP = ("the emulator reports Go regexp errors on its anchored pattern; production reports "
             "RE2 errors on the pattern as given")


def bad_regex(cmd, field, go_text, re2_text, reason=GO_REGEXP):
    """A `cbt read` whose filter regex both sides refuse, each in its own
    words: the emulator Go's (`go_text`), production RE2's (`re2_text`)."""
    said = "Reading rows: rpc error: code = InvalidArgument desc = Error in field '%s' : %s\n"
    return {"cmd": cmd, "diverges": {
        "reason": reason,
        "emulator": outcome(stderr=said % (field, "error parsing regexp: " + go_text), exit=1),
        "production": outcome(stderr=said % (field, re2_text), exit=1),
    }}


scenario("read: an RE2 error in regex=", [
    "createtable t families=cf",
    "set t phone#1 cf:q=1@1000",
    bad_regex("read t \"regex=[\"", "row_key_regex_filter", "missing closing ]: `[)$`", "missing ]: ["),
    bad_regex("read t \"regex=a)\"", "row_key_regex_filter", "unexpected ): `^(?:a))$`", "unexpected ): a)"),
    bad_regex("read t \"regex=phone#1**\"", "row_key_regex_filter",
              "invalid nested repetition operator: `**`", "bad repetition operator: **",
              reason="both refuse stacked repetition operators: the emulator in Go's words on its "
                     "anchored pattern, production in RE2's"),
    bad_regex("read t \"columns=cf:q[\"", "column_qualifier_regex_filter",
              "missing closing ]: `[)$`", "missing ]: ["),
])

# The emulator's regexp is rsc.io/binaryregexp (Go's regexp reading bytes):
# nested repeat counts whose product passes 1000 are refused quoting the
# outer count, a byte over 0x7F is one character (quoted `\xFF`), and `\C`
# (any byte) is taken, as RE2 takes it.
scenario("read: Go's rarer regexp errors", [
    "createtable t families=cf",
    "set t phone#1 cf:q=1@1000",
    bad_regex("read t \"regex=(a{2}){501}\"", "row_key_regex_filter",
              "invalid repeat count: `{501}`", "bad repetition operator: {501}",
              reason="both refuse nested repeat counts whose product passes 1000: the emulator in Go's "
                     "words quoting the outer count, production in RE2's"),
    bad_regex("read t $'regex=[\\xff-a]'", "row_key_regex_filter",
              "invalid character class range: `\\xFF-a`", "invalid character class range: \\xff-a",
              reason="both refuse a reversed class range of bytes: the emulator in Go's words (a byte over "
                     "0x7F quoted as \\xFF), production in RE2's"),
    bad_regex("read t \"columns=cf:(x{1000}){1000}\"", "column_qualifier_regex_filter",
              "invalid repeat count: `{1000}`", "bad repetition operator: {1000}",
              reason="both refuse nested repeat counts whose product passes 1000: the emulator in Go's "
                     "words quoting the outer count, production in RE2's"),
    "read t 'regex=phone#\\C'",
    "read t 'regex=(p{1}h{1}){1}one#1{1}'",
])


# ------------------------------------------------------------ instances

# A command's own -instance selects another instance (the last -instance
# wins, as Go's flag package keeps it): tables of different instances are
# kept apart, and the same table id names two tables.
scenario("instances: two instances keep their tables apart", [
    "-instance cbt-other createtable e families=cf",
    "ls",
    "-instance cbt-other ls",
    "read e",
    "-instance cbt-other set e r cf:q=there@1000",
    "createtable e families=cf",
    "read e",
    "-instance=cbt-other lookup e r",
    "-instance cbt-other deletetable e",
    "-instance cbt-other ls",
    "ls",
])
