//! The live Key Visualizer: the traffic a real instance's table recorded
//! ([`tabletop_store::traffic`]), on the table's real key space, through
//! the same [`Recorder`], [`Heatmap`] and [`diagnose`] the simulator uses.
//!
//! [`LiveKeyViz::build`] (or a [`LiveBuild`], in steps) reads the table
//! once (without counting that read as traffic) to cut its key space into
//! fine buckets of about equal row counts, the real tablets' boundaries
//! among them, and to know the rows and bytes stored in each. It then lays every recorded span of traffic
//! over the buckets its keys cover: counts spread in proportion to the
//! rows stored there, a scan counting once in every bucket it covers.
//! Time buckets are the store's ten seconds of the instance clock, merged
//! when there are more than [`LiveOptions::max_time_buckets`].
//!
//! Stored data (the `rows` and `data_stored` metrics) is the table as it
//! is now, in every time bucket: the store keeps traffic, not history.
//! Node CPU is an estimate for one node of the published per-node
//! capacity (SSD), so findings that speak of nodes speak of that node.

use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::live_build::{Census, LiveBuild};
use super::placement::{node_seconds, place, tablet_loads};
use super::{
    BucketMode, Context, Diagnostic, GoogleMessage, Heatmap, HotKey, KeyAxis, KeyGrouping,
    MAX_KEY_BUCKETS, Metric, POOR_PRESSURE, PrefixShare, PrefixTree, Recorder, SLOWDOWN_AT_POOR,
    diagnose, google_messages, grouped_prefix_shares, human_seconds, messages_text, prefixes_text,
    queue_latency_ms,
};
use crate::scenario::ClusterSpec;
use tabletop_sql::Instance;
use tabletop_store::traffic::TableTraffic;
use tabletop_store::traffic::{
    TRAFFIC_BUCKET_MICROS, TrafficCounts, TrafficSpan, key_prefix16, prefix16_bytes,
};
use tabletop_store::{Result, TabletInfo, escape_bytes, human_bytes};

/// How a live Key Visualizer is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveOptions {
    /// Most fine key buckets (quantiles of the table's keys).
    pub fine_buckets: usize,
    /// Most time buckets; longer records merge neighbouring buckets.
    pub max_time_buckets: usize,
    /// Nodes the table's tablets are given to, by the simulator's
    /// balancer rule ([`crate::balance`]); a browser or a single process
    /// has no real nodes.
    #[serde(default = "default_nodes")]
    pub nodes: u32,
}

/// A scenario's cluster size when it names none.
fn default_nodes() -> u32 {
    ClusterSpec::default().nodes
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            fine_buckets: 1024,
            max_time_buckets: 120,
            nodes: default_nodes(),
        }
    }
}

/// Busiest keys handed to the rules.
const HOT_KEYS: usize = 10;

/// One real tablet on the live key axis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveTablet {
    /// Tablet id.
    pub id: u64,
    /// First key (escaped; empty: start of the table).
    pub start_key: String,
    /// Key after the tablet (escaped; `None`: end of the table).
    pub end_key: Option<String>,
    /// Fine buckets `[first, last)` it covers.
    pub fine: [u32; 2],
    /// The node serving it, as the balancer would place it by the load
    /// recorded ([`LiveOptions::nodes`]).
    #[serde(default)]
    pub node: u32,
}

/// What the recorded operations did in total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveTotals {
    /// Point operations (point reads, writes of a row, conditional writes).
    pub point_ops: f64,
    /// Range operations (scans, dropped ranges, SampleRowKeys).
    pub scans: f64,
    /// Rows returned by reads.
    pub read_rows: f64,
    /// Bytes returned by reads.
    pub read_bytes: f64,
    /// Rows reads examined.
    pub rows_scanned: f64,
    /// Rows written.
    pub write_rows: f64,
    /// Bytes written.
    pub write_bytes: f64,
}

impl LiveTotals {
    fn add(&mut self, c: &TrafficCounts) {
        self.point_ops += f64::from(c.point_ops);
        self.scans += f64::from(c.scans);
        self.read_rows += f64::from(c.read_rows);
        self.read_bytes += f64::from(c.read_bytes);
        self.rows_scanned += f64::from(c.rows_scanned);
        self.write_rows += f64::from(c.write_rows);
        self.write_bytes += f64::from(c.write_bytes);
    }
}

