#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Replays the `cbt` transcripts in `tests/cbt/*.cbt` (recorded from the
// real `cbt` and Bigtable emulator by `tests/cbt/record.py`) through
// `tabletop_wire::cbt` and compares stdout, stderr and exit status byte
// for byte. The format is described in `tests/cbt/README.md`.
//
// A command marked `%pending` may differ for now; once it matches, the
// test fails until the mark is removed, so no pending mark outlives its
// reason.
//
// Blessing is a separate command, never part of a test run: after
// reviewing that every difference is the documented one,
// `cargo test -p tabletop-wire --test cbt_transcripts -- --ignored bless`
// writes the playground's current output into the `%production` block of
// every command marked `%diverges`.

use tabletop_sql::{Instance, Instances};
use tabletop_store::{InstanceConfig, Traces};
use tabletop_wire::cbt::{MemFiles, Outcome, exec_args_in, exec_line, tokenize};

macro_rules! transcripts {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../../tests/cbt/", $name)))),*]
    };
}

/// Every transcript, embedded so the test also runs under wasm.
static TRANSCRIPTS: &[(&str, &str)] = transcripts![
    "addtocell.cbt",
    "aggregates_hll.cbt",
    "binary_keys.cbt",
    "clock_and_gc.cbt",
    "compact_gc_versions.cbt",
    "count.cbt",
    "createfamily.cbt",
    "createtable_errors.cbt",
    "createtable_families.cbt",
    "delete_family.cbt",
    "deleteallrows.cbt",
    "deletecolumn.cbt",
    "deleterow.cbt",
    "deletetable.cbt",
    "empty_values.cbt",
    "format_file.cbt",
    "friends_qualifiers.cbt",
    "gcpolicy_errors.cbt",
    "gcpolicy_forms.cbt",
    "global_flags.cbt",
    "help.cbt",
    "import_basic.cbt",
    "import_errors.cbt",
    "import_options.cbt",
    "include_stats.cbt",
    "instances.cbt",
    "long_values.cbt",
    "lookup.cbt",
    "lookup_filters.cbt",
    "ls_layout.cbt",
    "many_families.cbt",
    "mobile_time_series.cbt",
    "multi_tenant.cbt",
    "multiple_versions.cbt",
    "mutation_atomicity.cbt",
    "read_columns.cbt",
    "read_count.cbt",
    "read_errors.cbt",
    "read_keys_only.cbt",
    "read_ranges.cbt",
    "read_regex.cbt",
    "read_reversed.cbt",
    "reversed_domains.cbt",
    "server_timestamps.cbt",
    "set_args.cbt",
    "set_errors.cbt",
    "splits.cbt",
    "timestamps.cbt",
    "unicode.cbt",
    "unknown_commands.cbt",
];

/// One command of a transcript and what it should print.
struct Command {
    /// Line number of the `$` line (1-based).
    line: usize,
    /// The command line after `$ `.
    text: String,
    /// The expected transcript lines: the `%production` block when there is
    /// one, else the recorded block.
    expected: Vec<String>,
    /// Whether the command is marked `%diverges`.
    diverges: bool,
    /// Why the command is known to fail for now (`%pending <reason>`).
    pending: Option<String>,
}

struct Transcript {
    files: MemFiles,
    commands: Vec<Command>,
    mask_year: Option<i64>,
    clock: Option<i64>,
    playground_only: bool,
}

const BLOCK_PREFIXES: [&str; 4] = [">", "2>", "?", "%no-eol"];

fn is_block_line(l: &str) -> bool {
    BLOCK_PREFIXES.iter().any(|p| l.starts_with(p))
}

/// The bytes of one transcript output line (after its `>`, `2>` or `|`).
fn unescape(s: &str) -> Vec<u8> {
    if let Some(body) = s.strip_prefix("\\ ") {
        let b = body.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'\\' && b.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
            } else if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') && i + 4 <= b.len() {
                let hex = std::str::from_utf8(&b[i + 2..i + 4]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 4;
            } else {
                out.push(b[i]);
                i += 1;
            }
        }
        return out;
    }
    s.strip_prefix(' ').unwrap_or(s).as_bytes().to_vec()
}

