//! The state file: one instance, kept between runs as the bytes of
//! [`Instance::snapshot`] (versioned, checksummed, lossless).
//!
//! - A missing file is an empty instance; the file is created by the first
//!   command that changes something.
//! - A file that is not an intact snapshot this build reads is refused
//!   with the reason, and never written over.
//! - Saving is atomic: the snapshot goes to a temporary file in the same
//!   directory, which is flushed to disk and then renamed over the old
//!   one, so a crash leaves either the old state or the new one.
//!
//! - Commands take turns: a command holds an advisory lock on `.NAME.lock`
//!   beside the state file from loading it until it exits, so two shells
//!   writing to one file keep every write (the second waits, at most
//!   [`LOCK_WAIT`], then says so and changes nothing).
//! - Only a regular file is a state file: a pipe or a device is refused.
//!
//! The project and instance ids live in the snapshot. `-project` and
//! `-instance` rename the instance for this run (and in the file, when the
//! run saves); without them the stored names are used, and a new file
//! starts with Tabletop's defaults.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tabletop_core::{Instance, InstanceConfig};

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
fn lock(path: &Path) -> Result<(), String> {
    let mut held = HELD
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if held.is_some() {
        return Ok(());
    }
    let (dir, name) = match dir_and_name(path) {
        Ok(parts) => parts,
        Err(_) => return Ok(()),
    };
    let Ok(file) = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(format!(".{name}.lock")))
    else {
        return Ok(());
    };
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => {
                *held = Some(file);
                return Ok(());
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
            Err(TryLockError::Error(_)) => return Ok(()),
        }
    }
}

/// Loads the instance kept in `path` (an empty one if there is no such
/// file), after taking the state file's lock ([`lock`]). The error is a
/// sentence for the user.
pub fn load(path: &Path, names: Names<'_>) -> Result<Instance, String> {
    lock(path)?;
    // A pipe would block the command forever and a device never end.
    if fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(format!(
            "the state file {} is not a regular file (a directory, a device or a pipe); \
             choose another file with --state",
            path.display()
        ));
    }
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let mut config = InstanceConfig::default();
            if let Some(p) = names.project {
                config.project = p.to_string();
            }
            if let Some(i) = names.instance {
                config.instance = i.to_string();
            }
            return Ok(Instance::new(config));
        }
        Err(e) => {
            return Err(format!(
                "cannot read the state file {}: {e}",
                path.display()
            ));
        }
    };
    let bytes = rename(bytes, names);
    Instance::restore(&bytes).map_err(|e| {
        format!(
            "the state file {} cannot be used: {}. It was left as it is; move it away or \
             choose another file with --state",
            path.display(),
            e.message()
        )
    })
}

/// Writes the instance to `path` atomically (see the module docs).
pub fn save(path: &Path, instance: &mut Instance) -> io::Result<()> {
    let (dir, name) = dir_and_name(path)?;
    let target = dir.join(&name);
    // A rename would replace a file its owner made read-only: refuse, as
    // writing into it would be refused.
    if fs::metadata(&target).is_ok_and(|m| m.permissions().readonly()) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the state file is read-only; nothing was written",
        ));
    }
    let bytes = instance.snapshot();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = write_synced(&tmp, &bytes, &target).and_then(|()| fs::rename(&tmp, &target));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
        return result;
    }
    // Make the rename itself durable. Directories cannot be opened for
    // syncing everywhere; the data is safe in the file either way.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
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

/// Snapshot format constants (see `tabletop_core`'s snapshot module).
const MAGIC: &[u8; 8] = b"TBLTOPSN";
const VERSION: u64 = 1;
const VERSION_WITH_CATALOG: u64 = 2;
const VERSION_WITH_TRAFFIC: u64 = 3;

