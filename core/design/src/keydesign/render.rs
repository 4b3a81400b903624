//! Rendering keys from a template: one reusable [`KeyRenderer`] per
//! template, no allocation per key once its buffers have grown.

use super::{KeyTemplate, Per, SegmentKind, TimeUnit, salt_width};
use crate::rng::{hash_bytes, mix64};
use tabletop_store::Result;
use tabletop_store::civil_from_days;

/// What one key is rendered from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyInput {
    /// The entity (user, device, site...) the row belongs to.
    pub entity: u64,
    /// The operation's time, microseconds since the Unix epoch.
    pub time_micros: i64,
    /// The operation's sequence number (for `int` segments with
    /// `per = "op"`).
    pub op_seq: u64,
    /// Randomness for segments that vary per operation.
    pub op_random: u64,
}

/// A template prepared for rendering many keys.
#[derive(Clone, Debug)]
pub struct KeyRenderer {
    delimiter: Vec<u8>,
    plans: Vec<Plan>,
    /// Segments without a source first, then `hash`/`salt` segments.
    order: Vec<usize>,
    /// One buffer per segment, reused for every key.
    scratch: Vec<Vec<u8>>,
}

#[derive(Clone, Debug)]
struct Plan {
    kind: SegmentKind,
    /// Mixed into every value so that segments derived from the same
    /// entity do not look alike.
    salt: u64,
    /// Index of the `of` segment.
    source: Option<usize>,
    /// Cumulative weights (`enum`) or cumulative shares scaled to `u64`
    /// (`tenant` with skew).
    cumulative: Vec<u64>,
}

impl KeyRenderer {
    /// Prepares `template` (validating it first).
    pub fn new(template: &KeyTemplate) -> Result<KeyRenderer> {
        template.validate()?;
        let mut plans = Vec::with_capacity(template.segments.len());
        for (i, seg) in template.segments.iter().enumerate() {
            let salt = mix64(hash_bytes(0x5e9_3e47, seg.name.as_bytes()) ^ (i as u64));
            let source = seg.kind.source().and_then(|of| template.segment_index(of));
            let cumulative = match &seg.kind {
                SegmentKind::Enum { weights, .. } if !weights.is_empty() => {
                    let mut acc = 0u64;
                    weights
                        .iter()
                        .map(|&w| {
                            acc += u64::from(w);
                            acc
                        })
                        .collect()
                }
                SegmentKind::Tenant { tenants, skew } if *skew > 0.0 => tenant_cdf(*tenants, *skew),
                _ => Vec::new(),
            };
            plans.push(Plan {
                kind: seg.kind.clone(),
                salt,
                source,
                cumulative,
            });
        }
        let mut order: Vec<usize> = (0..plans.len())
            .filter(|&i| plans.get(i).is_some_and(|p| p.source.is_none()))
            .collect();
        order
            .extend((0..plans.len()).filter(|&i| plans.get(i).is_some_and(|p| p.source.is_some())));
        Ok(KeyRenderer {
            delimiter: template.delimiter.as_bytes().to_vec(),
            scratch: vec![Vec::with_capacity(24); plans.len()],
            plans,
            order,
        })
    }

    /// Number of segments.
    #[must_use]
    pub fn segments(&self) -> usize {
        self.plans.len()
    }

