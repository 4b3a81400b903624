#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Row-key encodings of the Oracle NoSQL key types: whatever order Oracle
// gives two values (or two composite keys), the encoded bytes sort the
// same way, in both the readable text encoding and the binary one. The
// property tests run natively; the fixed cases run everywhere.

use std::cmp::Ordering;

use tabletop_translate::translate::keycodec::{
    Decimal, KeyEncoding, KeyValue, compare_keys, compare_values, encode_key,
};

const BOTH: [KeyEncoding; 2] = [KeyEncoding::Text, KeyEncoding::Binary];

/// Checks that two single-field keys, and the same fields followed by a
/// second field, sort as the values do.
fn check_pair(a: &KeyValue, b: &KeyValue) {
    for enc in BOTH {
        let want = compare_values(a, b);
        let ea = encode_key(std::slice::from_ref(a), enc).unwrap();
        let eb = encode_key(std::slice::from_ref(b), enc).unwrap();
        assert_eq!(
            ea.cmp(&eb),
            want,
            "{enc:?} {a:?} vs {b:?}: {ea:?} vs {eb:?}"
        );
        // Not last: a field after it must not change the order, and equal
        // values must still let the next field decide.
        let tail_a = KeyValue::String("m".into());
        let tail_b = KeyValue::String("".into());
        let ka = [a.clone(), tail_a.clone()];
        let kb = [b.clone(), tail_b.clone()];
        let ca = encode_key(&ka, enc).unwrap();
        let cb = encode_key(&kb, enc).unwrap();
        assert_eq!(
            ca.cmp(&cb),
            compare_keys(&ka, &kb),
            "{enc:?} composite {ka:?} vs {kb:?}: {ca:?} vs {cb:?}"
        );
    }
}

fn check_sorted(values: &[KeyValue]) {
    for a in values {
        for b in values {
            check_pair(a, b);
        }
    }
}

fn dec(s: &str) -> KeyValue {
    KeyValue::Number(Decimal::parse(s).unwrap())
}

fn ts(seconds: i64, nanos: u32, precision: u8) -> KeyValue {
    KeyValue::Timestamp {
        seconds,
        nanos,
        precision,
    }
}

fn en(index: u32, symbols: u32) -> KeyValue {
    KeyValue::Enum {
        index,
        symbol: format!("s{index}"),
        symbols,
    }
}

#[test]
fn every_key_type_keeps_its_order_on_fixed_values() {
    check_sorted(&[i32::MIN, -1_000, -2, -1, 0, 1, 9, 10, 99, i32::MAX].map(KeyValue::Integer));
    check_sorted(&[i64::MIN, -10, -9, -1, 0, 1, 7, 1 << 40, i64::MAX].map(KeyValue::Long));
    check_sorted(
        &[
            f32::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            1e-30,
            2.5,
            f32::MAX,
            f32::NAN,
        ]
        .map(KeyValue::Float),
    );
    check_sorted(
        &[
            f64::MIN,
            -1e300,
            -2.0,
            -0.5,
            0.0,
            5e-324,
            0.1,
            1.0,
            1e300,
            f64::INFINITY,
            f64::NAN,
        ]
        .map(KeyValue::Double),
    );
    check_sorted(&[
        dec("-1e20"),
        dec("-12.5"),
        dec("-0.123"),
        dec("-0.12"),
        dec("0"),
        dec("0.001"),
        dec("0.1"),
        dec("0.12"),
        dec("9"),
        dec("10"),
        dec("10.5"),
        dec("1e30"),
    ]);
    check_sorted(
        &[
            "", " ", "!", "#", "$", "%", "New", "New York", "New#York", "a", "a\u{0}", "ab", "é",
            "日本",
        ]
        .map(|s| KeyValue::String(s.to_string())),
    );
    check_sorted(&[false, true].map(KeyValue::Boolean));
    check_sorted(&[
        ts(-62_135_596_800, 0, 3), // 0001-01-01
        ts(-1, 999_000_000, 3),
        ts(0, 0, 3),
        ts(0, 1_000_000, 3),
        ts(1_694_359_308, 123_000_000, 3),
        ts(253_402_300_799, 0, 3), // 9999-12-31T23:59:59
    ]);
    check_sorted(&[ts(0, 0, 9), ts(0, 1, 9), ts(0, 999_999_999, 9), ts(1, 0, 9)]);
    check_sorted(&[en(0, 3), en(1, 3), en(2, 3)]);
    check_sorted(&[en(0, 300), en(9, 300), en(10, 300), en(299, 300)]);
}

