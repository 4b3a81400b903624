//! The small encodings the state file's parts share with core's snapshot
//! format: LEB128 varints and the FNV-1a 64 checksum.

/// Reads a varint at `pos`, moving past it.
pub fn get_uint(buf: &[u8], pos: &mut usize) -> Option<u64> {
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

/// Reads a varint length and that many bytes at `pos`: their range.
pub fn get_bytes(buf: &[u8], pos: &mut usize) -> Option<std::ops::Range<usize>> {
    let len = usize::try_from(get_uint(buf, pos)?).ok()?;
    let start = *pos;
    let end = start.checked_add(len).filter(|&e| e <= buf.len())?;
    *pos = end;
    Some(start..end)
}

pub fn put_uint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A varint length, then the bytes.
pub fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_uint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// FNV-1a 64, the snapshot checksum.
pub fn fnv64(bytes: &[u8]) -> u64 {
    fnv64_more(0xcbf2_9ce4_8422_2325, bytes)
}

/// FNV-1a 64 of what `h` hashed, followed by `bytes`.
pub fn fnv64_more(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