/// The transcript form of one output line (the inverse of `unescape`).
fn escape(b: &[u8]) -> String {
    if let Ok(s) = std::str::from_utf8(b) {
        let plain = s
            .chars()
            .all(|c| c == '\t' || (c >= ' ' && !('\u{7f}'..'\u{a0}').contains(&c)));
        if plain && !s.ends_with([' ', '\t']) {
            return if s.is_empty() {
                String::new()
            } else {
                format!(" {s}")
            };
        }
    }
    let trail = b.len()
        - b.iter()
            .rev()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
    let mut out = String::from("\\ ");
    for (n, &c) in b.iter().enumerate() {
        if n >= trail {
            out.push_str(&format!("\\x{c:02x}"));
        } else if c == b'\\' {
            out.push_str("\\\\");
        } else if (0x20..0x7f).contains(&c) || c == b'\t' {
            out.push(char::from(c));
        } else {
            out.push_str(&format!("\\x{c:02x}"));
        }
    }
    out
}

fn stream_lines(prefix: &str, data: &[u8], eol_marker: &str) -> Vec<String> {
    if data.is_empty() {
        return Vec::new();
    }
    let mut parts: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    let no_eol = parts.last() != Some(&&b""[..]);
    if !no_eol {
        parts.pop();
    }
    let mut out: Vec<String> = parts
        .iter()
        .map(|l| format!("{prefix}{}", escape(l)))
        .collect();
    if no_eol {
        out.push(eol_marker.to_string());
    }
    out
}

/// Masks cell timestamps in years at or after `year` as `<now>`, as the
/// recorder does for commands that write with the server's clock.
fn mask_now(data: &[u8], year: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        // A timestamp is DIGITS{4,}/DD/DD-DD:DD:DD.DDDDDD
        let digits = data[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        let at_start = i == 0 || !data[i - 1].is_ascii_digit();
        if at_start && digits >= 4 {
            let rest = &data[i + digits..];
            let shape = b"/dd/dd-dd:dd:dd.dddddd";
            let fits = rest.len() >= shape.len()
                && shape.iter().zip(rest).all(|(&s, &c)| {
                    if s == b'd' {
                        c.is_ascii_digit()
                    } else {
                        s == c
                    }
                });
            if fits {
                let y: i64 = std::str::from_utf8(&data[i..i + digits])
                    .unwrap()
                    .parse()
                    .unwrap_or(0);
                if y >= year {
                    out.extend_from_slice(b"<now>");
                } else {
                    out.extend_from_slice(&data[i..i + digits + shape.len()]);
                }
                i += digits + shape.len();
                continue;
            }
        }
        out.push(data[i]);
        i += 1;
    }
    out
}

