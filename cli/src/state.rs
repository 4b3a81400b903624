//! The state file: one instance kept between runs, as a snapshot
//! ([`Instance::snapshot`]: versioned, checksummed, lossless) and a log of
//! the commands committed since ([`log`], [`record`]).
//!
//! - A missing file is an empty instance; the file is created by the first
//!   command that changes something.
//! - A file that is not an intact snapshot this build reads is refused
//!   with the reason, and never written over.
//! - **Writes cost the change.** A run whose changes the log can hold
//!   (data writes: `cbt set`, `mutateRows`, ...; schema changes: `cbt
//!   createtable`, `modifyColumnFamilies`, views, deletion protection,
//!   ...) appends them to `NAME.wal` beside the snapshot and flushes it to
//!   disk; opening the file replays the log on the snapshot. Anything
//!   else (a clock change, an import, SQL, a run that also read and so
//!   recorded traffic) writes a new snapshot: a **compaction**, which also
//!   happens when the log grows past [`MAX_LOG_RECORDS`] records or a
//!   quarter of the snapshot's size, so opening never replays much.
//! - **A one-shot write does not load the snapshot.** The log's header
//!   holds the instance's [`shell`] (tables, families, clock, no rows), so
//!   `tabletop cbt set ...` runs on the shell with the log replayed on it,
//!   which gives the write's true outcome, and appends ([`open_shell`]).
//!   The log's schema changes replay on the shell too, so a new table or
//!   family is there for the next one-shot write.
//!   It does so only while the snapshot is untouched since it was written
//!   (same length, checksum and modification time); otherwise the whole
//!   instance is loaded and checked.
//! - **Crash-safe.** A compaction writes the snapshot to a temporary file
//!   in the same directory, flushes it and renames it over the old one,
//!   then starts a new, empty log; a log left behind names the snapshot it
//!   follows, no longer matches, and is ignored. A record cut short by a
//!   crash fails its checksum and is dropped. A temporary file left by a
//!   killed compaction is removed by the next command.
//! - Commands take turns: a command holds an advisory lock on `.NAME.lock`
//!   beside the state file from loading it until it exits, so two shells
//!   writing to one file keep every write (the second waits, at most
//!   [`LOCK_WAIT`], then says so and changes nothing). The lock covers
//!   appends to the log and compactions.
//! - Only a regular file is a state file: a pipe or a device is refused.
//!
//! Why the log lives in the CLI and not in the core: what it records is
//! what the CLI committed, the commands of its two input languages as it
//! ran them with its wall clock, replayed through the core's public
//! interpreters ([`record`]). The snapshot stays the core's opaque bytes:
//! the log only reads its length and last 8 bytes (its checksum) to know
//! which snapshot it follows, so a new snapshot encoding needs no change
//! here.
//!
//! The file keeps every instance (each a separate namespace of tables; see
//! `tabletop_core::Instances`). `-project` and `-instance` select the
//! instance a command works on ([`select`]); without them it is the file's
//! first instance. A new file's first instance takes the names given (else
//! Tabletop's defaults); files of one instance load as that one instance.
//! Every log record names the instance it ran against and replays there.
//! The shell of the one-shot writes is the first instance's.

mod codec;
mod log;
pub mod record;
pub mod shell;

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};

use log::{Base, SnapshotId};
use record::Record;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tabletop_core::{Fidelity, Instance, InstanceConfig, Instances};

/// The file used when neither `--state` nor `TABLETOP_STATE` names one.
pub const DEFAULT_FILE: &str = "tabletop.state";

/// The environment variable that names the state file.
pub const ENV_VAR: &str = "TABLETOP_STATE";

/// The state file a run uses: `--state`, else `$TABLETOP_STATE`, else
/// `./tabletop.state`.
pub fn path(option: Option<&Path>) -> PathBuf {
    if let Some(p) = option {
        return p.to_path_buf();
    }
    match std::env::var_os(ENV_VAR) {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => PathBuf::from(DEFAULT_FILE),
    }
}

