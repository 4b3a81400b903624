//! Determinism: a small seeded PRNG, the hashes that scatter keys
//! ([`mix64`], [`hash_bytes`]), and `ln`/`exp`/`pow`/`cos` written with
//! `+ - * /` only, so a scenario gives bit-identical results natively and
//! in wasm (the platforms' libm functions may differ in the last bit).
//!
//! Key templates, the Key Visualizer and the simulator all draw on it; it
//! draws on nothing.

/// The splitmix64 finaliser: a fast, well-mixed bijection on `u64`.
#[must_use]
pub fn mix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A 64-bit hash of bytes (not cryptographic; the same on every platform).
#[must_use]
pub fn hash_bytes(seed: u64, bytes: &[u8]) -> u64 {
    let mut h = seed ^ (bytes.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = mix64(h ^ u64::from_le_bytes(w));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        if let Some(dst) = w.get_mut(..rest.len()) {
            dst.copy_from_slice(rest);
        }
        h = mix64(h ^ u64::from_le_bytes(w) ^ 0xff);
    }
    h
}

/// xoshiro256++, seeded through splitmix64.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator for `seed`; different `stream`s give independent
    /// sequences from the same seed.
    #[must_use]
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut x = seed ^ mix64(stream.wrapping_add(0x51_7cc1_b727_220a));
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            mix64(x)
        };
        let mut s = [next(), next(), next(), next()];
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng { s }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let [s0, s1, s2, s3] = self.s;
        let result = s0.wrapping_add(s3).rotate_left(23).wrapping_add(s0);
        let t = s1 << 17;
        let mut s = [s0, s1, s2 ^ s0, s3 ^ s1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        self.s = s;
        result
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// Uniform in `0..n` (`0` when `n == 0`), without modulo bias worth
    /// mentioning (128-bit multiply).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

const LN2_HI: f64 = 0.693_147_180_369_123_8;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const LN2: f64 = std::f64::consts::LN_2;

/// Natural logarithm; `-inf` for 0, NaN for negative or NaN input.
#[must_use]
pub fn det_ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    // x = m * 2^e with m in [sqrt(1/2), sqrt(2)).
    let mut x = x;
    let mut e: i64 = 0;
    if x < f64::MIN_POSITIVE {
        x *= 18_014_398_509_481_984.0; // 2^54
        e -= 54;
    }
    let bits = x.to_bits();
    e += ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    // ln m = 2 atanh(y), y = (m-1)/(m+1), |y| < 0.172.
    let y = (m - 1.0) / (m + 1.0);
    let y2 = y * y;
    let mut term = y;
    let mut sum = 0.0;
    let mut k = 1.0;
    for _ in 0..14 {
        sum += term / k;
        term *= y2;
        k += 2.0;
    }
    let ef = e as f64;
    2.0 * sum + ef * LN2_HI + ef * LN2_LO
}

/// `e^x`, saturating to `inf` / `0` outside the representable range.
#[must_use]
pub fn det_exp(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x > 709.0 {
        return f64::INFINITY;
    }
    if x < -745.0 {
        return 0.0;
    }
    let n = (x / LN2).round();
    let r = (x - n * LN2_HI) - n * LN2_LO;
    // Taylor series of e^r, |r| <= 0.35.
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..=18 {
        term *= r / f64::from(k);
        sum += term;
    }
    scale_pow2(sum, n as i64)
}

fn scale_pow2(mut v: f64, mut n: i64) -> f64 {
    while n > 1000 {
        v *= f64::from_bits(0x7e70_0000_0000_0000); // 2^1000
        n -= 1000;
    }
    while n < -1000 {
        v *= f64::from_bits(0x0170_0000_0000_0000); // 2^-1000
        n += 1000;
    }
    v * f64::from_bits(((n + 1023) as u64) << 52)
}

/// `x^y` for `x > 0` (`0^y` is 0 for `y > 0`, `inf` for `y < 0`, 1 for
/// `y == 0`).
#[must_use]
pub fn det_pow(x: f64, y: f64) -> f64 {
    if y == 0.0 {
        return 1.0;
    }
    if x == 0.0 {
        return if y > 0.0 { 0.0 } else { f64::INFINITY };
    }
    det_exp(y * det_ln(x))
}

/// `cos(x)`.
#[must_use]
pub fn det_cos(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let two_pi = std::f64::consts::TAU;
    let pi = std::f64::consts::PI;
    // Reduce to [-pi, pi].
    let mut r = x - (x / two_pi).round() * two_pi;
    let mut sign = 1.0;
    // cos(r) = -cos(pi - |r|) folds to [0, pi/2].
    r = r.abs();
    if r > pi / 2.0 {
        r = pi - r;
        sign = -1.0;
    }
    let r2 = r * r;
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..=12 {
        let k = f64::from(k);
        term *= -r2 / ((2.0 * k - 1.0) * (2.0 * k));
        sum += term;
    }
    sign * sum
}

