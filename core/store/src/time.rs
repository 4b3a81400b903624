//! Time as the whole workspace writes it: the units a timestamp may be
//! counted in, and civil (proleptic Gregorian, UTC) dates.
//!
//! Bigtable keeps timestamps as microseconds since the Unix epoch; people,
//! row keys and text formats (cbt's cell times, RFC 3339, SQL's
//! TIMESTAMP) write them as calendar dates. The one conversion between the
//! two lives here (Howard Hinnant's `days_from_civil` and
//! `civil_from_days`), so every printer and parser agrees on every date.

use serde::{Deserialize, Serialize};

/// The resolution a timestamp is counted in (a row key's `timestamp`
/// segment, a row-key schema's TIMESTAMP field).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeUnit {
    /// Seconds since the epoch (10 digits today).
    #[serde(rename = "s")]
    Seconds,
    /// Milliseconds since the epoch (13 digits today).
    #[default]
    #[serde(rename = "ms")]
    Millis,
    /// Microseconds since the epoch (16 digits today).
    #[serde(rename = "us")]
    Micros,
}

impl TimeUnit {
    /// How many of this unit make one second.
    #[must_use]
    pub fn per_second(self) -> i64 {
        match self {
            TimeUnit::Seconds => 1,
            TimeUnit::Millis => 1_000,
            TimeUnit::Micros => 1_000_000,
        }
    }
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day).
#[must_use]
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    // In range by construction: 1..=31 and 1..=12.
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// A proleptic Gregorian date to days since 1970-01-01 (the inverse of
/// [`civil_from_days`] for valid dates; other months and days count on
/// from the date's start, as Hinnant's algorithm does).
#[must_use]
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn civil_dates_round_trip() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(18_383), (2020, 5, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(-719_468), (0, 3, 1));
        for days in (-1_000_000..1_000_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
    }

    #[test]
    fn units_count_per_second() {
        assert_eq!(TimeUnit::Seconds.per_second(), 1);
        assert_eq!(TimeUnit::Millis.per_second(), 1_000);
        assert_eq!(TimeUnit::Micros.per_second(), 1_000_000);
    }
}