/// Names to give the instance, from `-project` / `-instance`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Names<'a> {
    pub project: Option<&'a str>,
    pub instance: Option<&'a str>,
}

/// How long a command waits for another one using the same state file.
pub const LOCK_WAIT: Duration = Duration::from_secs(30);

/// The lock this process holds on its state file, kept until it exits
/// (the operating system lets go of it then, also after a crash).
static HELD: Mutex<Option<File>> = Mutex::new(None);

/// Waits (up to [`LOCK_WAIT`]) until no other process uses the state file
/// at `path`, then holds it for the rest of this process, so two commands
/// never both load the same state and each save their own: one runs after
/// the other. The lock is an advisory lock on `.NAME.lock` beside the file
/// (the state file itself is replaced by every save, so it cannot carry
/// the lock). Where the lock file cannot be created (a read-only folder),
/// nothing can be saved either, and the command goes on without it.
/// Returns whether this process holds the lock.
fn lock(path: &Path) -> Result<bool, String> {
    let mut held = HELD
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if held.is_some() {
        return Ok(true);
    }
    let (dir, name) = match dir_and_name(path) {
        Ok(parts) => parts,
        Err(_) => return Ok(false),
    };
    let Ok(file) = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(format!(".{name}.lock")))
    else {
        return Ok(false);
    };
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => {
                *held = Some(file);
                return Ok(true);
            }
            Err(TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(TryLockError::WouldBlock) => {
                return Err(format!(
                    "another tabletop command has been using the state file {} for {} seconds; \
                     nothing was changed. Try again when it is done",
                    path.display(),
                    LOCK_WAIT.as_secs()
                ));
            }
            // Locks not supported on this file system: go on without.
            Err(TryLockError::Error(_)) => return Ok(false),
        }
    }
}

/// Most records the log holds before a run compacts it into a snapshot
/// (replaying a record costs about what the command did: microseconds).
pub const MAX_LOG_RECORDS: usize = 1000;

/// The log may grow to a quarter of the snapshot, and at least this much.
const MIN_LOG_BYTES: u64 = 256 << 10;

/// The state file of this run: what is on disk, and the changes of this
/// run not yet saved. [`open`] gives it with the instance; commands
/// [`StateFile::log`] what they committed, or say [`StateFile::changed`]
/// for a change the log cannot hold, and [`StateFile::save`] at the end.
#[derive(Debug)]
pub struct StateFile {
    path: PathBuf,
    /// The snapshot on disk and its log; `None` before the file exists.
    on_disk: Option<OnDisk>,
    /// Framed records of this run, not yet written.
    pending: Vec<u8>,
    pending_records: usize,
    /// The same records, for [`upgrade`].
    pending_list: Vec<Record>,
    /// The next save writes a snapshot.
    compact: bool,
    /// The instance of this run is a shell ([`open_shell`]): it may only
    /// append to the log, never be saved as a snapshot.
    shell: bool,
    /// The header of the log to start when the snapshot read has none:
    /// taken when the file was opened, before any command ran, so its
    /// shell is the snapshot's and the run's records replay on it.
    unlogged_base: Option<Base>,
}

#[derive(Debug)]
struct OnDisk {
    id: SnapshotId,
    /// The intact length and record count of the log following this
    /// snapshot; `None` when there is none (a stale one is replaced).
    log: Option<(u64, usize)>,
}

/// The log beside the state file `path`: `NAME.wal`.
pub fn log_path(path: &Path) -> PathBuf {
    let (dir, name) = dir_and_name(path).unwrap_or_else(|_| (PathBuf::from("."), String::new()));
    dir.join(format!("{name}.wal"))
}

/// Why a run may not use the state file `path`: it was written with
/// `--emulator-parity` and the run lacks it (`parity` false), or the other
/// way round.
pub fn fidelity_mismatch(path: &Path, parity: bool) -> String {
    if parity {
        format!(
            "the state file {} was written without --emulator-parity, so it holds only what \
             production Bigtable accepts; a run with --emulator-parity needs a state file of \
             its own (choose one with --state). Nothing was changed",
            path.display()
        )
    } else {
        format!(
            "the state file {} was written with --emulator-parity and may hold what only \
             Google's emulator accepts; pass --emulator-parity to use it, or choose another \
             file with --state. Nothing was changed",
            path.display()
        )
    }
}