fn parse(name: &str, text: &str) -> Transcript {
    let lines: Vec<&str> = text.lines().collect();
    let mut t = Transcript {
        files: MemFiles::default(),
        commands: Vec::new(),
        mask_year: None,
        clock: None,
        playground_only: false,
    };
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(cmd) = line.strip_prefix("$ ") {
            let at = i + 1;
            i += 1;
            let mut recorded = Vec::new();
            while i < lines.len() && is_block_line(lines[i]) {
                recorded.push(lines[i].to_string());
                i += 1;
            }
            let mut diverges = false;
            let mut pending = None;
            let mut production = None;
            while i < lines.len()
                && (lines[i].starts_with("%diverges") || lines[i].starts_with("%pending"))
            {
                if let Some(reason) = lines[i].strip_prefix("%pending") {
                    pending = Some(reason.trim().to_string());
                } else {
                    diverges = true;
                }
                i += 1;
            }
            if (diverges || pending.is_some()) && i < lines.len() && lines[i] == "%production" {
                i += 1;
                let mut block = Vec::new();
                while i < lines.len() && is_block_line(lines[i]) {
                    block.push(lines[i].to_string());
                    i += 1;
                }
                production = Some(block);
            }
            t.commands.push(Command {
                line: at,
                text: cmd.to_string(),
                expected: production.unwrap_or(recorded),
                diverges,
                pending,
            });
            continue;
        }
        if let Some(file) = line.strip_prefix("%file ") {
            let mut data = Vec::new();
            let mut no_eol = false;
            i += 1;
            while i < lines.len() && lines[i] != "%end" {
                if lines[i] == "%no-eol" {
                    no_eol = true;
                } else {
                    let body = lines[i]
                        .strip_prefix('|')
                        .unwrap_or_else(|| panic!("{name}:{}: bad %file line", i + 1));
                    data.extend(unescape(body));
                    data.push(b'\n');
                }
                i += 1;
            }
            if no_eol {
                data.pop();
            }
            t.files.insert(file.trim(), data);
        } else if let Some(y) = line.strip_prefix("%mask-now-after ") {
            t.mask_year = Some(y.trim()[..4].parse().expect("year"));
        } else if let Some(c) = line.strip_prefix("%clock ") {
            t.clock = Some(c.trim().parse().expect("%clock takes microseconds"));
        } else if line == "%playground-only" {
            t.playground_only = true;
        }
        i += 1;
    }
    t
}

/// Microseconds at 00:00 UTC on 1 January of `year`.
fn start_of_year(year: i64) -> i64 {
    // Days from 1970 to `year`, Gregorian.
    let days: i64 = (1970..year)
        .map(|y| {
            if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
                366
            } else {
                365
            }
        })
        .sum();
    days * 86_400 * 1_000_000
}

fn actual_lines(out: &Outcome, mask_year: Option<i64>) -> Vec<String> {
    let (stdout, stderr) = match mask_year {
        Some(y) => (mask_now(&out.stdout, y), mask_now(&out.stderr, y)),
        None => (out.stdout.clone(), out.stderr.clone()),
    };
    let mut lines = stream_lines(">", &stdout, "%no-eol");
    lines.extend(stream_lines("2>", &stderr, "%no-eol-stderr"));
    if out.exit_code() != 0 {
        lines.push(format!("? {}", out.exit_code()));
    }
    lines
}

/// Runs one transcript; returns a report of every mismatch and the actual
/// lines of each command (for blessing).
fn run(name: &str, text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut t = parse(name, text);
    let config = InstanceConfig {
        project: "p".into(),
        instance: "i".into(),
        ..InstanceConfig::default()
    };
    let mut db = Instance::new(config);
    if let Some(c) = t.clock {
        db.set_now(c);
    } else if let Some(y) = t.mask_year {
        db.set_now(start_of_year(y));
    }
    // As `cbt -project p -instance i <command>`: a command's own
    // `-instance` selects another instance, as the recorder's does.
    let mut db = Instances::new(db);
    let mut failures = Vec::new();
    let mut actuals = Vec::new();
    for cmd in &t.commands {
        let out = match tokenize(&cmd.text) {
            Ok(args) if !args.is_empty() => exec_args_in(
                &mut db,
                (Some("p"), Some("i")),
                &args,
                &mut t.files,
                &mut Traces::off(),
            ),
            _ => exec_line(db.primary_mut(), &cmd.text, &mut t.files),
        };
        let actual = actual_lines(&out, t.mask_year);
        if actual == cmd.expected
            && let Some(reason) = &cmd.pending
        {
            failures.push(format!(
                "{name}:{}: $ {}\n  matches now: remove its `%pending {reason}` mark\n",
                cmd.line, cmd.text
            ));
        }
        if actual != cmd.expected {
            if let Some(reason) = &cmd.pending {
                println!("PENDING {name}:{}: $ {} ({reason})", cmd.line, cmd.text);
                actuals.push(actual);
                continue;
            }
            let mut report = format!("{name}:{}: $ {}\n", cmd.line, cmd.text);
            report.push_str("  expected:\n");
            for l in &cmd.expected {
                report.push_str(&format!("    |{l}\n"));
            }
            report.push_str("  actual:\n");
            for l in &actual {
                report.push_str(&format!("    |{l}\n"));
            }
            failures.push(report);
        }
        actuals.push(actual);
    }
    (failures, actuals)
}

