//! The state file's log: `NAME.wal` beside the snapshot `NAME`, holding
//! the commands committed since the snapshot was written, so a small
//! change costs an append instead of a rewrite of the whole state.
//!
//! ```text
//! header  "TBLTOPWL"  version (1 byte)  snapshot length, snapshot checksum,
//!         snapshot write time (ns), row bound (u64 LE each)
//!         shell length (u32 LE)  shell (a snapshot without data)
//!         FNV-1a 64 of the header before it (u64 LE)
//! record  payload length (u32 LE)  FNV-1a 64 of length and payload (u64 LE)
//!         payload (see `record`)
//! record  ...
//! ```
//!
//! - **Bound to one snapshot.** The header names the snapshot it follows
//!   by length and by the snapshot's own checksum (its last 8 bytes). A log
//!   whose header does not match the snapshot beside it is stale: a
//!   compaction wrote a new snapshot (which holds the log's records) and
//!   was stopped before it removed the log, or the snapshot was replaced
//!   by hand. A stale log is ignored and replaced by the next write, so
//!   compaction is atomic with its one rename.
//! - **Torn tails are dropped.** Records are read in order until one is
//!   incomplete or fails its checksum; that one and everything after it is
//!   a write that was cut short (`kill -9`, power loss) and never
//!   acknowledged. Readers ignore it; the next writer cuts it off before
//!   appending. A record is never half-applied: its checksum covers it all.
//! - **Durable before acknowledged.** An append is flushed to disk
//!   (`fdatasync`) before the command prints its result.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::codec::{fnv64, fnv64_more};

const MAGIC: &[u8; 8] = b"TBLTOPWL";
const VERSION: u8 = 1;
/// Length and checksum in front of each payload.
const FRAME_LEN: usize = 4 + 8;
/// The largest payload a record may carry (a JSON request line is at
/// most this long in practice; larger commands go into a snapshot).
pub const MAX_PAYLOAD: usize = 64 << 20;

/// Which snapshot a log follows: its length and its checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotId {
    pub len: u64,
    pub sum: u64,
}

impl SnapshotId {
    /// The id of snapshot bytes (their last 8 bytes are the snapshot's own
    /// checksum); `None` for bytes too short to be a snapshot.
    pub fn of(snapshot: &[u8]) -> Option<SnapshotId> {
        let tail = snapshot.len().checked_sub(8).map(|at| &snapshot[at..])?;
        Some(SnapshotId::from_tail(snapshot.len() as u64, tail))
    }

    /// The id of a snapshot of `len` bytes ending with `tail` (8 bytes).
    pub fn from_tail(len: u64, tail: &[u8]) -> SnapshotId {
        let mut sum = [0u8; 8];
        sum.copy_from_slice(&tail[..8]);
        SnapshotId {
            len,
            sum: u64::from_le_bytes(sum),
        }
    }
}

/// What a log's header says about the snapshot it follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Base {
    pub id: SnapshotId,
    /// The snapshot file's modification time just after it was written
    /// (nanoseconds since the epoch): unchanged, nobody touched the file.
    pub written_ns: u64,
    /// No row of the snapshot holds more bytes than this.
    pub row_bound: u64,
    /// The instance without its data (see `shell`).
    pub shell: Vec<u8>,
}

/// The header of a log following `base`.
pub fn header(base: &Base) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + base.shell.len());
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    for v in [base.id.len, base.id.sum, base.written_ns, base.row_bound] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let shell_len = u32::try_from(base.shell.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&shell_len.to_le_bytes());
    out.extend_from_slice(&base.shell);
    let sum = fnv64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Reads a header: the base and the header's length.