/// Loads the instance kept in `path` (an empty one if there is no such
/// file) and replays its log, after taking the state file's lock
/// ([`lock`]). The error is a sentence for the user.
pub fn open(path: &Path, names: Names<'_>) -> Result<(StateFile, Instances), String> {
    let held = lock(path)?;
    // A pipe would block the command forever and a device never end.
    if fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(format!(
            "the state file {} is not a regular file (a directory, a device or a pipe); \
             choose another file with --state",
            path.display()
        ));
    }
    if held {
        remove_leftovers(path);
    }
    let mut file = StateFile {
        path: path.to_path_buf(),
        on_disk: None,
        pending: Vec::new(),
        pending_records: 0,
        pending_list: Vec::new(),
        compact: false,
        shell: false,
        unlogged_base: None,
    };
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok((file, Instances::new(new_instance(names))));
        }
        Err(e) => {
            return Err(format!(
                "cannot read the state file {}: {e}",
                path.display()
            ));
        }
    };
    let id = SnapshotId::of(&bytes);
    let mut db = Instances::restore(&bytes).map_err(|e| {
        format!(
            "the state file {} cannot be used: {}. It was left as it is; move it away or \
             choose another file with --state",
            path.display(),
            e.message()
        )
    })?;
    drop(bytes);
    if let Some(id) = id {
        let replayed = replay(path, id, &mut db)?;
        let log = replayed.map(|(len, records, _)| (len, records));
        // A snapshot copied or restored (a new modification time): the
        // next save writes it again, with a log the one-shot writes can
        // use ([`open_shell`] needs the time the log names).
        let written = fs::metadata(path).map_or(0, |m| modified_ns(&m));
        if replayed.is_some_and(|(_, _, stamp)| stamp != written) {
            file.compact = true;
        }
        if log.is_none() {
            // Without it, the next save writes a snapshot instead.
            file.unlogged_base = base_of(path, id, &db).ok();
        }
        file.on_disk = Some(OnDisk { id, log });
    }
    Ok((file, db))
}

fn new_instance(names: Names<'_>) -> Instance {
    let mut config = InstanceConfig::default();
    if let Some(p) = names.project {
        config.project = p.to_string();
    }
    if let Some(i) = names.instance {
        config.instance = i.to_string();
    }
    Instance::new(config)
}

/// Replays the log following the snapshot `id` on `db`; returns the log's
/// intact length, record count and the snapshot time its header names
/// (`None`: no log for this snapshot).
fn replay(
    path: &Path,
    id: SnapshotId,
    db: &mut Instances,
) -> Result<Option<(u64, usize, u64)>, String> {
    let wal = log_path(path);
    let scan = log::read(&wal, id)
        .map_err(|e| format!("cannot read the state file's log {}: {e}", wal.display()))?;
    let Some(scan) = scan else {
        return Ok(None);
    };
    for (i, payload) in scan.records.iter().enumerate() {
        Record::decode(payload)
            .and_then(|r| r.replay_in(db))
            .map_err(|e| {
                format!(
                    "the state file's log {} cannot be replayed: record {} of {}: {e}. Both \
                     files were left as they are; move the log away to open the snapshot \
                     without its changes",
                    wal.display(),
                    i + 1,
                    scan.records.len()
                )
            })?;
    }
    Ok(Some((
        scan.good_len,
        scan.records.len(),
        scan.base.written_ns,
    )))
}