#[cfg(not(target_arch = "wasm32"))]
fn bless(name: &str, text: &str, actuals: &[Vec<String>]) {
    let t = parse(name, text);
    let playground_only = t.playground_only;
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    let mut cmd_index = 0;
    while i < lines.len() {
        let line = lines[i];
        out.push(line.to_string());
        i += 1;
        if !line.starts_with("$ ") {
            continue;
        }
        while i < lines.len() && is_block_line(lines[i]) {
            if !playground_only {
                out.push(lines[i].to_string());
            }
            i += 1;
        }
        if playground_only {
            // No recording exists: the playground's output is the expectation.
            out.extend(actuals[cmd_index].iter().cloned());
        }
        while i < lines.len()
            && (lines[i].starts_with("%diverges") || lines[i].starts_with("%pending"))
        {
            out.push(lines[i].to_string());
            i += 1;
        }
        if i < lines.len() && lines[i] == "%production" {
            i += 1;
            while i < lines.len() && is_block_line(lines[i]) {
                i += 1;
            }
        }
        if t.commands[cmd_index].diverges {
            out.push("%production".to_string());
            out.extend(actuals[cmd_index].iter().cloned());
        }
        cmd_index += 1;
    }
    let path = format!("{}/../../tests/cbt/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::write(path, out.join("\n") + "\n").expect("write transcript");
}

#[test]
fn transcripts_match_real_cbt() {
    let mut failed = Vec::new();
    let mut commands = 0;
    let mut pending = 0;
    let mut diverging = 0;
    for (name, text) in TRANSCRIPTS {
        let (failures, actuals) = run(name, text);
        commands += actuals.len();
        pending += parse(name, text)
            .commands
            .iter()
            .filter(|c| c.pending.is_some())
            .count();
        diverging += parse(name, text)
            .commands
            .iter()
            .filter(|c| c.diverges)
            .count();
        failed.extend(failures);
    }
    println!(
        "{} transcripts, {commands} commands ({diverging} with a production expectation), {} failing, {pending} marked pending",
        TRANSCRIPTS.len(),
        failed.len(),
    );
    assert!(
        failed.is_empty(),
        "transcript mismatches:\n{}",
        failed.join("\n")
    );
}

/// Writes the playground's output as the expectation of every command
/// marked `%diverges` (and of playground-only transcripts): run it by
/// name, on purpose, after reviewing the differences (see the top).
#[cfg(not(target_arch = "wasm32"))]
#[test]
#[ignore = "rewrites tests/cbt; run on purpose with --ignored bless"]
fn bless_production_blocks() {
    for (name, text) in TRANSCRIPTS {
        let t = parse(name, text);
        if t.playground_only || t.commands.iter().any(|c| c.diverges) {
            let (_, actuals) = run(name, text);
            bless(name, text, &actuals);
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_transcript_file_is_listed() {
    let dir = format!("{}/../../tests/cbt", env!("CARGO_MANIFEST_DIR"));
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .expect("tests/cbt exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".cbt"))
        .collect();
    on_disk.sort();
    let listed: Vec<String> = TRANSCRIPTS.iter().map(|(n, _)| (*n).to_string()).collect();
    assert_eq!(
        on_disk, listed,
        "add new transcripts to TRANSCRIPTS in core/tests/cbt_transcripts.rs"
    );
}

#[test]
fn transcript_lines_round_trip() {
    for line in [
        &b""[..],
        b"plain",
        b"trailing ",
        b"\x00\xff\\x",
        b"tab\there",
        b"caf\xc3\xa9",
    ] {
        assert_eq!(unescape(&escape(line)), line);
    }
    assert_eq!(
        mask_now(
            b"@ 2026/11/22-06:11:29.687000 x 1970/01/01-00:00:00.001000",
            2025
        ),
        b"@ <now> x 1970/01/01-00:00:00.001000"
    );
}
