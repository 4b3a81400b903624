//! Small text helpers of the advisor: words of identifiers, personal-data
//! names, abbreviations and fresh names.

/// The lower-case words of an identifier (`userEmail`, `user_email`,
/// `user-email` all give `["user", "email"]`).
pub(crate) fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Words that name personal data on their own.
const PII_WORDS: &[&str] = &[
    "email",
    "emails",
    "mail",
    "username",
    "fullname",
    "firstname",
    "lastname",
    "surname",
    "ssn",
    "passport",
    "iban",
    "msisdn",
    "phonenumber",
    "creditcard",
    "ip",
    "ipaddr",
    "ipaddress",
    "address",
    "birthday",
    "birthdate",
    "dob",
    "salary",
];

/// Pairs of words that name personal data together.
const PII_PAIRS: &[(&str, &str)] = &[
    ("e", "mail"),
    ("user", "name"),
    ("full", "name"),
    ("first", "name"),
    ("last", "name"),
    ("given", "name"),
    ("family", "name"),
    ("customer", "name"),
    ("person", "name"),
    ("phone", "number"),
    ("mobile", "number"),
    ("credit", "card"),
    ("card", "number"),
    ("social", "security"),
    ("tax", "id"),
    ("date", "birth"),
    ("home", "address"),
    ("street", "address"),
];

/// Whether an identifier names personal data (`email`, `user_name`,
/// `phoneNumber`, ...). Device types such as `phone` alone do not count.
pub(crate) fn names_pii(name: &str) -> bool {
    let w = words(name);
    if w.iter().any(|x| PII_WORDS.contains(&x.as_str())) {
        return true;
    }
    let joined: Vec<&str> = w
        .iter()
        .map(String::as_str)
        .filter(|x| *x != "of")
        .collect();
    joined
        .windows(2)
        .any(|p| PII_PAIRS.iter().any(|(a, b)| p[0] == *a && p[1] == *b))
}

/// A shorter form of `name`, at most `max` bytes: the first three letters
/// of each word joined with `_` when there are several words, else a
/// truncation.
pub(crate) fn abbreviate(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    let w = words(name);
    let mut out = if w.len() >= 2 {
        w.iter()
            .map(|x| x.chars().take(3).collect::<String>())
            .collect::<Vec<_>>()
            .join("_")
    } else {
        name.to_string()
    };
    if out.len() > max {
        out = out.chars().take(max).collect();
    }
    while out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() {
        out = "x".into();
    }
    out
}

/// `base`, or `base2`, `base3`... whichever `taken` does not contain.
pub(crate) fn fresh_name(base: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    for i in 2..1000 {
        let n = format!("{base}{i}");
        if !taken(&n) {
            return n;
        }
    }
    format!("{base}_new")
}

/// Decimal digits of `n` (1 for 0).
pub(crate) fn digits(mut n: u64) -> u32 {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// A rate per second for people: `3.2 writes/s`, `one every 40 s`.
pub(crate) fn per_second(rate: f64, what: &str) -> String {
    if rate >= 1.0 {
        format!("{rate:.0} {what}s/s")
    } else if rate > 0.0 {
        format!("one {what} every {:.0} s", 1.0 / rate)
    } else {
        format!("no {what}s")
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn words_and_pii() {
        assert_eq!(words("userEmail"), ["user", "email"]);
        assert_eq!(words("user-name_v2"), ["user", "name", "v2"]);
        assert!(names_pii("email"));
        assert!(names_pii("customer_email"));
        assert!(names_pii("user_name"));
        assert!(names_pii("phoneNumber"));
        assert!(!names_pii("device_type"));
        assert!(!names_pii("phone"));
        assert!(!names_pii("user_id"));
        assert!(!names_pii("zip"));
        assert!(!names_pii("hostname"));
    }

    #[test]
    fn abbreviations_and_names() {
        assert_eq!(abbreviate("stats", 12), "stats");
        assert_eq!(abbreviate("device_statistics_summary", 12), "dev_sta_sum");
        assert_eq!(abbreviate("measurementsandreadings", 8), "measurem");
        assert_eq!(fresh_name("cf", |n| n == "cf"), "cf2");
        assert_eq!(digits(0), 1);
        assert_eq!(digits(10_000), 5);
    }
}