    /// Renders one key into `out` (cleared first).
    pub fn render(&mut self, input: &KeyInput, out: &mut Vec<u8>) {
        out.clear();
        if self.order.len() == self.plans.len() && self.plans.iter().all(|p| p.source.is_none()) {
            // Nothing depends on another segment: render in place.
            for (i, plan) in self.plans.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(&self.delimiter);
                }
                render_segment(plan, input, &[], out);
            }
            return;
        }
        self.render_parts(input);
        for (i, part) in self.scratch.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(&self.delimiter);
            }
            out.extend_from_slice(part);
        }
    }

    /// Renders the first `segments` segments of the key, followed by the
    /// delimiter when the key has more segments: the prefix a scan of
    /// "everything under these segments" reads. With `labels`, a `domain`
    /// segment at the end of the prefix keeps only its first `labels`
    /// dot-separated labels (plus the dot after them), so that
    /// `labels = 2` on `com.kamiro.maps` gives the site prefix `com.kamiro.`.
    pub fn render_prefix(
        &mut self,
        input: &KeyInput,
        segments: usize,
        labels: Option<usize>,
        out: &mut Vec<u8>,
    ) {
        self.render_parts(input);
        out.clear();
        let n = self.scratch.len();
        let k = segments.min(n);
        for (i, part) in self.scratch.iter().take(k).enumerate() {
            if i > 0 {
                out.extend_from_slice(&self.delimiter);
            }
            let is_last = i + 1 == k;
            let is_domain = matches!(
                self.plans.get(i).map(|p| &p.kind),
                Some(SegmentKind::Domain { .. })
            );
            if let (true, true, Some(l)) = (is_last, is_domain, labels) {
                let mut dots = 0;
                let mut cut = part.len();
                for (j, &b) in part.iter().enumerate() {
                    if b == b'.' {
                        dots += 1;
                        if dots == l {
                            cut = j + 1;
                            break;
                        }
                    }
                }
                out.extend_from_slice(part.get(..cut).unwrap_or(part));
                return;
            }
            out.extend_from_slice(part);
        }
        if k > 0 && k < n {
            out.extend_from_slice(&self.delimiter);
        }
    }

    fn render_parts(&mut self, input: &KeyInput) {
        for oi in 0..self.order.len() {
            let Some(&i) = self.order.get(oi) else {
                continue;
            };
            let (Some(plan), Some(buf)) = (self.plans.get(i), self.scratch.get_mut(i)) else {
                continue;
            };
            let mut buf = std::mem::take(buf);
            buf.clear();
            let src = plan
                .source
                .and_then(|s| self.scratch.get(s))
                .map_or(&[][..], Vec::as_slice);
            render_segment(plan, input, src, &mut buf);
            if let Some(slot) = self.scratch.get_mut(i) {
                *slot = buf;
            }
        }
    }
}