#[test]
fn text_keys_read_as_documented() {
    let key =
        |v: &[KeyValue]| String::from_utf8(encode_key(v, KeyEncoding::Text).unwrap()).unwrap();
    assert_eq!(
        key(&[KeyValue::Long(42), KeyValue::Integer(1000)]),
        "0000000000000000042#0000001000"
    );
    assert_eq!(key(&[KeyValue::Integer(-1)]), "-9999999998");
    assert_eq!(key(&[KeyValue::Double(1.0)]), "bff0000000000000");
    assert_eq!(key(&[KeyValue::Float(-1.0)]), "407fffff");
    assert_eq!(key(&[dec("12.5")]), "350002125");
    assert_eq!(key(&[dec("-12.5")]), "149997874~");
    assert_eq!(
        key(&[ts(1_694_359_308, 123_456_789, 6)]),
        "2023-09-10T15:21:48.123456Z"
    );
    assert_eq!(
        key(&[ts(1_694_359_308, 123_456_789, 0)]),
        "2023-09-10T15:21:48Z"
    );
    assert_eq!(key(&[en(1, 3), KeyValue::Boolean(true)]), "1_s1#true");
    assert_eq!(
        key(&[
            KeyValue::String("Hats #1".into()),
            KeyValue::String("a b".into())
        ]),
        "Hats$20$231#a b"
    );
    let bin = encode_key(
        &[KeyValue::Integer(1), KeyValue::Boolean(false)],
        KeyEncoding::Binary,
    )
    .unwrap();
    assert_eq!(bin, [0x80, 0, 0, 1, 0]);
}

#[test]
fn out_of_range_values_are_errors_not_panics() {
    assert!(encode_key(&[ts(-70_000_000_000, 0, 3)], KeyEncoding::Text).is_err());
    assert!(encode_key(&[ts(i64::MAX, 0, 3)], KeyEncoding::Binary).is_err());
    assert!(encode_key(&[dec("1e99999")], KeyEncoding::Text).is_err());
    assert!(Decimal::parse("1.2.3").is_none());
    assert_eq!(
        compare_values(&KeyValue::Integer(1), &KeyValue::Long(1)),
        Ordering::Less
    );
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn decimal() -> impl Strategy<Value = (i64, i32)> {
        (-1_000_000_000_000i64..1_000_000_000_000, -12i32..12)
    }

    /// m * 10^e compared exactly.
    fn cmp_scaled(a: (i64, i32), b: (i64, i32)) -> Ordering {
        let e = a.1.min(b.1);
        let scale =
            |(m, x): (i64, i32)| i128::from(m) * 10i128.pow(u32::try_from(x - e).unwrap_or(0));
        scale(a).cmp(&scale(b))
    }

    fn to_decimal((m, e): (i64, i32)) -> KeyValue {
        KeyValue::Number(Decimal::parse(&format!("{m}e{e}")).unwrap())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn integers(a in any::<i32>(), b in any::<i32>()) {
            check_pair(&KeyValue::Integer(a), &KeyValue::Integer(b));
        }

        #[test]
        fn longs(a in any::<i64>(), b in any::<i64>()) {
            check_pair(&KeyValue::Long(a), &KeyValue::Long(b));
        }

        #[test]
        fn floats(a in any::<f32>(), b in any::<f32>()) {
            check_pair(&KeyValue::Float(a), &KeyValue::Float(b));
        }

        #[test]
        fn doubles(a in any::<f64>(), b in any::<f64>()) {
            check_pair(&KeyValue::Double(a), &KeyValue::Double(b));
        }

        #[test]
        fn numbers(a in decimal(), b in decimal()) {
            let (da, db) = (to_decimal(a), to_decimal(b));
            prop_assert_eq!(compare_values(&da, &db), cmp_scaled(a, b));
            check_pair(&da, &db);
        }

        #[test]
        fn strings(a in "[ -~\u{0}\u{80}-\u{3ff}]{0,12}", b in "[ -~\u{0}\u{80}-\u{3ff}]{0,12}") {
            check_pair(&KeyValue::String(a), &KeyValue::String(b));
        }

        #[test]
        fn booleans(a in any::<bool>(), b in any::<bool>()) {
            check_pair(&KeyValue::Boolean(a), &KeyValue::Boolean(b));
        }

        #[test]
        fn timestamps(
            a in -62_135_596_800i64..253_402_300_799, an in 0u32..1_000_000_000,
            b in -62_135_596_800i64..253_402_300_799, bn in 0u32..1_000_000_000,
            p in 0u8..=9,
        ) {
            check_pair(&ts(a, an, p), &ts(b, bn, p));
        }

        #[test]
        fn enums(a in 0u32..1000, b in 0u32..1000, extra in 1u32..70_000) {
            let n = a.max(b) + extra;
            check_pair(&en(a, n), &en(b, n));
        }

        #[test]
        fn composite_keys(
            s1 in "[ -~]{0,6}", s2 in "[ -~]{0,6}",
            i1 in -3i64..3, i2 in -3i64..3,
            t1 in "[#$ a-c]{0,4}", t2 in "[#$ a-c]{0,4}",
        ) {
            // A shard key (string), a LONG, then a trailing string: the
            // shape of PRIMARY KEY(SHARD(name), id, tag).
            let ka = [KeyValue::String(s1), KeyValue::Long(i1), KeyValue::String(t1)];
            let kb = [KeyValue::String(s2), KeyValue::Long(i2), KeyValue::String(t2)];
            for enc in BOTH {
                let ea = encode_key(&ka, enc).unwrap();
                let eb = encode_key(&kb, enc).unwrap();
                prop_assert_eq!(ea.cmp(&eb), compare_keys(&ka, &kb), "{:?}: {:?} vs {:?}", enc, ea, eb);
            }
        }
    }
}
