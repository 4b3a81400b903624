// The peer workload's data set: the mobile time series of bench/src/lib.rs
// (the same generator ported to JavaScript, so the same rows, cells, sampled
// keys and month prefixes), shared by the scripts of bench/js/.

const MASK = (1n << 64n) - 1n;
export class Rng {
  constructor(seed) { this.x = seed; }
  next() {
    let x = this.x;
    x ^= (x << 13n) & MASK;
    x ^= x >> 7n;
    x ^= (x << 17n) & MASK;
    this.x = x;
    return x;
  }
  below(n) { return Number(this.next() % BigInt(n)); }
}

export const QUALIFIERS = ['connected_cell', 'connected_wifi', 'os_build', 'battery_level', 'cpu_usage',
  'memory_usage', 'signal_strength', 'storage_free', 'data_sent'];
export const SUMMARY = 'stats_summary';
/** The value regex of the workload's filtered scan: one month of os_build values. */
export const VALUE_REGEX = 'PQ2A\\.19040[0-9]\\.003';
export const DETAIL = 'stats_detail';
const DAYS = 10;
const MONTHS = 5;
const pad = (n, w) => String(n).padStart(w, '0');

export function generate(rows) {
  const perDevice = DAYS * MONTHS;
  const devices = Math.max(1, Math.ceil(rows / perDevice));
  const rng = new Rng(0x5eedcafef00d1234n);
  const ids = [];
  for (let i = 0; i < devices; i++) {
    const phone = rng.below(4) !== 0;
    ids.push([phone, Number(rng.next() & 0xffffffffn)]);
  }
  const out = [];
  const monthPrefixes = [];
  const tMay2020 = 1588291200000000;
  for (let month = 0; month < MONTHS; month++) {
    for (let day = 0; day < DAYS; day++) {
      const ts = tMay2020 + (month * 31 + day) * 86400000000;
      for (const [phone, id] of ids) {
        const key = `${phone ? 'phone' : 'tablet'}#${id.toString(16).padStart(8, '0')}#2020${pad(5 + month, 2)}${pad(1 + day, 2)}`;
        if (day === 0) monthPrefixes.push(key.slice(0, -2));
        const r = rng.below(20);
        const detail = r <= 7 ? 4 : r <= 16 ? 5 : 6;
        const cells = [];
        for (let q = 0; q < 3 + detail; q++) {
          let value;
          if (q < 2) value = String(rng.below(2));
          else if (q === 2) value = `PQ2A.1904${pad(rng.below(30), 2)}.003`;
          else value = String(rng.below(10000));
          cells.push([q < 3 ? SUMMARY : DETAIL, QUALIFIERS[q], value]);
        }
        out.push({ key, ts, cells });
      }
    }
  }
  return { rows: out, monthPrefixes };
}

export function sample(list, n, seed) {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => list[rng.below(list.length)]);
}

export function prefixEnd(prefix) {
  // The month prefixes are ASCII and never end in 0xff.
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