/// Removes temporary files of compactions that were killed before their
/// rename (`.NAME.tmp-PID`). Only while holding the lock: then no other
/// process is writing one.
fn remove_leftovers(path: &Path) {
    let Ok((dir, name)) = dir_and_name(path) else {
        return;
    };
    let prefix = format!(".{name}.tmp-");
    let Ok(entries) = fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The instance `names` select (made if it does not exist yet; the first
/// instance's ids fill in what is not given). The error is a sentence for
/// the user.
pub fn select<'a>(all: &'a mut Instances, names: Names<'_>) -> Result<&'a mut Instance, String> {
    let primary = all.primary().config();
    let project = names.project.unwrap_or(&primary.project).to_string();
    let instance = names.instance.unwrap_or(&primary.instance).to_string();
    all.select(&project, &instance)
        .map_err(|e| e.message().to_string())
}

/// Loads the instance kept in `path`, with its log replayed (see [`open`]),
/// for a command that saves, if at all, with [`save`].
pub fn load(path: &Path, names: Names<'_>) -> Result<Instances, String> {
    open(path, names).map(|(_, db)| db)
}

impl StateFile {
    /// Whether a run answering as the emulator (`parity`) or as
    /// production may use this file, whose instances answer as `saved`
    /// (the setting travels in the snapshot). A file keeps the fidelity it
    /// was created with: one written with `--emulator-parity` may hold
    /// what only the emulator accepts (a write applied up to its failing
    /// mutation, a table id production refuses), and one written without
    /// it must never take such state in. A new file takes the run's. The
    /// error is a sentence for the user.
    pub fn check_fidelity(&self, saved: Fidelity, parity: bool) -> Result<(), String> {
        if self.on_disk.is_none() || saved.is_emulator() == parity {
            return Ok(());
        }
        Err(fidelity_mismatch(&self.path, parity))
    }

    /// The state file's path, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many records of this run are not saved yet.
    pub fn pending_records(&self) -> usize {
        self.pending_records
    }

    /// Adds a committed command to the log (written by [`StateFile::save`]).
    pub fn log(&mut self, record: &Record) {
        let payload = record.encode();
        if payload.len() > log::MAX_PAYLOAD {
            self.compact = true;
            return;
        }
        self.pending.extend_from_slice(&log::frame(&payload));
        self.pending_records += 1;
        self.pending_list.push(record.clone());
    }

    /// The instance changed in a way the log does not hold: the next save
    /// writes a snapshot.
    pub fn changed(&mut self) {
        self.compact = true;
    }

    /// Saves this run's changes: appends them to the log, or writes a new
    /// snapshot ([`save`]) when the log cannot hold them or has grown
    /// enough to be compacted.
    pub fn save(&mut self, db: &mut Instances) -> io::Result<()> {
        let append = match &self.on_disk {
            Some(disk) if self.appends(disk) => Some((disk.id, disk.log)),
            _ => None,
        };
        let Some((id, log)) = append else {
            if self.shell {
                return Err(io::Error::other(
                    "this run holds no whole instance to write a snapshot of",
                ));
            }
            let on_disk = write_snapshot(&self.path, db)?;
            self.on_disk = Some(on_disk);
            return self.done();
        };
        if self.pending.is_empty() {
            return Ok(());
        }
        refuse_read_only(&self.path)?;
        let wal = log_path(&self.path);
        let (len, records) = match log {
            Some((len, records)) => {
                log::append(&wal, len, &self.pending)?;
                (len, records)
            }
            None => {
                // The snapshot was read whole and found intact by this
                // run, which took its header then (the shell must be the
                // snapshot's, without this run's schema changes).
                let base = self
                    .unlogged_base
                    .take()
                    .ok_or_else(|| io::Error::other("no log header was taken"))?;
                let len = log::create(&wal, &base, &[])?;
                log::append(&wal, len, &self.pending)?;
                sync_dir(&wal);
                (len, 0)
            }
        };
        let log = Some((
            len + self.pending.len() as u64,
            records + self.pending_records,
        ));
        self.on_disk = Some(OnDisk { id, log });
        self.done()
    }

    fn done(&mut self) -> io::Result<()> {
        self.pending.clear();
        self.pending_records = 0;
        self.pending_list.clear();
        self.compact = false;
        Ok(())
    }

    /// Whether [`StateFile::save`] would append this run's records to the
    /// log (not write a snapshot).
    pub fn can_append(&self) -> bool {
        self.on_disk.as_ref().is_some_and(|d| self.appends(d))
    }

    /// Whether this run's records go to the log following `disk`: nothing
    /// asked for a snapshot, they fit, and there is a log or its header.
    fn appends(&self, disk: &OnDisk) -> bool {
        !self.compact && self.fits(disk) && (disk.log.is_some() || self.unlogged_base.is_some())
    }

    /// Whether the log, with this run's records, stays small enough.
    fn fits(&self, disk: &OnDisk) -> bool {
        let (len, records) = disk.log.unwrap_or((0, 0));
        let bytes = len + self.pending.len() as u64;
        records + self.pending_records <= MAX_LOG_RECORDS
            && bytes <= (disk.id.len / 4).max(MIN_LOG_BYTES)
    }
}

/// A rename would replace a file its owner made read-only, and an append
/// would change what its owner froze: refuse, as writing into it would be
/// refused.
fn refuse_read_only(path: &Path) -> io::Result<()> {
    if fs::metadata(path).is_ok_and(|m| m.permissions().readonly()) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the state file is read-only; nothing was written",
        ));
    }
    Ok(())
}