/// The live Key Visualizer report of one table: what `tabletop keyviz`
/// prints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveReport {
    /// The table.
    pub table: String,
    /// Start of the first time bucket, instance clock (µs since the epoch).
    pub start_micros: i64,
    /// End of the last time bucket.
    pub end_micros: i64,
    /// Seconds per time bucket.
    pub bucket_seconds: f64,
    /// Time buckets.
    pub time_buckets: usize,
    /// Rows stored now.
    pub rows: f64,
    /// Bytes stored now.
    pub bytes: f64,
    /// The table's tablets.
    pub tablets: Vec<LiveTablet>,
    /// Nodes the tablets were given to ([`LiveOptions::nodes`]).
    #[serde(default = "default_nodes")]
    pub nodes: u32,
    /// What the recorded operations did.
    pub totals: LiveTotals,
    /// The findings, most severe first.
    pub diagnostics: Vec<Diagnostic>,
    /// Google's Key Visualizer messages (high read or write pressure,
    /// large rows, no data scanned, key space not to scale).
    #[serde(default)]
    pub messages: Vec<GoogleMessage>,
    /// The key space as a hierarchy of prefixes, with shares of rows and
    /// operations.
    #[serde(default)]
    pub prefixes: Vec<PrefixShare>,
    /// Heatmaps, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heatmaps: Option<Vec<Heatmap>>,
}

/// A table's recorded traffic on its key space, ready for heatmaps and
/// findings.
#[derive(Clone, Debug)]
pub struct LiveKeyViz {
    table: String,
    axis: KeyAxis,
    rec: Recorder,
    /// Rows and bytes stored per fine bucket now.
    rows: Vec<f64>,
    bytes: Vec<f64>,
    tablets: Vec<LiveTablet>,
    /// The tablets' first keys' 16-byte prefixes and their loads (share
    /// of a node), which place them on nodes ([`super::placement`]).
    starts: Vec<u128>,
    load: Vec<f64>,
    start_micros: i64,
    totals: LiveTotals,
    hot_keys: Vec<HotKey>,
    node_cpu: Vec<f32>,
    cluster: ClusterSpec,
    /// How the map was cut (kept for [`LiveKeyViz::refresh_traffic`]).
    opts: LiveOptions,
    /// For a small table, whose key axis is also cut by the keys traffic
    /// touched: the keys read and the tablets, so that a refresh can cut
    /// the axis again without reading the table. `None` for a large table,
    /// whose axis depends on its rows alone and is kept as it is.
    source: Option<Arc<(Census, Vec<TabletInfo>)>>,
}

/// The key axis of a table and what is stored along it.
struct Layout {
    axis: KeyAxis,
    rows: Vec<f64>,
    bytes: Vec<f64>,
    tablets: Vec<LiveTablet>,
    starts: Vec<u128>,
}

/// Where a span lies on the axis: fine buckets `first..=last`.
fn span_buckets(axis: &KeyAxis, s: &TrafficSpan) -> (usize, usize) {
    let lo = prefix16_bytes(s.lo);
    let first = axis.bucket_of(&lo);
    let last = if s.hi == u128::MAX {
        axis.len().saturating_sub(1)
    } else if s.is_point() && lo.len() == 16 {
        // A key cut at 16 bytes stands for every key that starts so.
        let mut upper = lo.clone();
        upper.extend_from_slice(&[0xff; 8]);
        axis.bucket_of(&upper)
    } else {
        axis.bucket_of(&prefix16_bytes(s.hi))
    };
    (first, last.max(first))
}