/// Zipf-distributed ranks in `0..n` with exponent `s > 0`, by inverting
/// the continuous power law `x^-s` on `[1, n + 1)` and rounding down. It
/// is a close, fast approximation of the discrete law (rank 0 a little
/// less likely than exactly Zipf for `s` near 1) that needs no table, so
/// populations of billions cost nothing.
#[derive(Clone, Debug)]
pub struct Zipf {
    n: u64,
    /// `1 - s`, or 0 for `s == 1`.
    one_minus_s: f64,
    /// `(n + 1)^(1 - s) - 1`, or `ln(n + 1)` for `s == 1`.
    span: f64,
}

impl Zipf {
    /// A sampler over `0..n`. `s` must be finite and positive.
    #[must_use]
    pub fn new(n: u64, s: f64) -> Zipf {
        let n = n.max(1);
        let top = n as f64 + 1.0;
        let one_minus_s = 1.0 - s;
        if one_minus_s.abs() < 1e-9 {
            Zipf {
                n,
                one_minus_s: 0.0,
                span: det_ln(top),
            }
        } else {
            Zipf {
                n,
                one_minus_s,
                span: det_pow(top, one_minus_s) - 1.0,
            }
        }
    }

    /// One rank (0 is the most frequent).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let u = rng.next_f64();
        let x = if self.one_minus_s == 0.0 {
            det_exp(u * self.span)
        } else {
            det_pow(1.0 + u * self.span, 1.0 / self.one_minus_s)
        };
        let r = if x.is_finite() && x >= 1.0 {
            (x - 1.0) as u64
        } else {
            0
        };
        r.min(self.n - 1)
    }
}

/// A bijection on `0..n` that scatters ranks over entities, so that the
/// most popular entities are not neighbours in the key space.
#[derive(Clone, Copy, Debug)]
pub struct Scatter {
    n: u64,
    mul: u64,
    add: u64,
}

impl Scatter {
    /// A permutation of `0..n` chosen by `seed`.
    #[must_use]
    pub fn new(n: u64, seed: u64) -> Scatter {
        let n = n.max(1);
        let mut mul = (mix64(seed) % n) | 1;
        while gcd(mul, n) != 1 {
            mul = (mul + 2) % n.max(2);
            if mul == 0 {
                mul = 1;
            }
        }
        Scatter {
            n,
            mul,
            add: mix64(seed ^ 0xadd) % n,
        }
    }

    /// The image of `x` (taken modulo `n`).
    #[must_use]
    pub fn apply(&self, x: u64) -> u64 {
        ((u128::from(x % self.n) * u128::from(self.mul) + u128::from(self.add))
            % u128::from(self.n)) as u64
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn math_matches_std_closely() {
        for &x in &[
            1e-300, 1e-5, 0.1, 0.5, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e300,
        ] {
            let d = det_ln(x);
            assert!(
                (d - x.ln()).abs() <= 1e-12 * x.ln().abs().max(1.0),
                "ln {x}: {d}"
            );
        }
        for &x in &[-700.0, -20.0, -1.0, -1e-9, 0.0, 0.3, 1.0, 5.5, 100.0, 700.0] {
            let d = det_exp(x);
            let s = f64::exp(x);
            assert!((d - s).abs() <= 1e-13 * s, "exp {x}: {d} vs {s}");
        }
        for &x in &[0.0, 0.5, 1.0, 2.0, 3.0, 4.0, -7.0, 100.0, 12_345.0] {
            assert!((det_cos(x) - x.cos()).abs() < 1e-10, "cos {x}");
        }
        assert!((det_pow(2.0, 10.0) - 1024.0).abs() < 1e-9);
        assert_eq!(det_pow(0.0, 2.0), 0.0);
        assert!(det_ln(-1.0).is_nan());
    }

    #[test]
    fn rng_is_deterministic_and_spread() {
        let mut a = Rng::new(42, 1);
        let mut b = Rng::new(42, 1);
        let mut c = Rng::new(42, 2);
        let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let zs: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
        let mut hist = [0u32; 10];
        for _ in 0..10_000 {
            hist[a.below(10) as usize] += 1;
        }
        assert!(hist.iter().all(|&h| (800..1200).contains(&h)), "{hist:?}");
    }

    #[test]
    fn zipf_is_skewed() {
        let z = Zipf::new(1000, 1.2);
        let mut rng = Rng::new(7, 0);
        let mut top = 0;
        for _ in 0..10_000 {
            if z.sample(&mut rng) < 10 {
                top += 1;
            }
        }
        assert!(
            top > 5000,
            "top 1% of ranks should draw most samples: {top}"
        );
        let flat = Zipf::new(1000, 1.0);
        assert!((0..1000).all(|_| flat.sample(&mut rng) < 1000));
    }

    #[test]
    fn scatter_is_a_permutation() {
        for n in [1u64, 2, 10, 97, 1000] {
            let s = Scatter::new(n, 9);
            let mut seen: Vec<u64> = (0..n).map(|x| s.apply(x)).collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len() as u64, n);
        }
    }
}