fn render_segment(plan: &Plan, input: &KeyInput, source: &[u8], out: &mut Vec<u8>) {
    let pick = |per: Per| match per {
        Per::Entity => mix64(input.entity ^ plan.salt),
        Per::Op => mix64(input.op_random ^ plan.salt),
    };
    match &plan.kind {
        SegmentKind::Const { value } => out.extend_from_slice(value.as_bytes()),
        SegmentKind::Enum { values, per, .. } => {
            let v = pick(*per);
            let idx = if plan.cumulative.is_empty() {
                (v % values.len() as u64) as usize
            } else {
                let total = plan.cumulative.last().copied().unwrap_or(1).max(1);
                let r = v % total;
                plan.cumulative.partition_point(|&c| c <= r)
            };
            if let Some(s) = values.get(idx).or(values.first()) {
                out.extend_from_slice(s.as_bytes());
            }
        }
        SegmentKind::Hex { width, per } => {
            let v = pick(*per);
            write_hex(out, v, mix64(v ^ 0x68e7), usize::from(*width));
        }
        SegmentKind::Uuid { per } => {
            let v = pick(*per);
            let w = mix64(v ^ 0x0bad_cafe);
            let start = out.len();
            write_hex(out, v, w, 32);
            // Version 4, variant 10xx: the shape of a random UUID.
            if let Some(b) = out.get_mut(start + 12) {
                *b = b'4';
            }
            if let Some(b) = out.get_mut(start + 16) {
                *b = b"89ab"[(w >> 62) as usize & 3];
            }
            for pos in [8usize, 13, 18, 23] {
                if start + pos <= out.len() {
                    out.insert(start + pos, b'-');
                }
            }
        }
        SegmentKind::Name { per } => {
            let v = pick(*per);
            syllables(out, v, 3);
            write_dec(out, (v >> 40) % 1000);
        }
        SegmentKind::Int {
            width,
            reversed,
            per,
        } => {
            let n = match per {
                Per::Entity => input.entity,
                Per::Op => input.op_seq,
            };
            let start = out.len();
            match width {
                Some(w) => write_padded(out, n, usize::from(*w)),
                None => write_dec(out, n),
            }
            if *reversed && let Some(digits) = out.get_mut(start..) {
                digits.reverse();
            }
        }
        SegmentKind::Timestamp { unit, reversed } => {
            let per_unit = 1_000_000 / unit.per_second();
            let ts = input.time_micros.max(0) / per_unit;
            if *reversed {
                write_padded(out, (i64::MAX - ts) as u64, 19);
            } else {
                let w = match unit {
                    TimeUnit::Seconds => 10,
                    TimeUnit::Millis => 13,
                    TimeUnit::Micros => 16,
                };
                write_padded(out, ts as u64, w);
            }
        }
        SegmentKind::Date { format } => {
            let days = input.time_micros.div_euclid(86_400_000_000);
            let hour = input.time_micros.rem_euclid(86_400_000_000) / 3_600_000_000;
            let (y, m, d) = civil_from_days(days);
            let y = y.clamp(0, 9999) as u64;
            write_padded(out, y, 4);
            if *format == super::DateFormat::DayDashed {
                out.push(b'-');
            }
            write_padded(out, u64::from(m), 2);
            if *format == super::DateFormat::Month {
                return;
            }
            if *format == super::DateFormat::DayDashed {
                out.push(b'-');
            }
            write_padded(out, u64::from(d), 2);
            if *format == super::DateFormat::Hour {
                write_padded(out, hour as u64, 2);
            }
        }
        SegmentKind::Hash { width, .. } => {
            let h = hash_bytes(plan.salt, source);
            write_hex(out, h, 0, usize::from(*width));
        }
        SegmentKind::Salt { buckets, of } => {
            let b = u64::from((*buckets).max(1));
            let v = match of {
                Some(_) => hash_bytes(plan.salt, source),
                None => mix64(input.op_random ^ plan.salt),
            };
            write_padded(out, v % b, salt_width(*buckets));
        }
        SegmentKind::Domain {
            sites,
            reversed,
            hosts,
        } => {
            let sites = u64::from((*sites).max(1));
            let site = input.entity % sites;
            let host_idx = ((input.entity / sites) % (hosts.len().max(1) as u64)) as usize;
            let host = hosts.get(host_idx).map_or("www", String::as_str);
            let sv = mix64(site ^ plan.salt);
            let tld = ["com", "org", "net", "io", "de"][(sv >> 61) as usize % 5];
            let mut site_name = Vec::with_capacity(12);
            syllables(&mut site_name, sv, 2 + (sv >> 59) as usize % 2);
            write_dec(&mut site_name, site);
            if *reversed {
                out.extend_from_slice(tld.as_bytes());
                out.push(b'.');
                out.extend_from_slice(&site_name);
                out.push(b'.');
                out.extend_from_slice(host.as_bytes());
            } else {
                out.extend_from_slice(host.as_bytes());
                out.push(b'.');
                out.extend_from_slice(&site_name);
                out.push(b'.');
                out.extend_from_slice(tld.as_bytes());
            }
        }
        SegmentKind::Tenant { tenants, .. } => {
            let t = u64::from((*tenants).max(1));
            let idx = if plan.cumulative.is_empty() {
                input.entity % t
            } else {
                let u = mix64(input.entity ^ plan.salt);
                (plan.cumulative.partition_point(|&c| c <= u) as u64).min(t - 1)
            };
            let v = mix64(idx ^ plan.salt ^ 0x7e4a);
            syllables(out, v, 2 + (v >> 62) as usize % 2);
            write_dec(out, idx);
        }
    }
}

/// Cumulative tenant shares (`1 / rank^skew`) scaled to the `u64` range.
fn tenant_cdf(tenants: u32, skew: f64) -> Vec<u64> {
    let n = tenants.max(1) as usize;
    let weights: Vec<f64> = (1..=n)
        .map(|r| crate::rng::det_pow(r as f64, -skew))
        .collect();
    let total: f64 = weights.iter().sum();
    let mut acc = 0.0;
    weights
        .iter()
        .map(|w| {
            acc += w / total;
            if acc >= 1.0 {
                u64::MAX
            } else {
                (acc * 18_446_744_073_709_551_615.0) as u64
            }
        })
        .collect()
}

const CONSONANTS: &[u8; 14] = b"bdfgklmnprstvz";
const VOWELS: &[u8; 5] = b"aeiou";

fn syllables(out: &mut Vec<u8>, mut v: u64, count: usize) {
    for _ in 0..count {
        out.push(CONSONANTS[(v % 14) as usize]);
        v /= 14;
        out.push(VOWELS[(v % 5) as usize]);
        v /= 5;
    }
}

fn write_hex(out: &mut Vec<u8>, a: u64, b: u64, width: usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for i in 0..width.min(32) {
        let word = if i < 16 { a } else { b };
        let shift = 60 - 4 * (i % 16);
        out.push(HEX[((word >> shift) & 0xf) as usize]);
    }
}

/// "00".."99", for writing two digits at a time.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

