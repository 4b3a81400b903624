//! The state file: every instance, kept between runs as the bytes of
//! [`Instances::snapshot`] (versioned, checksummed, lossless).
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
//! The file keeps every instance (each a separate namespace of tables).
//! `-project` and `-instance` select the instance a command works on
//! ([`select`]); without them it is the file's first instance. A new file's
//! first instance takes the names given (else Tabletop's defaults); older
//! files of one instance load as that one instance.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tabletop_core::{Instance, InstanceConfig, Instances};

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

/// The instance to work on, from `-project` / `-instance`.
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

/// Loads the instances kept in `path` (one empty instance if there is no
/// such file, named by `names`), after taking the state file's lock
/// ([`lock`]). The error is a sentence for the user.
pub fn load(path: &Path, names: Names<'_>) -> Result<Instances, String> {
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
            return Ok(Instances::new(Instance::new(config)));
        }
        Err(e) => {
            return Err(format!(
                "cannot read the state file {}: {e}",
                path.display()
            ));
        }
    };
    Instances::restore(&bytes).map_err(|e| {
        format!(
            "the state file {} cannot be used: {}. It was left as it is; move it away or \
             choose another file with --state",
            path.display(),
            e.message()
        )
    })
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

/// Writes the instances to `path` atomically (see the module docs).
pub fn save(path: &Path, instance: &mut Instances) -> io::Result<()> {
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
    // An instance only named (selected, never given a table) is not kept.
    instance.prune();
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

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_core::cbt;

    #[test]
    fn names_select_an_instance_and_make_it_when_new() {
        let mut all = Instances::default();
        cbt::run_line(all.primary_mut(), "createtable t families=cf").unwrap();
        let names = Names {
            project: Some("p"),
            instance: Some("other"),
        };
        let other = select(&mut all, names).unwrap();
        assert_eq!(other.config().instance, "other");
        assert!(other.list_tables().is_empty());
        cbt::run_line(other, "createtable e").unwrap();
        // Only the instance given changes; the other id is the first's.
        let first = select(&mut all, Names::default()).unwrap();
        assert_eq!(first.list_tables()[0].id, "t");
        let bad = Names {
            project: None,
            instance: Some("a b"),
        };
        assert!(select(&mut all, bad).is_err());
        assert_eq!(all.len(), 2);
        let back = Instances::restore(&all.snapshot()).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back.get("p", "other").unwrap().list_tables()[0].id, "e");
    }
}
