//! The busiest row keys, found with the Space-Saving algorithm (Metwally,
//! Agrawal and El Abbadi): a fixed number of counters; a key without one
//! takes over the smallest, inheriting its count as possible error. Any key
//! with more than `total / slots` operations is guaranteed to hold a slot.

/// One tracked key.
#[derive(Clone, Debug, Default)]
pub(crate) struct Slot {
    pub hash: u64,
    /// Operations counted (an over-estimate by at most `err`).
    pub count: f64,
    /// Over-estimate inherited when the slot was taken over.
    pub err: f64,
    pub writes: f64,
    pub write_bytes: f64,
    pub reads: f64,
    pub key: Vec<u8>,
}

impl Slot {
    /// Operations certainly on this key.
    pub fn guaranteed(&self) -> f64 {
        (self.count - self.err).max(0.0)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct HeavyHitters {
    slots: Vec<Slot>,
    cap: usize,
}

impl HeavyHitters {
    pub fn new(cap: usize) -> HeavyHitters {
        HeavyHitters {
            slots: Vec::with_capacity(cap),
            cap: cap.max(1),
        }
    }

    /// Counts `w` operations on `key` (hash `hash`).
    pub fn add(&mut self, key: &[u8], hash: u64, w: f64, write_bytes: Option<f64>) {
        let (writes, wb, reads) = match write_bytes {
            Some(b) => (w, b, 0.0),
            None => (0.0, 0.0, w),
        };
        if let Some(s) = self.slots.iter_mut().find(|s| s.hash == hash) {
            s.count += w;
            s.writes += writes;
            s.write_bytes += wb;
            s.reads += reads;
            return;
        }
        if self.slots.len() < self.cap {
            self.slots.push(Slot {
                hash,
                count: w,
                err: 0.0,
                writes,
                write_bytes: wb,
                reads,
                key: key.to_vec(),
            });
            return;
        }
        let mut min_i = 0;
        let mut min_c = f64::INFINITY;
        for (i, s) in self.slots.iter().enumerate() {
            if s.count < min_c {
                min_c = s.count;
                min_i = i;
            }
        }
        if let Some(s) = self.slots.get_mut(min_i) {
            s.hash = hash;
            s.err = s.count;
            s.count += w;
            s.writes = writes;
            s.write_bytes = wb;
            s.reads = reads;
            s.key.clear();
            s.key.extend_from_slice(key);
        }
    }

    /// Slots, busiest (by guaranteed count) first; ties by key.
    pub fn top(&self) -> Vec<&Slot> {
        let mut v: Vec<&Slot> = self.slots.iter().collect();
        v.sort_by(|a, b| {
            b.guaranteed()
                .total_cmp(&a.guaranteed())
                .then_with(|| a.key.cmp(&b.key))
        });
        v
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn finds_the_heavy_key_among_many() {
        let mut h = HeavyHitters::new(8);
        for i in 0..10_000u64 {
            let k = (i % 1000).to_be_bytes();
            h.add(&k, i % 1000, 1.0, None);
            if i % 3 == 0 {
                h.add(b"hot", 999_999, 1.0, Some(100.0));
            }
        }
        let top = h.top();
        assert_eq!(top[0].key, b"hot");
        assert!(top[0].guaranteed() >= 3000.0);
        assert_eq!(top[0].writes, top[0].count - top[0].err);
        assert!(top[1].guaranteed() < 100.0);
    }
}
