//! `-project` and `-instance` on a run: new names for the instance in
//! snapshot bytes, written into the snapshot's header.

use super::Names;
use super::codec::{fnv64, get_bytes, get_uint, put_uint};

/// Snapshot format constants (see `tabletop_core`'s snapshot module).
const MAGIC: &[u8; 8] = b"TBLTOPSN";
const VERSION: u64 = 1;
const VERSION_WITH_CATALOG: u64 = 2;
const VERSION_WITH_TRAFFIC: u64 = 3;

/// Gives snapshot bytes new project and instance ids. The core has no
/// setter for them, so the header is rewritten and the checksum computed
/// again; bytes that are not an intact version-1, -2 or -3 snapshot are returned as
/// they are, for `Instance::restore` to refuse with its own message (a
/// corrupt file must never get a fresh, valid checksum here).
pub fn rename(bytes: Vec<u8>, names: Names<'_>) -> Vec<u8> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_core::{Instance, cbt};

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
