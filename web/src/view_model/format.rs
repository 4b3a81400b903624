//! Numbers for people: counts and timestamps, each with its unit. Byte
//! sizes are the core's [`tabletop_core::human_bytes`] (binary units), so
//! the page and the CLI print them alike.

/// A count with thousands separators: `1,000,000`.
pub fn format_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 row`, `2 rows`: a count and a noun, pluralised with `s`.
pub fn count_noun(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", format_count(n))
    }
}

/// Microseconds since the Unix epoch as `YYYY-MM-DD hh:mm:ss.mmm UTC`
/// (sub-millisecond digits only when present).
pub fn format_timestamp(micros: i64) -> String {
    let seconds = micros.div_euclid(1_000_000);
    let sub_micros = micros.rem_euclid(1_000_000);
    let days = seconds.div_euclid(86_400);
    let secs_of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let fraction = if sub_micros % 1000 == 0 {
        format!("{:03}", sub_micros / 1000)
    } else {
        format!("{sub_micros:06}")
    };
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{fraction} UTC",
        secs_of_day / 3600,
        secs_of_day % 3600 / 60,
        secs_of_day % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day), after
/// Howard Hinnant's `civil_from_days`.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_format_as_utc() {
        assert_eq!(format_timestamp(0), "1970-01-01 00:00:00.000 UTC");
        assert_eq!(
            format_timestamp(1_588_291_200_000_000),
            "2020-05-01 00:00:00.000 UTC"
        );
        assert_eq!(
            format_timestamp(951_782_400_123_000),
            "2000-02-29 00:00:00.123 UTC"
        );
        assert_eq!(
            format_timestamp(1_700_000_000_000_001),
            "2023-11-14 22:13:20.000001 UTC"
        );
        assert_eq!(format_timestamp(-1_000), "1969-12-31 23:59:59.999 UTC");
    }

    #[test]
    fn counts_get_separators_and_nouns() {
        assert_eq!(format_count(0), "0");
        assert_eq!(format_count(999), "999");
        assert_eq!(format_count(1000), "1,000");
        assert_eq!(format_count(1_000_000), "1,000,000");
        assert_eq!(format_count(12_345_678), "12,345,678");
        assert_eq!(count_noun(1, "row"), "1 row");
        assert_eq!(count_noun(0, "row"), "0 rows");
        assert_eq!(count_noun(2500, "cell"), "2,500 cells");
    }
}