/// Splits a key at common delimiters (`#`, `/`, `:`, `|`), for labels.
fn split_segments(key: &[u8]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in key.iter().enumerate() {
        if matches!(b, b'#' | b'/' | b':' | b'|') {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < key.len() {
        out.push(start..key.len());
    }
    out
}

impl LiveKeyViz {
    /// The live Key Visualizer of `table`: reads its keys (not counted as
    /// traffic) and lays its recorded traffic over them. The same as a
    /// [`LiveBuild`] run to its end, in one go.
    ///
    /// # Errors
    ///
    /// When the table does not exist.
    pub fn build(db: &mut Instance, table: &str, opts: &LiveOptions) -> Result<LiveKeyViz> {
        LiveBuild::new(table, opts).finish(db)
    }

    /// The map of `table` from its keys as read ([`LiveBuild`]) and its
    /// tablets and traffic as they are now.
    pub(super) fn from_census(
        db: &Instance,
        table: &str,
        census: &Census,
        opts: &LiveOptions,
    ) -> Result<LiveKeyViz> {
        let tablets = db.tablets(table)?;
        let traffic = db.traffic(table)?;
        let layout = Self::layout(census, &tablets, traffic, opts);
        let source = (census.seen < Self::fine_max(opts) as u64)
            .then(|| Arc::new((census.clone(), tablets)));
        Ok(Self::lay(
            table,
            layout,
            traffic,
            opts,
            db.now_micros(),
            source,
        ))
    }

    /// Lays the table's traffic as recorded now on the key axis of the
    /// last [`LiveKeyViz::build`], without reading the table: the same
    /// map a new build would give as long as the table's rows, and so its
    /// key axis, did not change since (only its traffic did, as after a
    /// read). The caller knows whether the data changed (the playground
    /// keeps a data revision); after a change, build again.
    ///
    /// # Errors
    ///
    /// When the table no longer exists.
    pub fn refresh_traffic(&mut self, db: &Instance) -> Result<()> {
        let traffic = db.traffic(&self.table)?;
        let layout = match &self.source {
            Some(source) => Self::layout(&source.0, &source.1, traffic, &self.opts),
            None => Layout {
                axis: self.axis.clone(),
                rows: std::mem::take(&mut self.rows),
                bytes: std::mem::take(&mut self.bytes),
                tablets: std::mem::take(&mut self.tablets),
                starts: std::mem::take(&mut self.starts),
            },
        };
        let source = self.source.take();
        *self = Self::lay(
            &self.table,
            layout,
            traffic,
            &self.opts,
            db.now_micros(),
            source,
        );
        Ok(())
    }

    fn fine_max(opts: &LiveOptions) -> usize {
        opts.fine_buckets.clamp(1, 1 << 16)
    }

    /// Cuts the key axis from the keys read (and, for a small table, the
    /// keys traffic touched) and the tablets' boundaries.
    fn layout(
        census: &Census,
        tablets: &[TabletInfo],
        traffic: &TableTraffic,
        opts: &LiveOptions,
    ) -> Layout {
        let fine_max = Self::fine_max(opts);
        let quantiles = if census.seen < fine_max as u64 {
            // A small table: the keys traffic touched also cut the axis, so
            // reads of missing rows and dropped ranges keep their place.
            // Keys cut at 16 bytes are left out: each lies just before a
            // real key, and would cut an empty bucket there.
            let mut samples = census.keys.clone();
            for b in traffic.buckets() {
                samples.extend(
                    b.spans()
                        .iter()
                        .map(|s| prefix16_bytes(s.lo))
                        .filter(|k| k.len() < 16),
                );
            }
            KeyAxis::from_samples(&mut samples, fine_max)
        } else {
            // The keys were read in order: no copy, no sort.
            KeyAxis::from_sorted_samples(&census.keys, fine_max)
        };
        let mut anchors: Vec<&[u8]> = (0..quantiles.len()).map(|i| quantiles.start(i)).collect();
        anchors.extend(tablets.iter().map(|t| t.start_key.as_slice()));
        anchors.sort_unstable();
        anchors.dedup();
        let axis = KeyAxis::from_sorted(&anchors);
        let fine = axis.len();
        let mut rows = vec![0.0; fine];
        let mut bytes = vec![0.0; fine];
        for ((k, r), b) in census.keys.iter().zip(&census.rows).zip(&census.bytes) {
            let f = axis.bucket_of(k);
            if let (Some(ro), Some(by)) = (rows.get_mut(f), bytes.get_mut(f)) {
                *ro += r;
                *by += b;
            }
        }
        let starts = tablets.iter().map(|t| key_prefix16(&t.start_key)).collect();
        let tablets = tablets
            .iter()
            .map(|t| LiveTablet {
                id: t.id,
                start_key: escape_bytes(&t.start_key),
                end_key: t.end_key.as_deref().map(escape_bytes),
                fine: [
                    axis.bucket_of(&t.start_key) as u32,
                    t.end_key
                        .as_deref()
                        .map_or(fine as u32, |e| axis.bucket_of(e) as u32),
                ],
                node: 0,
            })
            .collect();
        Layout {
            axis,
            rows,
            bytes,
            tablets,
            starts,
        }
    }

    /// Lays the recorded traffic over a key axis.
    fn lay(
        table: &str,
        layout: Layout,
        traffic: &TableTraffic,
        opts: &LiveOptions,
        now_micros: i64,
        source: Option<Arc<(Census, Vec<TabletInfo>)>>,
    ) -> LiveKeyViz {
        let Layout {
            axis,
            rows,
            bytes,
            tablets: live_tablets,
            starts,
        } = layout;
        let fine = axis.len();
        let buckets: Vec<_> = traffic.buckets().collect();
        let first = buckets.first().map_or(now_micros, |b| b.start_micros);
        let last = buckets.last().map_or(first, |b| b.start_micros);
        let span_buckets_n = ((last - first) / TRAFFIC_BUCKET_MICROS + 1).max(1) as usize;
        let merge = span_buckets_n.div_ceil(opts.max_time_buckets.max(1)).max(1);
        let t_n = span_buckets_n.div_ceil(merge);
        let bucket_seconds = (TRAFFIC_BUCKET_MICROS as f64 / 1e6) * merge as f64;
        let mut live = LiveKeyViz {
            table: table.to_string(),
            axis,
            rec: Recorder::new(t_n, fine, bucket_seconds),
            rows,
            bytes,
            tablets: live_tablets,
            load: Vec::new(),
            starts,
            start_micros: first,
            totals: LiveTotals::default(),
            hot_keys: Vec::new(),
            node_cpu: vec![0.0; t_n],
            cluster: ClusterSpec::default(),
            opts: *opts,
            source,
        };
        live.rec.set_base_latency_ms(live.cluster.base_latency_ms);
        let t_of = |start: i64| {
            (((start - first) / TRAFFIC_BUCKET_MICROS) as usize / merge).min(t_n.saturating_sub(1))
        };
        // The node's load in each time bucket first: every operation's
        // latency depends on it.
        for b in &buckets {
            let t = t_of(b.start_micros);
            let work: f64 = b
                .spans()
                .iter()
                .map(|s| live.work(&s.counts))
                .map(|(r, w)| r + w)
                .sum();
            if let Some(cpu) = live.node_cpu.get_mut(t) {
                *cpu += (work / bucket_seconds * 100.0) as f32;
            }
        }
        let mut points: Vec<(u128, f64, f64)> = Vec::new();
        let mut t_open = 0usize;
        for b in &buckets {
            let t = t_of(b.start_micros);
            while t_open < t {
                live.rec.close(t_open, &live.rows, &live.bytes);
                t_open += 1;
            }
            for s in b.spans() {
                live.add_span(t, &s);
                if s.is_point() {
                    points.push((
                        s.lo,
                        f64::from(s.counts.point_ops),
                        f64::from(s.counts.write_rows),
                    ));
                }
            }
        }
        while t_open < t_n {
            live.rec.close(t_open, &live.rows, &live.bytes);
            t_open += 1;
        }
        live.hot_keys = live.busiest(
            points,
            span_buckets_n as f64 * TRAFFIC_BUCKET_MICROS as f64 / 1e6,
        );
        live.load = tablet_loads(traffic, &live.starts, &live.cluster);
        live.place_tablets();
        live
    }

    /// Gives the tablets to `nodes` nodes again (the record and the table
    /// are as they were): see [`LiveOptions::nodes`].
    pub fn set_nodes(&mut self, nodes: u32) {
        self.opts.nodes = nodes.max(1);
        self.place_tablets();
    }

    /// Gives the tablets to the nodes as the simulator's balancer would:
    /// in turn, then rounds of moves by each tablet's mean CPU over the
    /// record ([`super::placement`], which a Tablets panel uses without
    /// the map).
    fn place_tablets(&mut self) {
        for (t, n) in self
            .tablets
            .iter_mut()
            .zip(place(&self.load, self.opts.nodes))
        {
            t.node = n;
        }
    }

    /// Lays one span over its fine buckets in time bucket `t`: counts in
    /// proportion to the rows stored (evenly where none are), scans once
    /// per bucket.
    fn add_span(&mut self, t: usize, s: &TrafficSpan) {
        let (a, b) = span_buckets(&self.axis, s);
        let stored: f64 = self.rows.get(a..=b).map_or(0.0, |r| r.iter().sum());
        let width = (b - a + 1) as f64;
        let c = &s.counts;
        let (read, write) = self.work(c);
        let load = f64::from(self.node_cpu.get(t).copied().unwrap_or(0.0)) / 100.0;
        let latency = queue_latency_ms(self.cluster.base_latency_ms, load);
        for f in a..=b {
            let share = if stored > 0.0 {
                self.rows.get(f).copied().unwrap_or(0.0) / stored
            } else {
                1.0 / width
            };
            self.rec.add_cpu(f, read * share, write * share, latency);
            let ops = f64::from(c.point_ops) * share + f64::from(c.scans);
            self.rec.add_read(
                f,
                ops,
                f64::from(c.read_rows) * share,
                f64::from(c.read_bytes) * share,
                f64::from(c.rows_scanned) * share,
            );
            self.rec.add_write(
                f,
                0.0,
                f64::from(c.write_rows) * share,
                f64::from(c.write_bytes) * share,
            );
        }
        self.totals.add(c);
    }

    /// Node-seconds of reading and of writing the counts need from one
    /// node at the published capacity.
    fn work(&self, c: &TrafficCounts) -> (f64, f64) {
        node_seconds(&self.cluster, c)
    }

    /// The busiest single keys, busiest first.
    fn busiest(&self, mut points: Vec<(u128, f64, f64)>, seconds: f64) -> Vec<HotKey> {
        points.sort_unstable_by_key(|p| p.0);
        let mut merged: Vec<(u128, f64, f64)> = Vec::new();
        for p in points {
            match merged.last_mut() {
                Some(m) if m.0 == p.0 => {
                    m.1 += p.1;
                    m.2 += p.2;
                }
                _ => merged.push(p),
            }
        }
        merged.sort_by(|a, b| b.1.total_cmp(&a.1));
        merged.truncate(HOT_KEYS);
        let capacity = self.cluster.reads_per_second() * seconds.max(1e-9);
        merged
            .into_iter()
            .map(|(k, ops, writes)| {
                let key = prefix16_bytes(k);
                let f = self.axis.bucket_of(&key);
                let rows = self.rows.get(f).copied().unwrap_or(0.0).max(1.0);
                HotKey {
                    row_bytes: self.bytes.get(f).copied().unwrap_or(0.0) / rows,
                    key,
                    ops,
                    writes,
                    node_share: ops / capacity,
                }
            })
            .collect()
    }

    /// The table.
    #[must_use]
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The fine key axis.
    #[must_use]
    pub fn axis(&self) -> &KeyAxis {
        &self.axis
    }

    /// The recorder (fine buckets).
    #[must_use]
    pub fn recorder(&self) -> &Recorder {
        &self.rec
    }

    /// The table's tablets on the axis.
    #[must_use]
    pub fn tablets(&self) -> &[LiveTablet] {
        &self.tablets
    }

    /// Start of the first time bucket on the instance clock (µs).
    #[must_use]
    pub fn start_micros(&self) -> i64 {
        self.start_micros
    }

    /// The key-bucket grouping heatmaps use for `mode`.
    #[must_use]
    pub fn grouping(&self, mode: BucketMode, max_key_buckets: usize) -> KeyGrouping {
        KeyGrouping::for_recorded(mode, &self.rows, &self.rec, max_key_buckets)
    }

    /// A heatmap of `metric` with at most `max_key_buckets` key buckets.
    #[must_use]
    pub fn heatmap(&self, metric: Metric, mode: BucketMode, max_key_buckets: usize) -> Heatmap {
        let grouping = self.grouping(mode, max_key_buckets);
        Heatmap::build(
            &self.rec,
            &self.axis,
            &grouping,
            metric,
            self.reference(metric),
        )
    }

    /// The absolute-scale reference: one node's capacity (or one tablet's
    /// worth of data), as the simulator's.
    fn reference(&self, metric: Metric) -> f32 {
        let c = &self.cluster;
        let rows: f64 = self.rows.iter().sum();
        let rb = (self.bytes.iter().sum::<f64>() / rows.max(1.0)).max(1.0);
        (match metric {
            Metric::Ops | Metric::ReadRows => c.reads_per_second(),
            Metric::WriteRows => c.writes_per_second(),
            Metric::ReadBytes | Metric::WriteBytes => c.scan_bytes_per_second(),
            Metric::RowsScanned => c.scan_bytes_per_second() / rb,
            Metric::DataStored => c.split_bytes as f64,
            Metric::Rows => c.split_bytes as f64 / rb,
            Metric::ScanRatio => 100.0,
            Metric::ReadCpu | Metric::WriteCpu => 100.0,
            Metric::Latency => c.base_latency_ms * SLOWDOWN_AT_POOR,
            Metric::ReadPressure | Metric::WritePressure => POOR_PRESSURE,
        }) as f32
    }

    /// Key-prefix labels for a heatmap's key buckets (segments cut at `#`,
    /// `/`, `:` and `|`).
    #[must_use]
    pub fn prefix_tree(&self, heatmap: &Heatmap, max_depth: usize) -> PrefixTree {
        let starts: Vec<&[u8]> = heatmap
            .keys
            .iter()
            .map(|k| self.axis.start(k.fine[0] as usize))
            .collect();
        PrefixTree::build(&starts, split_segments, max_depth)
    }

    /// The findings.
    #[must_use]
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        if self.totals.point_ops + self.totals.scans <= 0.0 {
            return Vec::new();
        }
        diagnose(&self.context())
    }

    /// Google's Key Visualizer messages.
    #[must_use]
    pub fn messages(&self) -> Vec<GoogleMessage> {
        google_messages(&self.context())
    }

    fn context(&self) -> Context<'_> {
        Context {
            recorder: &self.rec,
            axis: &self.axis,
            node_cpu: &self.node_cpu,
            nodes: 1,
            hot_keys: &self.hot_keys,
            point_ops: self.totals.point_ops,
        }
    }

    /// The key space as a hierarchy of prefixes (1000 equal-row buckets,
    /// segments cut at `#`, `/`, `:` and `|`; the busiest ten prefixes,
    /// five under each, three under those).
    #[must_use]
    pub fn prefix_shares(&self) -> Vec<PrefixShare> {
        let grouping = self.grouping(BucketMode::EqualKeys, MAX_KEY_BUCKETS);
        let ops = self.rec.totals_by_key(Metric::Ops);
        grouped_prefix_shares(&self.axis, &grouping, split_segments, &self.rows, &ops)
    }

    /// The report, with heatmaps of `metrics` when given (all of them if
    /// the list is empty).
    #[must_use]
    pub fn report(&self, heatmaps: Option<(&[Metric], BucketMode, usize)>) -> LiveReport {
        let t_n = self.rec.time_buckets();
        LiveReport {
            table: self.table.clone(),
            start_micros: self.start_micros,
            end_micros: self.start_micros + (self.rec.bucket_seconds() * 1e6) as i64 * t_n as i64,
            bucket_seconds: self.rec.bucket_seconds(),
            time_buckets: t_n,
            rows: self.rows.iter().sum(),
            bytes: self.bytes.iter().sum(),
            tablets: self.tablets.clone(),
            nodes: self.opts.nodes.max(1),
            totals: self.totals,
            diagnostics: self.diagnostics(),
            messages: self.messages(),
            prefixes: self.prefix_shares(),
            heatmaps: heatmaps.map(|(metrics, mode, max)| {
                let list: &[Metric] = if metrics.is_empty() {
                    &Metric::ALL
                } else {
                    metrics
                };
                list.iter().map(|&m| self.heatmap(m, mode, max)).collect()
            }),
        }
    }
}