/// Writes the instance to `path` as a new snapshot, atomically (see the
/// module docs), and removes the log it holds.
pub fn save(path: &Path, instance: &mut Instances) -> io::Result<()> {
    write_snapshot(path, instance).map(|_| ())
}

/// The state file opened for one write without loading the snapshot: the
/// shell from the log's header ([`shell`]) with the log's records replayed
/// on it, and a bound on the snapshot's rows. `None` when the whole
/// instance must be loaded instead: no log with a shell for this snapshot,
/// a snapshot changed since it was written (so unchecked), records other
/// the shell cannot replay (`record::replays_on_shell`), other names, a log due
/// for compaction.
pub fn open_shell(
    path: &Path,
    names: Names<'_>,
) -> Result<Option<(StateFile, Instance, u64)>, String> {
    // Without the lock, or for anything but a regular file, the whole
    // load decides and says why.
    if !lock(path)? {
        return Ok(None);
    }
    let Ok(meta) = fs::metadata(path) else {
        return Ok(None);
    };
    if !meta.is_file() || meta.len() < 8 {
        return Ok(None);
    }
    remove_leftovers(path);
    let Some(id) = snapshot_id(path, meta.len()) else {
        return Ok(None);
    };
    let Ok(Some(scan)) = log::read(&log_path(path), id) else {
        return Ok(None);
    };
    if scan.base.written_ns == 0 || scan.base.written_ns != modified_ns(&meta) {
        return Ok(None);
    }
    let Ok(mut shell) = Instance::restore(&scan.base.shell) else {
        return Ok(None);
    };
    let config = shell.config().clone();
    if names.project.is_some_and(|p| p != config.project)
        || names.instance.is_some_and(|i| i != config.instance)
    {
        return Ok(None);
    }
    for payload in &scan.records {
        let Ok(record) = Record::decode(payload) else {
            return Ok(None);
        };
        // Another instance's change leaves the shell's as it was.
        if !record.ran_in(&config.project, &config.instance) {
            continue;
        }
        if !record::replays_on_shell(&record.command) || record.replay(&mut shell).is_err() {
            return Ok(None);
        }
    }
    let file = StateFile {
        path: path.to_path_buf(),
        on_disk: Some(OnDisk {
            id,
            log: Some((scan.good_len, scan.records.len())),
        }),
        pending: Vec::new(),
        pending_records: 0,
        pending_list: Vec::new(),
        compact: false,
        shell: true,
        unlogged_base: None,
    };
    Ok(Some((file, shell, scan.base.row_bound)))
}