/// Gives snapshot bytes new project and instance ids. The core has no
/// setter for them, so the header is rewritten and the checksum computed
/// again; bytes that are not an intact version-1, -2 or -3 snapshot are returned as
/// they are, for [`Instance::restore`] to refuse with its own message (a
/// corrupt file must never get a fresh, valid checksum here).
fn rename(bytes: Vec<u8>, names: Names<'_>) -> Vec<u8> {
    if names.project.is_none() && names.instance.is_none() {
        return bytes;
    }
    let Some(header) = Header::read(&bytes) else {
        return bytes;
    };
    let project = names
        .project
        .map_or(&bytes[header.project.clone()], str::as_bytes);
    let instance = names
        .instance
        .map_or(&bytes[header.instance.clone()], str::as_bytes);
    if project == &bytes[header.project.clone()] && instance == &bytes[header.instance.clone()] {
        return bytes;
    }
    let mut out = Vec::with_capacity(bytes.len() + project.len() + instance.len());
    out.extend_from_slice(&bytes[..header.names_start]);
    put_uint(&mut out, project.len() as u64);
    out.extend_from_slice(project);
    put_uint(&mut out, instance.len() as u64);
    out.extend_from_slice(instance);
    out.extend_from_slice(&bytes[header.instance.end..bytes.len() - 8]);
    let sum = fnv64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Where the names are in an intact snapshot.
struct Header {
    names_start: usize,
    project: std::ops::Range<usize>,
    instance: std::ops::Range<usize>,
}

impl Header {
    fn read(bytes: &[u8]) -> Option<Header> {
        if bytes.len() < MAGIC.len() + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return None;
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let mut expect = [0u8; 8];
        expect.copy_from_slice(sum);
        if fnv64(body) != u64::from_le_bytes(expect) {
            return None;
        }
        let mut pos = MAGIC.len();
        // Versions 2 (with a SQL catalog after the tables) and 3 (with
        // traffic after that) have the same header.
        if !matches!(
            get_uint(body, &mut pos)?,
            VERSION | VERSION_WITH_CATALOG | VERSION_WITH_TRAFFIC
        ) {
            return None;
        }
        let names_start = pos;
        let project = get_bytes(body, &mut pos)?;
        let instance = get_bytes(body, &mut pos)?;
        Some(Header {
            names_start,
            project,
            instance,
        })
    }
}

fn get_uint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v: u64 = 0;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn get_bytes(buf: &[u8], pos: &mut usize) -> Option<std::ops::Range<usize>> {
    let len = usize::try_from(get_uint(buf, pos)?).ok()?;
    let start = *pos;
    let end = start.checked_add(len).filter(|&e| e <= buf.len())?;
    *pos = end;
    Some(start..end)
}

fn put_uint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// FNV-1a 64, the snapshot checksum.
fn fnv64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_core::cbt;

    fn sample() -> Instance {
        let mut db = Instance::default();
        cbt::run_line(&mut db, "createtable t families=cf").unwrap();
        cbt::run_line(&mut db, "set t r cf:q=v@1000").unwrap();
        db
    }

    #[test]
    fn renaming_keeps_everything_else() {
        let mut db = sample();
        let bytes = db.snapshot();
        let renamed = rename(
            bytes.clone(),
            Names {
                project: Some("p"),
                instance: Some("a-much-longer-instance-name"),
            },
        );
        let mut back = Instance::restore(&renamed).unwrap();
        assert_eq!(back.config().project, "p");
        assert_eq!(back.config().instance, "a-much-longer-instance-name");
        assert_eq!(
            cbt::run_line(&mut back, "read t").unwrap(),
            cbt::run_line(&mut db, "read t").unwrap()
        );
        // Only one name given: the other stays.
        let only = rename(
            bytes.clone(),
            Names {
                project: Some("q"),
                instance: None,
            },
        );
        let back = Instance::restore(&only).unwrap();
        assert_eq!(back.config().project, "q");
        assert_eq!(back.config().instance, db.config().instance);
        // Same names: the very same bytes.
        let same = rename(
            bytes.clone(),
            Names {
                project: Some(&db.config().project.clone()),
                instance: None,
            },
        );
        assert_eq!(same, bytes);
    }

    #[test]
    fn corrupt_bytes_are_not_given_a_new_checksum() {
        let mut bytes = sample().snapshot();
        let n = bytes.len();
        bytes[n / 2] ^= 0x40;
        let out = rename(
            bytes.clone(),
            Names {
                project: Some("p"),
                instance: Some("i"),
            },
        );
        assert_eq!(out, bytes);
        assert!(Instance::restore(&out).is_err());
        assert_eq!(rename(b"junk".to_vec(), Names::default()), b"junk");
        assert_eq!(
            rename(
                b"TBLTOPSN".to_vec(),
                Names {
                    project: Some("p"),
                    instance: None
                }
            ),
            b"TBLTOPSN"
        );
    }
}
