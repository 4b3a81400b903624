//! The command table: every command's name, one-line description and
//! usage text, and what `cbt help` prints from them.
//!
//! The usage texts of the `cbt` commands are the ones the real `cbt` 1.23.2
//! prints for `cbt help <command>` (recorded from it, byte for byte, so a
//! transcript of `help set` diffs cleanly). The playground's own commands
//! (`compact`, `clock`) say in their first line that they are not part of
//! Bigtable or `cbt`.

/// Where a command comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A `cbt` command the playground runs.
    Cbt,
    /// A playground extension, not part of Bigtable or `cbt`.
    Extension,
    /// A `cbt` command about instances, clusters or app profiles, which a
    /// single in-memory instance does not have.
    Unavailable,
}

/// One command.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CommandDef {
    /// What the user types.
    pub(crate) name: &'static str,
    /// One line for the command summary.
    pub(crate) desc: &'static str,
    /// What `help <name>` prints (without the final newline).
    pub(crate) usage: &'static str,
    /// Where it comes from.
    pub(crate) kind: Kind,
}

const fn unavailable(name: &'static str, desc: &'static str) -> CommandDef {
    CommandDef {
        name,
        desc,
        usage: "",
        kind: Kind::Unavailable,
    }
}

/// Every command, in `cbt`'s (alphabetical) order, extensions last.
pub(crate) static COMMANDS: &[CommandDef] = &[
    CommandDef {
        name: "addtocell",
        desc: "Add a value to an aggregate cell (write)",
        usage: concat!(
            "cbt addtocell <table-id> <row-key> [app-profile=<app-profile-id>] <family>:<column>=<val>[@<timestamp>] ...\n",
            "\n",
            "  app-profile=<app profile id>          The app profile ID to use for the request\n",
            "  <family>:<column>=<val>[@<timestamp>] may be repeated to set multiple cells.\n",
            "\n",
            "    If <val> can be parsed as an integer it will be used as one, otherwise the call will fail.\n",
            "    timestamp is an optional integer. \n",
            "    If the timestamp cannot be parsed, '@<timestamp>' will be interpreted as part of the value.\n",
            "    For most uses, a timestamp is the number of microseconds since 1970-01-01 00:00:00 UTC.\n",
            "\n",
            "    Examples:\n",
            "      cbt addtocell table1 user1 sum_cf:col1=1@12345"
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "count",
        desc: "Count rows in a table",
        usage: "cbt count <table-id> [prefix=<row-key-prefix>]",
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "createfamily",
        desc: "Create a column family",
        usage: concat!(
            "cbt createfamily <table-id> <family>\n",
            "\n",
            "    Example: cbt createfamily mobile-time-series stats_summary"
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "createtable",
        desc: "Create a table",
        usage: concat!(
            "cbt createtable <table-id> [families=<family>:<gcpolicy-expression>:<type-expression>,...]\n",
            "   [splits=<split-row-key-1>,<split-row-key-2>,...]\n",
            "\n",
            "  families     Column families and their associated garbage collection (gc) policies and types.\n",
            "               Put gc policies in quotes when they include shell operators && and ||. For gcpolicy,\n",
            "               see \"setgcpolicy\".\n",
            "               Types \"intsum\", \"intmin\", \"intmax\", and \"inthll\" are supported.\n",
            "  splits       Row key(s) where the table should initially be split\n",
            "\n",
            "    Example: cbt createtable mobile-time-series \"families=stats_summary:maxage=10d||maxversions=1,stats_detail:maxage=10d||maxversions=1\" splits=tablet,phone"
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "deleteallrows",
        desc: "Delete all rows",
        usage: concat!(
            "cbt deleteallrows <table-id>\n",
            "\n",
            "    Example: cbt deleteallrows  mobile-time-series"
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "deletecolumn",
        desc: "Delete all cells in a column",
        usage: concat!(
            "cbt deletecolumn <table-id> <row-key> <family> <column> [app-profile=<app-profile-id>]\n",
            "\n",
            "  app-profile=<app-profile-id>        The app profile ID to use for the request\n",
            "\n",
            "    Example: cbt deletecolumn mobile-time-series phone#4c410523#20190501 stats_summary os_name"
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "deletefamily",
        desc: "Delete a column family",
        usage: concat!(
            "cbt deletefamily <table-id> <family>\n",
            "\n",
            "    Example: cbt deletefamily mobile-time-series stats_summary"
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "deleterow",
        desc: "Delete a row",
        usage: concat!(
            "cbt deleterow <table-id> <row-key> [app-profile=<app-profile-id>]\n",
            "\n",
            "  app-profile=<app-profile-id>        The app profile ID to use for the request\n",
            "\n",
            "    Example: cbt deleterow mobile-time-series phone#4c410523#20190501"
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "deletetable",
        desc: "Delete a table",
        usage: concat!(
            "cbt deletetable <table-id>\n",
            "\n",
            "    Example: cbt deletetable mobile-time-series"
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "help",
        desc: "Print help text",
        usage: concat!(
            "cbt help <command>\n",
            "\n",
            "    Example: cbt help createtable"
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "import",
        desc: "Batch write many rows based on the input file",
        usage: concat!(
            "cbt import <table-id> <input-file> [app-profile=<app-profile-id>] [column-family=<family-name>] [batch-size=<500>] [workers=<1>] [timestamp=<now|value-encoded>]\n",
            "\n",
            "  app-profile=<app-profile-id>          The app profile ID to use for the request\n",
            "  column-family=<family-name>           The column family label to use\n",
            "  batch-size=<500>                      The max number of rows per batch write request\n",
            "  workers=<1>                           The number of worker threads\n",
            "  timestamp=<now|value-encoded>\t     \tWhether to use current time for all cells or interpret the timestamp from cell value. Defaults to 'now'.\n",
            "\n",
            "  Import data from a CSV file into an existing Cloud Bigtable table that already has the column families your data requires.\n",
            "\n",
            "  The CSV file can support two rows of headers:\n",
            "      - (Optional) column families\n",
            "      - Column qualifiers\n",
            "  Because the first column is reserved for row keys, leave it empty in the header rows.\n",
            "  In the column family header, provide each column family once; it applies to the column it is in and every column to the right until another column family is found.\n",
            "  Each row after the header rows should contain a row key in the first column, followed by the data cells for the row.\n",
            "  See the example below. If you don't provide a column family header row, the column header is your first row and your import command must include the `column-family` flag to specify an existing column family. \n",
            "\n",
            "  The timestamp for each cell will default to current time (timestamp=now), to explicitly set the timestamp for cells, set timestamp=value-encoded use <val>[@<timestamp>] as the value for the cell.\n",
            "  If no timestamp is delimited for a cell, current time will be used. If the timestamp cannot be parsed, '@<timestamp>' will be interpreted as part of the value.\n",
            "  For most uses, a timestamp is the number of microseconds since 1970-01-01 00:00:00 UTC.\n",
            "\n",
            "    ,column-family-1,,column-family-2,      // Optional column family row (1st cell empty)\n",
            "    ,column-1,column-2,column-3,column-4    // Column qualifiers row (1st cell empty)\n",
            "    a,TRUE,,,FALSE                          // Rowkey 'a' followed by data\n",
            "    b,,,TRUE,FALSE                          // Rowkey 'b' followed by data\n",
            "    c,,TRUE,,TRUE                           // Rowkey 'c' followed by data\n",
            "    d,TRUE@1577862000000000,,,FALSE\t\t \t// Rowkey 'd' followed by data\n",
            "\n",
            "  Examples:\n",
            "    cbt import csv-import-table data.csv\n",
            "    cbt import csv-import-table data-no-families.csv app-profile=batch-write-profile column-family=my-family workers=5\n",
            ""
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "lookup",
        desc: "Read from a single row",
        usage: concat!(
            "cbt lookup <table-id> <row-key> [columns=<family>:<qualifier>,...] [cells-per-column=<n>] [app-profile=<app profile id>]\n",
            "\n",
            "  row-key                             String or raw bytes. Raw bytes must be enclosed in single quotes and have a dollar-sign prefix\n",
            "  columns=<family>:<qualifier>,...    Read only these columns, comma-separated\n",
            "  cells-per-column=<n>                Read only this number of cells per column\n",
            "  app-profile=<app-profile-id>        The app profile ID to use for the request\n",
            "  format-file=<path-to-format-file>   The path to a format-configuration file to use for the request\n",
            "  keys-only=<true|false>              Whether to print only row keys\n",
            "  include-stats=full                  Include a summary of request stats at the end of the request\n",
            "\n",
            " Example: cbt lookup mobile-time-series phone#4c410523#20190501 columns=stats_summary:os_build,os_name cells-per-column=1\n",
            " Example: cbt lookup mobile-time-series $'\\x41\\x42'"
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "ls",
        desc: "List tables and column families",
        usage: concat!(
            "cbt ls                List tables\n",
            "cbt ls <table-id>     List a table's column families and garbage collection policies\n",
            "\n",
            "    Example: cbt ls mobile-time-series"
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "read",
        desc: "Read rows",
        usage: concat!(
            "cbt read <table-id> [authorized-view=<authorized-view-id>] [start=<row-key>] [end=<row-key>] [prefix=<row-key-prefix>] [regex=<regex>] [columns=<family>:<qualifier>,...] [count=<n>] [cells-per-column=<n>] [app-profile=<app-profile-id>]\n",
            "\n",
            "  authorized-view=<authorized-view-id>  Read from the specified authorized view of the table\n",
            "  start=<row-key>                       Start reading at this row\n",
            "  end=<row-key>                         Stop reading before this row\n",
            "  prefix=<row-key-prefix>               Read rows with this prefix\n",
            "  regex=<regex>                         Read rows with keys matching this regex\n",
            "  reversed=<true|false>                 Read rows in reverse order\n",
            "  columns=<family>:<qualifier>,...      Read only these columns, comma-separated\n",
            "  count=<n>                             Read only this many rows\n",
            "  cells-per-column=<n>                  Read only this many cells per column\n",
            "  app-profile=<app-profile-id>          The app profile ID to use for the request\n",
            "  format-file=<path-to-format-file>     The path to a format-configuration file to use for the request\n",
            "  keys-only=<true|false>                Whether to print only row keys\n",
            "  include-stats=full                    Include a summary of request stats at the end of the request\n",
            "\n",
            "    Examples: (see 'set' examples to create data to read)\n",
            "      cbt read mobile-time-series prefix=phone columns=stats_summary:os_build,os_name count=10\n",
            "      cbt read mobile-time-series start=phone#4c410523#20190501 end=phone#4c410523#20190601\n",
            "      cbt read mobile-time-series regex=\"phone.*\" cells-per-column=1\n",
            "      cbt read mobile-time-series start=phone#4c410523#20190501 end=phone#4c410523#20190601 reversed=true count=10\n",
            "\n",
            "   Note: Using a regex without also specifying start, end, prefix, or count results in a full\n",
            "   table scan, which can be slow.\n",
            ""
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "set",
        desc: "Set value of a cell (write)",
        usage: concat!(
            "cbt set <table-id> <row-key> [authorized-view=<authorized-view-id>] [app-profile=<app-profile-id>] <family>:<column>=<val>[@<timestamp>] ...\n",
            "\n",
            "  authorized-view=<authorized-view-id>  Write to the specified authorized view of the table\n",
            "  app-profile=<app profile id>          The app profile ID to use for the request\n",
            "  <family>:<column>=<val>[@<timestamp>] may be repeated to set multiple cells.\n",
            "\n",
            "    timestamp is an optional integer. \n",
            "    If the timestamp cannot be parsed, '@<timestamp>' will be interpreted as part of the value.\n",
            "    For most uses, a timestamp is the number of microseconds since 1970-01-01 00:00:00 UTC.\n",
            "\n",
            "    Examples:\n",
            "      cbt set mobile-time-series phone#4c410523#20190501 stats_summary:connected_cell=1@12345 stats_summary:connected_cell=0@1570041766\n",
            "      cbt set mobile-time-series phone#4c410523#20190501 stats_summary:os_build=PQ2A.190405.003 stats_summary:os_name=android"
        ),
        kind: Kind::Cbt,
    },
    CommandDef {
        name: "setgcpolicy",
        desc: "Set the garbage-collection policy (age, versions) for a column family",
        usage: concat!(
            "cbt setgcpolicy <table> <family> ((maxage=<d> | maxversions=<n>) [(and|or) (maxage=<d> | maxversions=<n>),...] | never) [force]\n",
            "\n",
            "  force: Optional flag to override warnings when relaxing the garbage-collection policy on replicated clusters.\n",
            "    This may cause your clusters to be temporarily inconsistent, make sure you understand the risks\n",
            "    listed at https://cloud.google.com/bigtable/docs/garbage-collection#increasing\n",
            "\n",
            "  maxage=<d>         Maximum timestamp age to preserve. Acceptable units: ms, s, m, h, d\n",
            "  maxversions=<n>    Maximum number of versions to preserve\n",
            "  Put garbage collection policies in quotes when they include shell operators && and ||.\n",
            "\n",
            "    Examples:\n",
            "      cbt setgcpolicy mobile-time-series stats_detail maxage=10d\n",
            "      cbt setgcpolicy mobile-time-series stats_summary maxage=10d or maxversions=1 force\n",
            ""
        ),
        kind: Kind::Cbt,
    },
    unavailable("createappprofile", "Create app profile for an instance"),
    unavailable(
        "createcluster",
        "Create a cluster in the configured instance",
    ),
    unavailable(
        "createinstance",
        "Create an instance with an initial cluster",
    ),
    unavailable("deleteappprofile", "Delete app profile for an instance"),
    unavailable(
        "deletecluster",
        "Delete a cluster from the configured instance",
    ),
    unavailable("deleteinstance", "Delete an instance"),
    unavailable("doc", "Print godoc-suitable documentation for cbt"),
    unavailable("getappprofile", "Read app profile for an instance"),
    unavailable("listappprofile", "Lists app profile for an instance"),
    unavailable("listclusters", "List clusters in an instance"),
    unavailable("listinstances", "List instances in a project"),
    unavailable("mddoc", "Print documentation for cbt in Markdown format"),
    unavailable(
        "notices",
        "Display licence information for any third-party dependencies",
    ),
    unavailable("setvaluetype", "Update column family's value type."),
    unavailable("updateappprofile", "Update app profile for an instance"),
    unavailable(
        "updatecluster",
        "Update a cluster in the configured instance",
    ),
    unavailable("version", "Print the current cbt version"),
    unavailable(
        "waitforreplication",
        "Block until all the completed writes have been replicated to all the clusters",
    ),
    CommandDef {
        name: "clock",
        desc: "Show or move the playground's simulated clock (Tabletop only)",
        usage: concat!(
            "cbt clock [<duration> | -<duration> | now | <RFC 3339 time> | <microseconds>]\n",
            "\n",
            "  Tabletop playground extension: not part of Cloud Bigtable or the real cbt.\n",
            "\n",
            "  Without an argument, prints the instance's simulated time. With one, moves it:\n",
            "    <duration>       forward by 1h, 30d, 500ms, ... (units ms, s, m, h, d), running the\n",
            "                     flushes, compactions (where GC happens) and splits that fall due\n",
            "    -<duration>      backward (no background work runs)\n",
            "    now              to the host's wall-clock time, if it has one\n",
            "    <RFC 3339 time>  to that time, e.g. 2020-05-01T00:00:00Z\n",
            "    <microseconds>   to that many microseconds since 1970-01-01 00:00:00 UTC\n",
            "\n",
            "  Cells written without @<timestamp> get the simulated time, and maxage GC rules\n",
            "  measure age against it.\n",
            "\n",
            "    Examples:\n",
            "      cbt clock 2020-05-01T00:00:00Z\n",
            "      cbt clock 30d"
        ),
        kind: Kind::Extension,
    },
    CommandDef {
        name: "compact",
        desc: "Flush and compact now, applying due GC rules (Tabletop only)",
        usage: concat!(
            "cbt compact [<table-id>]\n",
            "\n",
            "  Tabletop playground extension: not part of Cloud Bigtable or the real cbt.\n",
            "\n",
            "  Flushes every memtable and compacts every tablet of the table (of every table\n",
            "  without an argument). Compaction is where Bigtable applies garbage-collection\n",
            "  policies, so afterwards no cell that a policy allows to collect is left; until\n",
            "  then such cells may still be read, as in Bigtable.\n",
            "\n",
            "    Example: cbt compact mobile-time-series"
        ),
        kind: Kind::Extension,
    },
];

/// The command called `name`.
pub(crate) fn find(name: &[u8]) -> Option<&'static CommandDef> {
    COMMANDS.iter().find(|c| c.name.as_bytes() == name)
}

/// What `help` without an argument prints: the commands the playground
/// runs, laid out as `cbt` lays out its summary, then the extensions.
pub(crate) fn summary() -> Vec<u8> {
    use super::gostr::tabwrite;
    let section = |kind: Kind| {
        let lines: Vec<Vec<Vec<u8>>> = COMMANDS
            .iter()
            .filter(|c| c.kind == kind)
            .map(|c| {
                vec![
                    format!("cbt {}", c.name).into_bytes(),
                    c.desc.as_bytes().to_vec(),
                ]
            })
            .collect();
        tabwrite(&lines)
    };
    let mut out = b"Usage: cbt <command> ...\n\nCommands of the real cbt that the playground runs (same arguments, same output):\n\n".to_vec();
    out.extend(section(Kind::Cbt));
    out.extend_from_slice(
        b"\nTabletop playground extensions (not part of Cloud Bigtable or cbt):\n\n",
    );
    out.extend(section(Kind::Extension));
    out.extend_from_slice(
        b"\nArguments are split as bash splits them: quote values with spaces or shell operators\n\
          (families=\"cf:maxage=1d||maxversions=2\"), and write arbitrary bytes with $'...'\n\
          (row$'\\x01\\xff'). Instance administration commands (clusters, app profiles)\n\
          are not available. Use \"cbt help <command>\" for more information about a command.\n",
    );
    out
}
