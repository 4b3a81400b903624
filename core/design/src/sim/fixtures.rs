//! Scenarios the simulator's unit tests share.

/// The seeds' mobile time series written at 100 rows a second for ten
/// minutes: 100,000 initial rows over 2,000 devices, keys
/// `type#id#day`, two families (`stats` keeping one version, `detail`
/// with no GC rule).
pub(crate) const MOBILE_WRITES: &str = r##"
name = "s"
duration = "10m"
[table]
id = "mobile"
rows = 100000
entities = 2000
families = { stats = { max_versions = 1 }, detail = {} }
[key]
segments = [
  { name = "type", kind = "enum", values = ["phone", "tablet"] },
  { name = "id", kind = "hex", width = 8 },
  { name = "day", kind = "date" },
]
[[workload]]
op = "write"
rate = 100
[keyviz]
time_buckets = 10
fine_buckets = 32
"##;
