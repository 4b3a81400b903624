//! Byte sizes for people. One unit system everywhere: binary units (KiB,
//! MiB, GiB, TiB, PiB; 1 KiB = 1024 bytes), the ones Bigtable states its
//! limits in (4 KiB row keys, 100 MiB cells, 256 MiB rows). The web app,
//! the CLI and the core's own reports all print sizes with
//! [`human_bytes`].

/// Units past bytes, each 1024 times the one before.
const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];

/// A byte count with its unit: `512 B`, `1.5 KiB`, `128 KiB`, `3.2 GiB`.
/// Below 1 KiB whole bytes; above, one decimal, left out when it is 0.
/// `?` for a value that is not a number.
#[must_use]
pub fn human_bytes(bytes: f64) -> String {
    if !bytes.is_finite() {
        return "?".into();
    }
    let sign = if bytes < 0.0 { "-" } else { "" };
    let b = bytes.abs();
    if b.round() < 1024.0 {
        return format!("{sign}{b:.0} B");
    }
    let mut value = b / 1024.0;
    let mut unit = 0;
    // Move up while the value would print as 1024.0 or more.
    while (value * 10.0).round() >= 10240.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let text = format!("{value:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{sign}{text} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::human_bytes;

    #[test]
    fn binary_units_with_one_decimal_at_most() {
        assert_eq!(human_bytes(0.0), "0 B");
        assert_eq!(human_bytes(512.0), "512 B");
        assert_eq!(human_bytes(1023.0), "1023 B");
        assert_eq!(human_bytes(1023.7), "1 KiB");
        assert_eq!(human_bytes(1024.0), "1 KiB");
        assert_eq!(human_bytes(1536.0), "1.5 KiB");
        assert_eq!(human_bytes(128.0 * 1024.0), "128 KiB");
        assert_eq!(human_bytes(1024.0 * 1024.0 - 1.0), "1 MiB");
        assert_eq!(human_bytes(3.0 * 1024.0 * 1024.0), "3 MiB");
        assert_eq!(human_bytes(256.0 * 1024.0 * 1024.0), "256 MiB");
        assert_eq!(human_bytes(1.5 * 1024f64.powi(3)), "1.5 GiB");
        assert_eq!(human_bytes(1.5e9), "1.4 GiB");
        assert_eq!(human_bytes(2.0 * 1024f64.powi(5)), "2 PiB");
        assert_eq!(human_bytes(2.0 * 1024f64.powi(6)), "2048 PiB");
        assert_eq!(human_bytes(u64::MAX as f64), "16384 PiB");
        assert_eq!(human_bytes(-2048.0), "-2 KiB");
        assert_eq!(human_bytes(f64::NAN), "?");
        assert_eq!(human_bytes(f64::INFINITY), "?");
    }
}