impl LiveReport {
    /// How many tablets the balancer gave each node that has any, by
    /// recorded CPU: `Tablets by node: node 0: 2, node 2: 1 (1 node holds
    /// none)`.
    fn tablets_by_node(&self) -> String {
        let mut counts = vec![0usize; self.nodes.max(1) as usize];
        for t in &self.tablets {
            if let Some(c) = counts.get_mut(t.node as usize) {
                *c += 1;
            }
        }
        let list: Vec<String> = counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(n, c)| format!("node {n}: {c}"))
            .collect();
        let idle = counts.len() - list.len();
        let mut line = format!("Tablets by node: {}", list.join(", "));
        if idle > 0 {
            let verb = if idle == 1 {
                "node holds"
            } else {
                "nodes hold"
            };
            line.push_str(&format!(" ({idle} {verb} none)"));
        }
        line
    }

    /// The report as pretty JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The report for people.
    #[must_use]
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let t = &self.totals;
        let span = self.bucket_seconds * self.time_buckets as f64;
        let _ = writeln!(
            out,
            "Live Key Visualizer: table {} ({} rows, {}, {} tablet{} on {} node{})",
            self.table,
            self.rows,
            human_bytes(self.bytes),
            self.tablets.len(),
            if self.tablets.len() == 1 { "" } else { "s" },
            self.nodes,
            if self.nodes == 1 { "" } else { "s" }
        );
        if t.point_ops + t.scans <= 0.0 {
            let _ = writeln!(out, "No traffic recorded yet.");
            let _ = writeln!(out, "\nKey Visualizer messages (Google's)");
            out.push_str(&messages_text(&self.messages, "  "));
            return out;
        }
        let _ = writeln!(
            out,
            "Traffic over {} of the instance clock ({} buckets of {}): {} point operations, {} \
             scans; {} rows read ({} scanned, {}), {} rows written ({}).",
            human_seconds(span),
            self.time_buckets,
            human_seconds(self.bucket_seconds),
            t.point_ops.round(),
            t.scans.round(),
            t.read_rows.round(),
            t.rows_scanned.round(),
            human_bytes(t.read_bytes),
            t.write_rows.round(),
            human_bytes(t.write_bytes),
        );
        let _ = writeln!(out, "\nKey Visualizer messages (Google's)");
        out.push_str(&messages_text(&self.messages, "  "));
        if !self.prefixes.is_empty() {
            let _ = writeln!(out, "\nKey space by prefix (busiest first levels)");
            out.push_str(&prefixes_text(&self.prefixes, "  "));
        }
        if self.nodes > 1 {
            let _ = writeln!(out, "\n{}", self.tablets_by_node());
        }
        if self.diagnostics.is_empty() {
            let _ = writeln!(out, "\nFindings: none.");
        }
        for d in &self.diagnostics {
            let _ = writeln!(
                out,
                "\n[{}] {}: keys {} to {}, {} to {}",
                d.severity.name(),
                d.pattern.name(),
                if d.key_start.is_empty() {
                    "(start)"
                } else {
                    &d.key_start
                },
                d.key_end.as_deref().unwrap_or("(end)"),
                human_seconds(d.time_start_seconds),
                human_seconds(d.time_end_seconds),
            );
            let _ = writeln!(out, "  {}", d.evidence);
            let _ = writeln!(out, "  What to do: {}", d.remedy);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn segments_split_at_delimiters() {
        assert_eq!(split_segments(b"phone#4c41#x"), vec![0..6, 6..11, 11..12]);
        assert_eq!(split_segments(b"plain"), vec![0..5]);
        assert!(split_segments(b"").is_empty());
    }

    #[test]
    fn long_point_keys_cover_their_prefix() {
        let anchors: [&[u8]; 3] = [b"", b"0123456789abcdef-a", b"0123456789abcdef-b"];
        let axis = KeyAxis::from_sorted(&anchors);
        let p = tabletop_store::traffic::key_prefix16(b"0123456789abcdef-b-row");
        let s = TrafficSpan {
            lo: p,
            hi: p,
            counts: TrafficCounts::default(),
        };
        assert_eq!(span_buckets(&axis, &s), (0, 2));
    }
}
