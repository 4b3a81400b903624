//! A small PNG encoder for heatmaps: 8-bit RGBA, each cell drawn as a
//! block of pixels, the image data in stored (uncompressed) deflate
//! blocks, so no compression library is needed. Heatmaps are small (at
//! most 1000 x a few hundred cells), and the files stay a few megabytes.

/// PNG bytes of a `width` x `height` image whose cell `(x, y)` has the
/// colour `rgba[4 * (y * width + x)..][..4]`, each cell drawn as a
/// `scale_x` x `scale_y` block. Missing pixels (a short buffer) are
/// transparent.
#[must_use]
pub fn encode_rgba(width: u32, height: u32, rgba: &[u8], scale_x: u32, scale_y: u32) -> Vec<u8> {
    let (sx, sy) = (scale_x.max(1), scale_y.max(1));
    let (w, h) = (width.saturating_mul(sx), height.saturating_mul(sy));
    let mut raw = Vec::with_capacity((w as usize * 4 + 1) * h as usize);
    for y in 0..h {
        raw.push(0); // filter: none
        let row = (y / sy) as usize;
        for x in 0..w {
            let cell = row * width as usize + (x / sx) as usize;
            let px = rgba.get(cell * 4..cell * 4 + 4).unwrap_or(&[0, 0, 0, 0]);
            raw.extend_from_slice(px);
        }
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    // 8 bits per channel, colour type 6 (RGBA), deflate, no filter
    // variants, no interlace.
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", &zlib_stored(&raw));
    chunk(&mut png, b"IEND", &[]);
    png
}

/// Appends one chunk: length, type, data, CRC of type and data.
fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(out.get(start..).unwrap_or_default());
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A zlib stream of stored deflate blocks (at most 65,535 bytes each).
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 65_535 * 5 + 16);
    out.extend_from_slice(&[0x78, 0x01]);
    let mut blocks = data.chunks(65_535).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        out.push(u8::from(blocks.peek().is_none()));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in bytes.chunks(5552) {
        for &x in chunk {
            a += u32::from(x);
            b += a;
        }
        a %= 65_521;
        b %= 65_521;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_match_known_values() {
        assert_eq!(crc32(b"IEND"), 0xae42_6082);
        assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
    }

    #[test]
    fn a_two_by_one_image_scaled() {
        let png = encode_rgba(2, 1, &[255, 0, 0, 255, 0, 0, 255, 255], 2, 3);
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        // IHDR: width 4, height 3.
        assert_eq!(&png[16..24], &[0, 0, 0, 4, 0, 0, 0, 3]);
        assert!(png.ends_with(&[0xae, 0x42, 0x60, 0x82]));
        // Raw scanlines: 3 x (1 filter byte + 4 pixels x 4 bytes).
        let idat_len = u32::from_be_bytes(png[33..37].try_into().unwrap()) as usize;
        assert_eq!(idat_len, 2 + 5 + 3 * 17 + 4);
    }
}