fn write_dec(out: &mut Vec<u8>, v: u64) {
    write_padded(out, v, 1);
}

/// Decimal, zero-padded to `width` (longer numbers keep all digits).
fn write_padded(out: &mut Vec<u8>, v: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut i = buf.len();
    let mut v = v;
    while v >= 100 {
        let pair = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        if let (Some(dst), Some(src)) = (buf.get_mut(i..i + 2), PAIRS.get(pair..pair + 2)) {
            dst.copy_from_slice(src);
        }
    }
    if v >= 10 {
        let pair = v as usize * 2;
        i -= 2;
        if let (Some(dst), Some(src)) = (buf.get_mut(i..i + 2), PAIRS.get(pair..pair + 2)) {
            dst.copy_from_slice(src);
        }
    } else {
        i -= 1;
        if let Some(d) = buf.get_mut(i) {
            *d = b'0' + v as u8;
        }
    }
    let digits = buf.len() - i;
    for _ in digits..width {
        out.push(b'0');
    }
    out.extend_from_slice(buf.get(i..).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::keydesign::{DateFormat, Segment};
    use tabletop_store::days_from_civil;

    fn one(kind: SegmentKind) -> KeyRenderer {
        KeyRenderer::new(&KeyTemplate {
            delimiter: "#".into(),
            segments: vec![Segment {
                name: "s".into(),
                kind,
            }],
        })
        .unwrap()
    }

    fn render(r: &mut KeyRenderer, input: KeyInput) -> String {
        let mut out = Vec::new();
        r.render(&input, &mut out);
        String::from_utf8(out).unwrap()
    }

    const MAY_1_2020: i64 = 1_588_291_200_000_000;

    #[test]
    fn dates_and_timestamps() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(18_383), (2020, 5, 1));
        assert_eq!(days_from_civil(2020, 5, 1), 18_383);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        let input = KeyInput {
            time_micros: MAY_1_2020 + 13 * 3_600_000_000,
            ..KeyInput::default()
        };
        for (format, want) in [
            (DateFormat::Day, "20200501"),
            (DateFormat::DayDashed, "2020-05-01"),
            (DateFormat::Hour, "2020050113"),
            (DateFormat::Month, "202005"),
        ] {
            assert_eq!(render(&mut one(SegmentKind::Date { format }), input), want);
        }
        let mut ts = one(SegmentKind::Timestamp {
            unit: TimeUnit::Millis,
            reversed: false,
        });
        assert_eq!(render(&mut ts, input), "1588338000000");
        let mut rts = one(SegmentKind::Timestamp {
            unit: TimeUnit::Millis,
            reversed: true,
        });
        let r = render(&mut rts, input);
        assert_eq!(r.len(), 19);
        assert_eq!(
            r.parse::<i64>().unwrap(),
            i64::MAX - 1_588_338_000_000,
            "Long.MAX_VALUE - ts"
        );
        // Later times sort first when reversed.
        let later = KeyInput {
            time_micros: input.time_micros + 1000,
            ..input
        };
        assert!(render(&mut rts, later) < r);
    }

    #[test]
    fn decimal_writing() {
        for (v, w, want) in [
            (0u64, 1usize, "0"),
            (7, 3, "007"),
            (42, 1, "42"),
            (100, 2, "100"),
            (1_588_291_200_000, 13, "1588291200000"),
            (u64::MAX, 1, "18446744073709551615"),
            (999, 5, "00999"),
        ] {
            let mut out = Vec::new();
            write_padded(&mut out, v, w);
            assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }

    #[test]
    fn ints_pad_and_reverse() {
        let mut plain = one(SegmentKind::Int {
            width: None,
            reversed: false,
            per: Per::Entity,
        });
        let mut padded = one(SegmentKind::Int {
            width: Some(6),
            reversed: false,
            per: Per::Entity,
        });
        let mut rev = one(SegmentKind::Int {
            width: Some(6),
            reversed: true,
            per: Per::Entity,
        });
        let at = |e| KeyInput {
            entity: e,
            ..KeyInput::default()
        };
        assert_eq!(render(&mut plain, at(3)), "3");
        assert!(render(&mut plain, at(3)) > render(&mut plain, at(20)));
        assert_eq!(render(&mut padded, at(3)), "000003");
        assert_eq!(render(&mut rev, at(1234)), "432100");
        assert_eq!(render(&mut rev, at(1235)), "532100");
    }

    #[test]
    fn entity_segments_are_stable_and_op_segments_vary() {
        let mut hex = one(SegmentKind::Hex {
            width: 8,
            per: Per::Entity,
        });
        let a = render(
            &mut hex,
            KeyInput {
                entity: 5,
                op_random: 1,
                ..KeyInput::default()
            },
        );
        let b = render(
            &mut hex,
            KeyInput {
                entity: 5,
                op_random: 2,
                ..KeyInput::default()
            },
        );
        assert_eq!(a, b);
        assert_eq!(a.len(), 8);
        let mut uuid = one(SegmentKind::Uuid { per: Per::Op });
        let u1 = render(
            &mut uuid,
            KeyInput {
                op_random: 1,
                ..KeyInput::default()
            },
        );
        let u2 = render(
            &mut uuid,
            KeyInput {
                op_random: 2,
                ..KeyInput::default()
            },
        );
        assert_ne!(u1, u2);
        assert_eq!(u1.len(), 36);
        assert_eq!(u1.as_bytes()[14], b'4');
        assert_eq!(u1.matches('-').count(), 4);
    }

    #[test]
    fn domains_reverse_and_prefix() {
        let t = KeyTemplate {
            delimiter: "#".into(),
            segments: vec![
                Segment {
                    name: "host".into(),
                    kind: SegmentKind::Domain {
                        sites: 10,
                        reversed: true,
                        hosts: vec!["www".into(), "maps".into()],
                    },
                },
                Segment {
                    name: "page".into(),
                    kind: SegmentKind::Hex {
                        width: 6,
                        per: Per::Op,
                    },
                },
            ],
        };
        let mut r = KeyRenderer::new(&t).unwrap();
        let mut out = Vec::new();
        let input = KeyInput {
            entity: 13,
            ..KeyInput::default()
        };
        r.render(&input, &mut out);
        let key = String::from_utf8(out.clone()).unwrap();
        assert!(key.ends_with(&key[key.find('#').unwrap()..]));
        let host = key.split('#').next().unwrap();
        assert!(host.ends_with(".maps"), "{key}");
        r.render_prefix(&input, 1, Some(2), &mut out);
        let site = String::from_utf8(out.clone()).unwrap();
        assert!(host.starts_with(&site) && site.ends_with('.'), "{site}");
        assert_eq!(site.matches('.').count(), 2);
        r.render_prefix(&input, 1, None, &mut out);
        assert_eq!(String::from_utf8(out.clone()).unwrap(), format!("{host}#"));
    }

    #[test]
    fn salts_and_hashes_follow_their_source() {
        let t: KeyTemplate = toml::from_str(
            r#"
            segments = [
              { name = "salt", kind = "salt", buckets = 8, of = "device" },
              { name = "h", kind = "hash", of = "device", width = 4 },
              { name = "device", kind = "hex", width = 8 },
            ]
            "#,
        )
        .unwrap();
        let mut r = KeyRenderer::new(&t).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for e in 0..200 {
            let mut out = Vec::new();
            r.render(
                &KeyInput {
                    entity: e,
                    op_random: e * 31,
                    ..KeyInput::default()
                },
                &mut out,
            );
            let k = String::from_utf8(out.clone()).unwrap();
            let parts: Vec<&str> = k.split('#').collect();
            assert_eq!(parts[0].len(), 1);
            assert_eq!(parts[1].len(), 4);
            seen.insert(parts[0].to_string());
            // Same entity, other op: same salt (it follows the device).
            r.render(
                &KeyInput {
                    entity: e,
                    op_random: 7,
                    ..KeyInput::default()
                },
                &mut out,
            );
            assert_eq!(String::from_utf8(out).unwrap(), k);
        }
        assert_eq!(seen.len(), 8);
    }

    #[test]
    fn tenants_with_skew_concentrate() {
        let mut r = one(SegmentKind::Tenant {
            tenants: 20,
            skew: 1.5,
        });
        let mut counts = std::collections::BTreeMap::new();
        for e in 0..5000 {
            *counts
                .entry(render(
                    &mut r,
                    KeyInput {
                        entity: e,
                        ..KeyInput::default()
                    },
                ))
                .or_insert(0u32) += 1;
        }
        let max = *counts.values().max().unwrap();
        assert!(
            max > 5000 / 4,
            "the largest tenant should own a big share: {max}"
        );
    }
}
