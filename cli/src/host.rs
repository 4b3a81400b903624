//! What the `cbt` interpreter gets from the machine: files (`import`'s CSV,
//! `format-file=`), the wall clock, and a place to report import progress.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tabletop_core::Instance;
use tabletop_core::cbt::{self, Host};

/// The wall clock in microseconds since the Unix epoch (0 if the system
/// clock is before 1970).
pub fn wall_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

/// How often a long run lets the engine do its due work.
const ENGINE_WORK_EVERY: Duration = Duration::from_millis(10);

/// Keeps an instance's clock at wall time before each command or request,
/// as `Instance::sync_wall_clock` does, unless the clock is simulated.
///
/// `sync_wall_clock` also runs the engine's due work (flushes, GC
/// compactions, splits and merges), which looks at every tablet: about
/// half a millisecond with a million rows in the playground's small
/// tablets. So a long run (a script, a stream of JSON requests) does that
/// at most every 10 ms and in between only moves the clock; nothing it
/// would do is lost, only batched.
#[derive(Debug, Default)]
pub struct WallClock {
    last_work: Option<Instant>,
}

impl WallClock {
    /// Moves the clock; returns whether that did engine work the state
    /// file's log must repeat when it replays the next command (see
    /// `state::record`).
    pub fn sync(&mut self, db: &mut Instance) -> bool {
        if db.clock_is_simulated() {
            return false;
        }
        let wall = wall_micros();
        if self
            .last_work
            .is_none_or(|t| t.elapsed() >= ENGINE_WORK_EVERY)
        {
            let events = db.sync_wall_clock(wall);
            self.last_work = Some(Instant::now());
            crate::state::record::did_engine_work(db, events.len())
        } else {
            db.set_now(wall.max(db.now_micros()));
            false
        }
    }
}

/// Files from the file system (paths relative to the working directory),
/// the system clock, and progress lines on stderr.
#[derive(Debug)]
pub struct FsHost {
    /// Rows between two progress lines; `None`: no progress lines.
    progress_every: Option<usize>,
    /// When the current command started.
    started: Instant,
    /// Rows the current `import` has written so far.
    rows_written: usize,
    /// The row count of the last progress line.
    last_reported: usize,
}

impl FsHost {
    pub fn new(progress_every: Option<usize>) -> FsHost {
        FsHost {
            progress_every,
            started: Instant::now(),
            rows_written: 0,
            last_reported: 0,
        }
    }

    /// Call before each command.
    pub fn start_command(&mut self) {
        self.started = Instant::now();
        self.rows_written = 0;
        self.last_reported = 0;
    }

    /// Call after each command: the closing progress line of an import.
    pub fn finish_command(&mut self) {
        if self.progress_every.is_some() && self.rows_written > 0 {
            progress_line(&format!(
                "import: {} rows written in {:.1} s",
                self.rows_written,
                self.started.elapsed().as_secs_f64()
            ));
        }
    }
}

fn progress_line(text: &str) {
    // Progress is a courtesy: a closed stderr is no reason to stop.
    let _ = writeln!(std::io::stderr().lock(), "tabletop: {text}");
}

/// A pipe would block forever and a device never end: only regular files
/// are read.
fn refuse_non_regular(path: &str) -> Result<(), String> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(format!(
            "{path} is not a regular file (a directory, a device or a pipe)"
        ));
    }
    Ok(())
}

impl Host for FsHost {
    /// `format-file=`: a small text, capped like every text input.
    fn read_file(&mut self, path: &str) -> Result<Vec<u8>, String> {
        refuse_non_regular(path)?;
        let file = File::open(path).map_err(|e| cbt::open_error_text(path, &e))?;
        crate::input::read_capped_bytes(file, "file").map_err(|e| format!("read {path}: {e}"))
    }

    /// `import`'s CSV: streamed, so it has no size cap.
    fn open_file(&mut self, path: &str) -> Result<Box<dyn BufRead>, String> {
        refuse_non_regular(path)?;
        let file = File::open(path).map_err(|e| cbt::open_error_text(path, &e))?;
        Ok(Box::new(BufReader::with_capacity(256 << 10, file)))
    }

    fn wall_clock_micros(&mut self) -> Option<i64> {
        Some(wall_micros())
    }

    fn import_progress(&mut self, rows_written: usize) {
        self.rows_written = rows_written;
        let Some(every) = self.progress_every else {
            return;
        };
        if rows_written / every > self.last_reported / every {
            self.last_reported = rows_written;
            let secs = self.started.elapsed().as_secs_f64();
            let rate = if secs > 0.0 {
                format!(", {:.0} rows/s", rows_written as f64 / secs)
            } else {
                String::new()
            };
            progress_line(&format!(
                "import: {rows_written} rows written ({secs:.1} s{rate})"
            ));
        }
    }
}