fn read_header(bytes: &[u8]) -> Option<(Base, usize)> {
    let u64_at = |at: usize| -> Option<u64> {
        let mut b = [0u8; 8];
        b.copy_from_slice(bytes.get(at..at + 8)?);
        Some(u64::from_le_bytes(b))
    };
    if bytes.get(..8)? != MAGIC || *bytes.get(8)? != VERSION {
        return None;
    }
    let fixed = 9 + 4 * 8;
    let mut n = [0u8; 4];
    n.copy_from_slice(bytes.get(fixed..fixed + 4)?);
    let shell_end = (fixed + 4).checked_add(u32::from_le_bytes(n) as usize)?;
    let end = shell_end.checked_add(8)?;
    if fnv64(bytes.get(..shell_end)?) != u64_at(shell_end)? {
        return None;
    }
    let base = Base {
        id: SnapshotId {
            len: u64_at(9)?,
            sum: u64_at(17)?,
        },
        written_ns: u64_at(25)?,
        row_bound: u64_at(33)?,
        shell: bytes[fixed + 4..shell_end].to_vec(),
    };
    Some((base, end))
}

/// One record as written: length, checksum, payload.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let len = u32::try_from(payload.len())
        .unwrap_or(u32::MAX)
        .to_le_bytes();
    let mut out = Vec::with_capacity(FRAME_LEN + payload.len());
    out.extend_from_slice(&len);
    out.extend_from_slice(&checksum(&len, payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

fn checksum(len: &[u8; 4], payload: &[u8]) -> u64 {
    fnv64_more(fnv64(len), payload)
}

/// What a log file holds for one snapshot.
#[derive(Debug, PartialEq, Eq)]
pub struct Scan {
    /// What the header says.
    pub base: Base,
    /// The payloads of the intact records, in order.
    pub records: Vec<Vec<u8>>,
    /// Where the intact part ends: the header and the intact records.
    pub good_len: u64,
    /// Bytes after that: a torn record (0 when the log ends cleanly).
    pub torn_bytes: u64,
}

/// Reads a log's bytes: `None` when they are not a log following `id`
/// (no header, a damaged header, another snapshot's log).
pub fn scan(bytes: &[u8], id: SnapshotId) -> Option<Scan> {
    let (base, mut pos) = read_header(bytes).filter(|(b, _)| b.id == id)?;
    let mut records = Vec::new();
    while let Some((payload, next)) = record_at(bytes, pos) {
        records.push(payload.to_vec());
        pos = next;
    }
    Some(Scan {
        base,
        records,
        good_len: pos as u64,
        torn_bytes: (bytes.len() - pos) as u64,
    })
}

/// The intact record at `pos` and where the next one starts.
fn record_at(bytes: &[u8], pos: usize) -> Option<(&[u8], usize)> {
    let frame = bytes.get(pos..pos.checked_add(FRAME_LEN)?)?;
    let mut len = [0u8; 4];
    len.copy_from_slice(&frame[..4]);
    let mut sum = [0u8; 8];
    sum.copy_from_slice(&frame[4..]);
    let n = u32::from_le_bytes(len) as usize;
    let start = pos + FRAME_LEN;
    let payload = bytes.get(start..start.checked_add(n)?)?;
    (checksum(&len, payload) == u64::from_le_bytes(sum)).then_some((payload, start + n))
}

/// Reads the log at `path` for the snapshot `id`: `Ok(None)` when there is
/// no log, or one that does not follow this snapshot.
pub fn read(path: &Path, id: SnapshotId) -> io::Result<Option<Scan>> {
    let mut bytes = Vec::new();
    match File::open(path) {
        Ok(mut f) => f.read_to_end(&mut bytes)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(scan(&bytes, id))
}

/// Appends framed records to the log at `path`, which holds `good_len`
/// intact bytes (anything after them, a torn record, is cut off first),
/// and flushes them to disk.
pub fn append(path: &Path, good_len: u64, framed: &[u8]) -> io::Result<()> {
    let mut f = OpenOptions::new().write(true).open(path)?;
    f.set_len(good_len)?;
    f.seek(SeekFrom::Start(good_len))?;
    f.write_all(framed)?;
    f.sync_data()
}

/// Starts a new log at `path` following `base`, with `framed` records,
/// flushed to disk; returns its length. A log already there (a stale
/// one) is replaced.
pub fn create(path: &Path, base: &Base, framed: &[u8]) -> io::Result<u64> {
    let mut f = File::create(path)?;
    let mut bytes = header(base);
    bytes.extend_from_slice(framed);
    f.write_all(&bytes)?;
    f.sync_all()?;
    Ok(bytes.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: SnapshotId = SnapshotId { len: 1234, sum: 99 };

    fn base() -> Base {
        Base {
            id: ID,
            written_ns: 5,
            row_bound: 77,
            shell: b"shell".to_vec(),
        }
    }

    fn header_len() -> usize {
        header(&base()).len()
    }

    fn log_of(payloads: &[&[u8]]) -> Vec<u8> {
        let mut bytes = header(&base());
        for p in payloads {
            bytes.extend_from_slice(&frame(p));
        }
        bytes
    }

    #[test]
    fn records_come_back_in_order() {
        let bytes = log_of(&[b"one", b"", b"three"]);
        let scan = scan(&bytes, ID).unwrap();
        assert_eq!(
            scan.records,
            vec![b"one".to_vec(), vec![], b"three".to_vec()]
        );
        assert_eq!(scan.good_len, bytes.len() as u64);
        assert_eq!(scan.torn_bytes, 0);
        assert_eq!(scan.base, base());
    }

    #[test]
    fn a_torn_or_damaged_tail_is_dropped_and_nothing_after_it_is_read() {
        let whole = log_of(&[b"one", b"two"]);
        let first_end = (header_len() + FRAME_LEN + 3) as u64;
        // Cut anywhere inside the second record.
        for cut in first_end as usize..whole.len() {
            let scan = scan(&whole[..cut], ID).unwrap();
            assert_eq!(scan.records, vec![b"one".to_vec()], "cut at {cut}");
            assert_eq!(scan.good_len, first_end);
            assert_eq!(scan.torn_bytes, cut as u64 - first_end);
        }
        // A flipped bit in the second payload, or garbage after the log.
        let mut flipped = whole.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(scan(&flipped, ID).unwrap().records.len(), 1);
        let mut garbage = whole.clone();
        garbage.extend_from_slice(&[0xff; 40]);
        let s = scan(&garbage, ID).unwrap();
        assert_eq!(s.records.len(), 2);
        assert_eq!(s.torn_bytes, 40);
        // A huge length in a torn frame is not believed.
        let mut huge = whole;
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        huge.extend_from_slice(&[0; 8]);
        assert_eq!(scan(&huge, ID).unwrap().records.len(), 2);
    }

    #[test]
    fn a_log_of_another_snapshot_or_with_a_bad_header_is_not_read() {
        let bytes = log_of(&[b"one"]);
        let other = SnapshotId { len: 1234, sum: 98 };
        assert_eq!(scan(&bytes, other), None);
        for cut in 0..header_len() {
            assert_eq!(scan(&bytes[..cut], ID), None, "cut at {cut}");
        }
        for at in [9, 30, 40, 48] {
            let mut bad = bytes.clone();
            bad[at] ^= 1;
            assert_eq!(scan(&bad, ID), None, "flip at {at}");
        }
        // A header alone is an empty log.
        assert_eq!(scan(&bytes[..header_len()], ID).unwrap().records.len(), 0);
    }

    #[test]
    fn appending_cuts_off_a_torn_tail_first() {
        let dir = std::env::temp_dir().join(format!("tabletop-wal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.wal");
        create(&path, &base(), &frame(b"one")).unwrap();
        let good = read(&path, ID).unwrap().unwrap().good_len;
        // A torn second record, as `kill -9` in the middle of a write leaves.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&frame(b"two")[..7]).unwrap();
        drop(f);
        append(&path, good, &frame(b"three")).unwrap();
        let scan = read(&path, ID).unwrap().unwrap();
        assert_eq!(scan.records, vec![b"one".to_vec(), b"three".to_vec()]);
        assert_eq!(scan.torn_bytes, 0);
        assert_eq!(read(&dir.join("none.wal"), ID).unwrap(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn snapshot_ids_come_from_the_last_eight_bytes() {
        let id = SnapshotId::of(b"abcdefgh\x01\0\0\0\0\0\0\0").unwrap();
        assert_eq!(id, SnapshotId { len: 16, sum: 1 });
        assert_eq!(SnapshotId::of(b"short"), None);
    }
}