/// Loads the whole instance for a run that began on the shell
/// ([`open_shell`]) and now needs more than the shell holds: the snapshot
/// and its log as on disk, then the records of this run not yet saved,
/// which stay pending. Records after the first `keep` are dropped (a
/// write the shell could not decide is run again on the whole instance).
pub fn upgrade(
    shell_file: StateFile,
    names: Names<'_>,
    keep: usize,
) -> Result<(StateFile, Instances), String> {
    let (mut file, mut db) = open(&shell_file.path, names)?;
    for record in shell_file.pending_list.iter().take(keep) {
        record.replay_in(&mut db).map_err(|e| {
            format!("a write of this run cannot be applied to the whole instance: {e}")
        })?;
        file.log(record);
    }
    Ok((file, db))
}

/// The id of the snapshot at `path` of `len` bytes, from its last 8 bytes.
fn snapshot_id(path: &Path, len: u64) -> Option<SnapshotId> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = File::open(path).ok()?;
    f.seek(SeekFrom::Start(len - 8)).ok()?;
    let mut tail = [0u8; 8];
    f.read_exact(&mut tail).ok()?;
    Some(SnapshotId::from_tail(len, &tail))
}

/// [`save`]: the snapshot, then a new log with its header (the shell
/// and the snapshot's id), in place of the old log.
fn write_snapshot(path: &Path, instance: &mut Instances) -> io::Result<OnDisk> {
    let (dir, name) = dir_and_name(path)?;
    let target = dir.join(&name);
    refuse_read_only(&target)?;
    // An instance only named (selected, never given a table) is not kept.
    instance.prune();
    let bytes = instance.snapshot();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = write_synced(&tmp, &bytes, &target).and_then(|()| fs::rename(&tmp, &target));
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(&target);
    let id = SnapshotId::of(&bytes).ok_or_else(|| io::Error::other("empty snapshot"))?;
    drop(bytes);
    // The old log follows another snapshot now (a crash before this point
    // leaves it stale, and it is ignored); a new, empty one replaces it.
    let wal = dir.join(format!("{name}.wal"));
    let log = base_of(&target, id, instance).and_then(|base| log::create(&wal, &base, &[]));
    match log {
        Ok(len) => Ok(OnDisk {
            id,
            log: Some((len, 0)),
        }),
        Err(_) => {
            match fs::remove_file(&wal) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
            Ok(OnDisk { id, log: None })
        }
    }
}

/// The header of a log following the snapshot `id` at `path`, which holds
/// `db`, intact (it was just written, or read whole).
fn base_of(path: &Path, id: SnapshotId, db: &Instances) -> io::Result<Base> {
    let (shell, row_bound) = shell::of(db.primary())?;
    Ok(Base {
        id,
        written_ns: modified_ns(&fs::metadata(path)?),
        row_bound,
        shell,
    })
}

/// A file's modification time in nanoseconds since the epoch (0 where the
/// file system has none).
fn modified_ns(meta: &fs::Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Makes a rename or a new file in `file`'s folder durable. Folders cannot
/// be opened for syncing everywhere; the data is safe in the file either
/// way.
fn sync_dir(file: &Path) {
    if let Some(dir) = file.parent()
        && let Ok(d) = File::open(if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        })
    {
        let _ = d.sync_all();
    }
}

/// The folder and file name of the state file, through a symbolic link
/// to the file it names (so a save keeps the link a link).
fn dir_and_name(path: &Path) -> io::Result<(PathBuf, String)> {
    let target = match fs::canonicalize(path) {
        Ok(p) => p,
        Err(_) => path.to_path_buf(),
    };
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    Ok((dir, name))
}

fn write_synced(tmp: &Path, bytes: &[u8], old: &Path) -> io::Result<()> {
    // A leftover from a crashed run with the same process id is ours to
    // replace; anything else named like this is not expected.
    let _ = fs::remove_file(tmp);
    let mut f = OpenOptions::new().write(true).create_new(true).open(tmp)?;
    f.write_all(bytes)?;
    if let Ok(meta) = fs::metadata(old) {
        let _ = fs::set_permissions(tmp, meta.permissions());
    }
    f.sync_all()
}
