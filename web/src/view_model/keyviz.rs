//! The Key Visualizer's display data: a heatmap of the running simulation,
//! or of a real table's recorded traffic ([`MapSource`]), for the chosen
//! metric, scale and key range ([`MapData`]), painted into a
//! reused RGBA buffer the size of the canvas ([`Painter`]); what lies under
//! the pointer ([`hit`], [`cell_info`]); the colour legend; the key-prefix
//! labels at the side; the data-table alternative; zooming; and the
//! diagnostics as banners.
//!
//! The heatmap's x axis is the whole run (the scenario's time buckets), so
//! the map fills from left to right as the simulation advances; the y axis
//! is the key space, the start of the table at the top, as Bigtable draws
//! it. A zoom is a range of the simulator's fine key buckets, so it stays
//! put while the map is rebuilt.

use tabletop_core::human_bytes;
use tabletop_core::keyviz::{
    BucketMode, ColorScale, Diagnostic, Heatmap, KeyAxis, KeyBucket, KeyGrouping, LiveKeyViz,
    MAX_KEY_BUCKETS, Metric, Pattern, PrefixNode, PrefixTree, Recorder, Severity, human_seconds,
    viridis,
};
use tabletop_core::sim::Simulation;

use super::format::format_count;

/// Key buckets a map shows (Bigtable's Key Visualizer draws up to 1000).
pub const KEY_BUCKETS: usize = 500;
/// Levels of key-prefix labels beside the map.
pub const LABEL_DEPTH: usize = 3;

/// What the Key Visualizer shows: the settings a person picks.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct KeyVizSettings {
    /// The metric.
    pub metric: Metric,
    /// Relative to the hottest cell, or against one node's capacity.
    pub scale: ColorScale,
    /// How the key axis is cut into buckets.
    pub mode: BucketMode,
    /// The fine key buckets `[first, last)` zoomed into (`None`: all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zoom: Option<[u32; 2]>,
    /// Whether the data table is shown instead of the canvas.
    pub table: bool,
}

impl Default for KeyVizSettings {
    fn default() -> Self {
        KeyVizSettings {
            metric: Metric::Ops,
            scale: ColorScale::Relative,
            mode: BucketMode::EqualKeys,
            zoom: None,
            table: false,
        }
    }
}

/// A metric's name for people.
pub fn metric_label(metric: Metric) -> &'static str {
    match metric {
        Metric::Ops => "Operations",
        Metric::ReadRows => "Read rows",
        Metric::WriteRows => "Write rows",
        Metric::ReadBytes => "Read bytes",
        Metric::WriteBytes => "Write bytes",
        Metric::RowsScanned => "Rows scanned",
        Metric::DataStored => "Data stored",
        Metric::Rows => "Rows stored",
        Metric::ScanRatio => "Scan ratio",
        Metric::ReadCpu => "Read CPU",
        Metric::WriteCpu => "Write CPU",
        Metric::Latency => "Latency",
        Metric::ReadPressure => "Read pressure index",
        Metric::WritePressure => "Write pressure index",
    }
}

/// A heatmap ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct MapData {
    /// The metric shown.
    pub metric: Metric,
    /// The unit of `values`.
    pub unit: String,
    /// Columns of the whole run.
    pub time_total: usize,
    /// Columns simulated so far (the rest is drawn empty).
    pub time_filled: usize,
    /// Seconds per column.
    pub bucket_seconds: f64,
    /// `values[row * time_filled + column]`; row 0 is the first key.
    pub values: Vec<f32>,
    /// The largest value shown.
    pub max: f32,
    /// What fills the absolute scale (one node's capacity for traffic).
    pub reference: f32,
    /// The key buckets shown, in key order.
    pub keys: Vec<KeyBucket>,
    /// Key-prefix labels over `keys` (bucket indices into `keys`).
    pub labels: Vec<PrefixNode>,
    /// Fine buckets of the whole key space.
    pub fine_total: u32,
    /// The fine buckets shown.
    pub range: [u32; 2],
    /// Where the first column starts on the instance clock (µs since the
    /// epoch) for a real table's traffic; `None` for a simulation, whose
    /// times count from the start of the run.
    pub origin_micros: Option<i64>,
    /// The tablets on the fine key axis and the nodes serving them: a
    /// real table's (for every column), or every tablet a simulation had,
    /// for the columns it served in.
    pub tablets: Vec<TabletSpan>,
    /// Rows stored now in each key bucket shown (a real table's map only).
    pub stored_rows: Vec<f64>,
}

/// A tablet's place on the fine key axis, its node, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TabletSpan {
    /// The tablet id.
    pub id: u64,
    /// The node serving it.
    pub node: u32,
    /// The fine buckets `[first, last)` it covers.
    pub fine: [u32; 2],
    /// The columns `[first, last)` it served them in (a real table's:
    /// all, `[0, u32::MAX)`).
    pub columns: [u32; 2],
}

impl MapData {
    /// Key buckets shown.
    pub fn rows(&self) -> usize {
        self.keys.len()
    }

    /// One value (0 outside the map).
    pub fn value(&self, row: usize, column: usize) -> f32 {
        if column >= self.time_filled {
            return 0.0;
        }
        self.values
            .get(row * self.time_filled + column)
            .copied()
            .unwrap_or(0.0)
    }

    /// Whether only part of the key space is shown.
    pub fn zoomed(&self) -> bool {
        self.range != [0, self.fine_total]
    }

    /// The value that fills the colour scale.
    pub fn top(&self, scale: ColorScale) -> f32 {
        match scale {
            ColorScale::Relative => self.max,
            ColorScale::Absolute => self.reference,
        }
    }
}

/// A zoom brought within the key space; `None` when it covers all of it
/// or is empty.
pub fn clamp_zoom(zoom: Option<[u32; 2]>, fine_total: u32) -> Option<[u32; 2]> {
    let [lo, hi] = zoom?;
    let hi = hi.min(fine_total);
    let lo = lo.min(hi);
    if hi <= lo || (lo == 0 && hi == fine_total) {
        None
    } else {
        Some([lo, hi])
    }
}

/// What a map is drawn from: the simulation, or the traffic a real table
/// recorded ([`LiveKeyViz`]). Both cut the key space into fine buckets
/// and record the same metrics; the map is built the same way from either.
pub trait MapSource {
    /// The recorded metrics, by time and fine key bucket.
    fn recorder(&self) -> &Recorder;
    /// The fine key buckets.
    fn axis(&self) -> &KeyAxis;
    /// A heatmap of the whole key space.
    fn heatmap(&self, metric: Metric, mode: BucketMode, max_key_buckets: usize) -> Heatmap;
    /// Key groups inside the fine buckets `range`, with one group before
    /// it and one after it where the range leaves space there.
    fn grouping_within(&self, mode: BucketMode, range: [u32; 2], max: usize) -> KeyGrouping;
    /// Key-prefix labels of a heatmap's buckets.
    fn prefix_tree(&self, heatmap: &Heatmap, max_depth: usize) -> PrefixTree;
    /// The instance-clock time of the first column, for real traffic.
    fn origin_micros(&self) -> Option<i64>;
    /// The tablets on the fine axis, their nodes, and when they served.
    fn tablets(&self) -> Vec<TabletSpan>;
    /// Rows stored now per fine bucket, when they are real rows.
    fn stored_rows(&self) -> Option<Vec<f64>> {
        None
    }
}

impl MapSource for Simulation {
    fn recorder(&self) -> &Recorder {
        Simulation::recorder(self)
    }
    fn axis(&self) -> &KeyAxis {
        Simulation::axis(self)
    }
    fn heatmap(&self, metric: Metric, mode: BucketMode, max_key_buckets: usize) -> Heatmap {
        Simulation::heatmap(self, metric, mode, max_key_buckets)
    }
    fn grouping_within(&self, mode: BucketMode, range: [u32; 2], max: usize) -> KeyGrouping {
        Simulation::grouping_within(self, mode, range, max)
    }
    fn prefix_tree(&self, heatmap: &Heatmap, max_depth: usize) -> PrefixTree {
        Simulation::prefix_tree(self, heatmap, max_depth)
    }
    fn origin_micros(&self) -> Option<i64> {
        None
    }
    fn tablets(&self) -> Vec<TabletSpan> {
        // Every tablet of the run so far: they split, merge and move, so
        // each span says when it served.
        let bucket_seconds = self.recorder().bucket_seconds();
        self.served()
            .iter()
            .map(|s| TabletSpan {
                id: s.tablet,
                node: s.node,
                fine: s.fine,
                columns: s.columns(bucket_seconds),
            })
            .collect()
    }
}

impl MapSource for LiveKeyViz {
    fn recorder(&self) -> &Recorder {
        LiveKeyViz::recorder(self)
    }
    fn axis(&self) -> &KeyAxis {
        LiveKeyViz::axis(self)
    }
    fn heatmap(&self, metric: Metric, mode: BucketMode, max_key_buckets: usize) -> Heatmap {
        LiveKeyViz::heatmap(self, metric, mode, max_key_buckets)
    }
    fn grouping_within(&self, mode: BucketMode, range: [u32; 2], max: usize) -> KeyGrouping {
        // The rows stored per fine bucket are the `rows` metric of the
        // last column (the table as it is now).
        let rows = self.recorder().totals_by_key(Metric::Rows);
        let traffic = match mode {
            BucketMode::EqualKeys => vec![0.0; rows.len()],
            BucketMode::TrafficWeighted => self.recorder().totals_by_key(Metric::Ops),
        };
        grouping_within(mode, &rows, &traffic, range, max)
    }
    fn prefix_tree(&self, heatmap: &Heatmap, max_depth: usize) -> PrefixTree {
        LiveKeyViz::prefix_tree(self, heatmap, max_depth)
    }
    fn origin_micros(&self) -> Option<i64> {
        Some(self.start_micros())
    }
    fn tablets(&self) -> Vec<TabletSpan> {
        LiveKeyViz::tablets(self)
            .iter()
            .map(|t| TabletSpan {
                id: t.id,
                node: t.node,
                fine: t.fine,
                columns: [0, u32::MAX],
            })
            .collect()
    }
    fn stored_rows(&self) -> Option<Vec<f64>> {
        // The `rows` metric of the last column: the table as it is now.
        Some(self.recorder().totals_by_key(Metric::Rows))
    }
}

/// Key groups of `rows` (and `traffic`, for traffic-weighted buckets)
/// inside the fine buckets `range`, one group before and one after it.
fn grouping_within(
    mode: BucketMode,
    rows: &[f64],
    traffic: &[f64],
    range: [u32; 2],
    max: usize,
) -> KeyGrouping {
    let total = rows.len();
    let lo = (range[0] as usize).min(total);
    let hi = (range[1] as usize).clamp(lo, total);
    let inner_traffic = traffic
        .get(lo..hi)
        .map_or_else(|| vec![0.0; hi - lo], <[f64]>::to_vec);
    let inner_rows = rows.get(lo..hi).unwrap_or_default();
    let inner = KeyGrouping::for_mode(
        mode,
        inner_rows,
        &inner_traffic,
        max.clamp(1, MAX_KEY_BUCKETS),
    );
    let mut bounds = Vec::with_capacity(inner.bounds.len() + 2);
    if lo > 0 {
        bounds.push(0);
    }
    bounds.extend(inner.bounds.iter().map(|b| b + lo as u32));
    if hi < total {
        bounds.push(total as u32);
    }
    bounds.dedup();
    KeyGrouping { bounds }
}

/// Builds the map of `settings` from `source` as it is now.
pub fn build_map(source: &impl MapSource, settings: &KeyVizSettings) -> MapData {
    let fine_total = source.recorder().fine_buckets() as u32;
    let time_total = source.recorder().time_buckets();
    let zoom = clamp_zoom(settings.zoom, fine_total);
    let (heatmap, skip, take) = match zoom {
        None => {
            let h = source.heatmap(settings.metric, settings.mode, KEY_BUCKETS);
            let n = h.key_buckets;
            (h, 0, n)
        }
        Some([lo, hi]) => {
            // Inside a zoom the range is grouped the way the whole map is
            // (by rows, or half rows and half traffic); the parts before
            // and after it are one group each, dropped below.
            let grouping = source.grouping_within(settings.mode, [lo, hi], KEY_BUCKETS);
            let n = grouping.len() - usize::from(lo > 0) - usize::from(hi < fine_total);
            let reference = source
                .heatmap(settings.metric, BucketMode::EqualKeys, 1)
                .reference;
            let h = Heatmap::build(
                source.recorder(),
                source.axis(),
                &grouping,
                settings.metric,
                reference,
            );
            (h, usize::from(lo > 0), n)
        }
    };
    let t = heatmap.time_buckets;
    let keys: Vec<KeyBucket> = heatmap.keys.iter().skip(skip).take(take).cloned().collect();
    let values: Vec<f32> = heatmap
        .values
        .get(skip * t..(skip + keys.len()) * t)
        .unwrap_or_default()
        .to_vec();
    let max = values.iter().copied().fold(0.0f32, f32::max);
    let shown = Heatmap {
        key_buckets: keys.len(),
        values: Vec::new(),
        keys,
        ..heatmap
    };
    let labels = source.prefix_tree(&shown, LABEL_DEPTH).nodes;
    let stored_rows = source.stored_rows().map_or_else(Vec::new, |rows| {
        shown
            .keys
            .iter()
            .map(|k| {
                rows.get(k.fine[0] as usize..k.fine[1] as usize)
                    .map_or(0.0, |r| r.iter().sum())
            })
            .collect()
    });
    MapData {
        metric: shown.metric,
        unit: shown.unit,
        time_total,
        time_filled: t,
        bucket_seconds: shown.bucket_seconds,
        values,
        max,
        reference: shown.reference,
        keys: shown.keys,
        labels,
        fine_total,
        range: zoom.unwrap_or([0, fine_total]),
        origin_micros: source.origin_micros(),
        tablets: source.tablets(),
        stored_rows,
    }
}

/// Where a cell lies: the tablets that served its key bucket during its
/// column and their nodes (`tablet #2 on node 1`), as the Tablets panel
/// numbers them, and for a real table the rows stored there
/// (`, 1,204 rows stored`).
pub fn cell_place(map: &MapData, row: usize, column: usize) -> Option<String> {
    range_place(map, row, row + 1, Some(column))
}

/// Where the key buckets `first..end` lie, during `column` (`None`: any
/// column): see [`cell_place`].
pub fn range_place(
    map: &MapData,
    first: usize,
    end: usize,
    column: Option<usize>,
) -> Option<String> {
    let lo = map.keys.get(first)?.fine[0];
    let hi = map.keys.get(end.checked_sub(1)?)?.fine[1];
    let during = |t: &TabletSpan| {
        column.is_none_or(|c| (t.columns[0] as usize..t.columns[1] as usize).contains(&c))
    };
    let mut served: Vec<(u32, u64, u32)> = map
        .tablets
        .iter()
        .filter(|t| t.fine[0] < hi && lo < t.fine[1].max(t.fine[0] + 1) && during(t))
        .map(|t| (t.fine[0], t.id, t.node))
        .collect();
    served.sort_unstable();
    let mut ids: Vec<u64> = Vec::new();
    for &(_, id, _) in &served {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let mut nodes: Vec<u32> = served.iter().map(|s| s.2).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let tablets = match ids.as_slice() {
        [] => return None,
        [one] => format!("tablet #{one}"),
        [first, .., last] => format!("{} tablets, #{first} to #{last},", ids.len()),
    };
    let mut place = format!("{tablets} on {}", nodes_text(&nodes));
    if let Some(rows) = map.stored_rows.get(first..end).filter(|r| !r.is_empty()) {
        let n = rows.iter().sum::<f64>().round().max(0.0) as u64;
        place.push_str(&format!(
            ", {} row{} stored",
            format_count(n),
            if n == 1 { "" } else { "s" }
        ));
    }
    Some(place)
}

/// `node 2`, `nodes 0 and 2`, `nodes 0, 1 and 2`.
fn nodes_text(nodes: &[u32]) -> String {
    match nodes {
        [] => "no node".into(),
        [one] => format!("node {one}"),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(u32::to_string).collect();
            format!("nodes {} and {last}", init.join(", "))
        }
    }
}

/// A time of day on the instance clock, `14:02:10 UTC`.
pub fn clock_time(micros: i64) -> String {
    let s = micros.div_euclid(1_000_000).rem_euclid(86_400);
    format!("{:02}:{:02}:{:02} UTC", s / 3600, s / 60 % 60, s % 60)
}

/// The time from `from` to `to` seconds into a map: clock times for real
/// traffic, else the time into the run.
pub fn time_span(origin_micros: Option<i64>, from: f64, to: f64) -> String {
    match origin_micros {
        Some(origin) => {
            let at = |s: f64| origin.saturating_add((s * 1e6) as i64);
            format!("{} to {}", clock_time(at(from)), clock_time(at(to)))
        }
        None => format!(
            "{} to {} into the run",
            human_seconds(from),
            human_seconds(to)
        ),
    }
}

/// The colour of an empty (zero) cell of the simulated part: the darkest
/// end of viridis, so quiet ranges read as dark, as in Bigtable's tool.
const ZERO: [u8; 4] = [0x44, 0x01, 0x54, 255];

/// Paints maps into one RGBA buffer that is reused between frames, with a
/// 256-entry colour table, so a redraw allocates nothing once the canvas
/// size is stable.
#[derive(Debug, Default)]
pub struct Painter {
    /// RGBA bytes, `width * height * 4`, ready for `ImageData`.
    pub pixels: Vec<u8>,
    columns: Vec<u32>,
    lut: Vec<[u8; 4]>,
}

impl Painter {
    /// Paints `map` on `scale` into a `width x height` pixel buffer and
    /// returns it. Columns not simulated yet stay transparent.
    pub fn paint(
        &mut self,
        map: &MapData,
        scale: ColorScale,
        width: usize,
        height: usize,
    ) -> &[u8] {
        if self.lut.is_empty() {
            self.lut = (0..256)
                .map(|i| {
                    let [r, g, b] = viridis(i as f32 / 255.0);
                    [r, g, b, 255]
                })
                .collect();
        }
        self.pixels.clear();
        self.pixels.resize(width * height * 4, 0);
        let total = map.time_total.max(1);
        self.columns.clear();
        self.columns.extend((0..width).map(|x| {
            let t = x * total / width.max(1);
            if t < map.time_filled {
                t as u32
            } else {
                u32::MAX
            }
        }));
        let rows = map.rows();
        let top = map.top(scale);
        let scale_by = if top.is_finite() && top > 0.0 {
            255.0 / top
        } else {
            0.0
        };
        let filled = map.time_filled;
        if rows == 0 || filled == 0 {
            return &self.pixels;
        }
        for (y, line) in self.pixels.chunks_exact_mut(width * 4).enumerate() {
            let row = (y * rows / height.max(1)).min(rows - 1);
            let Some(values) = map.values.get(row * filled..(row + 1) * filled) else {
                continue;
            };
            for (px, &t) in line.chunks_exact_mut(4).zip(&self.columns) {
                if t == u32::MAX {
                    continue;
                }
                let v = values.get(t as usize).copied().unwrap_or(0.0);
                let colour = if v > 0.0 {
                    let i = (v * scale_by).clamp(0.0, 255.0) as usize;
                    self.lut.get(i).copied().unwrap_or(ZERO)
                } else {
                    ZERO
                };
                px.copy_from_slice(&colour);
            }
        }
        &self.pixels
    }
}

/// The cell under a point of a `width x height` map (CSS pixels, from its
/// top left): `(row, column)`, or `None` outside it.
pub fn hit(map: &MapData, width: f64, height: f64, x: f64, y: f64) -> Option<(usize, usize)> {
    if !(width > 0.0 && height > 0.0 && (0.0..width).contains(&x) && (0.0..height).contains(&y)) {
        return None;
    }
    let rows = map.rows();
    if rows == 0 {
        return None;
    }
    let row = ((y / height * rows as f64) as usize).min(rows - 1);
    let column =
        ((x / width * map.time_total.max(1) as f64) as usize).min(map.time_total.saturating_sub(1));
    Some((row, column))
}

/// What a tooltip says about one cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellInfo {
    /// The key bucket's first key (escaped; empty: the start of the table).
    pub key_start: String,
    /// The key after it (escaped), or `None` at the end of the table.
    pub key_end: Option<String>,
    /// The time the column covers: from the start of the run, or on the
    /// instance clock for real traffic.
    pub time: String,
    /// The value with its unit, or a note that the time is not simulated
    /// yet.
    pub value: String,
    /// The tablets and nodes that served the cell, and a real table's
    /// rows under it ([`cell_place`]).
    pub place: Option<String>,
}

/// The tooltip of a cell.
pub fn cell_info(map: &MapData, row: usize, column: usize) -> Option<CellInfo> {
    let key = map.keys.get(row)?;
    let from = column as f64 * map.bucket_seconds;
    let to = from + map.bucket_seconds;
    let value = if column < map.time_filled {
        format!(
            "{}: {}",
            metric_label(map.metric),
            format_value(map.value(row, column), map.metric)
        )
    } else {
        "not simulated yet".to_string()
    };
    Some(CellInfo {
        key_start: key.start.clone(),
        key_end: key.end.clone(),
        time: time_span(map.origin_micros, from, to),
        value,
        place: cell_place(map, row, column),
    })
}

/// A value in the metric's unit, in short form (`12.3 k ops/s`,
/// `1.5 MiB`, `3.2x`).
pub fn format_value(v: f32, metric: Metric) -> String {
    let v = if v.is_finite() { f64::from(v) } else { 0.0 };
    match metric {
        Metric::DataStored => human_bytes(v.max(0.0)),
        Metric::ReadBytes | Metric::WriteBytes => {
            format!("{}/s", human_bytes(v.max(0.0)))
        }
        Metric::ScanRatio => format!("{} rows scanned per row returned", short_number(v)),
        _ => format!("{} {}", short_number(v), metric.unit()),
    }
}

/// A number with a k, M or G suffix and three significant digits.
pub fn short_number(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, " G")
    } else if a >= 1e6 {
        (v / 1e6, " M")
    } else if a >= 1e4 {
        (v / 1e3, " k")
    } else {
        (v, "")
    };
    if suffix.is_empty() && (x - x.round()).abs() < 1e-9 && a < 1e4 {
        return format_count(x.round().max(0.0) as u64);
    }
    let digits = if x.abs() >= 100.0 {
        0
    } else if x.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{x:.digits$}{suffix}")
}

/// The colour legend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Legend {
    /// The value at the dark end.
    pub low: String,
    /// The value at the bright end.
    pub high: String,
    /// What the bright end means.
    pub caption: String,
}

/// The legend of `map` on `scale`.
pub fn legend(map: &MapData, scale: ColorScale) -> Legend {
    let high = format_value(map.top(scale), map.metric);
    let caption = match scale {
        ColorScale::Relative => "Relative: the brightest cell is the hottest one shown".to_string(),
        ColorScale::Absolute if map.metric.is_state() => {
            format!("Absolute: full colour is one tablet's split size ({high})")
        }
        ColorScale::Absolute if map.metric == Metric::ScanRatio => {
            format!("Absolute: full colour is {high}")
        }
        ColorScale::Absolute => {
            format!(
                "Absolute: full colour is one node's capacity ({high}); brighter cells alone need a whole node"
            )
        }
    };
    Legend {
        low: format_value(0.0, map.metric),
        high,
        caption,
    }
}

/// A key-prefix label beside the map.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelBox {
    /// 0 for the first key segment.
    pub depth: u8,
    /// The segment's text.
    pub text: String,
    /// The whole prefix.
    pub prefix: String,
    /// Top, in percent of the map's height.
    pub top: f64,
    /// Height, in percent of the map's height.
    pub height: f64,
}

/// The labels that can be read on a map `height_px` high: at each depth,
/// from the top, a label whose top is at least `min_px` below the last one
/// shown. Labels covering many buckets (`phone`, `tablet`) span them; where
/// every bucket has a label of its own (a timestamp first), every few
/// buckets get one, like ticks on an axis.
pub fn label_boxes(map: &MapData, height_px: f64, min_px: f64, depths: usize) -> Vec<LabelBox> {
    let rows = map.rows().max(1) as f64;
    let px_per_row = height_px / rows;
    let mut last_top = [f64::NEG_INFINITY; LABEL_DEPTH + 1];
    let mut out = Vec::new();
    for n in &map.labels {
        // The first bucket starts at the empty key: nothing to label.
        if n.label.is_empty() || usize::from(n.depth) >= depths {
            continue;
        }
        let depth = usize::from(n.depth).min(LABEL_DEPTH);
        let top_px = f64::from(n.first) * px_per_row;
        let count = f64::from(n.last.saturating_sub(n.first) + 1);
        let Some(last) = last_top.get_mut(depth) else {
            continue;
        };
        if top_px - *last < min_px || top_px + min_px > height_px + 0.5 {
            continue;
        }
        *last = top_px;
        out.push(LabelBox {
            depth: n.depth,
            text: n.label.clone(),
            prefix: n.prefix.clone(),
            top: top_px / height_px.max(1.0) * 100.0,
            height: (count * px_per_row).max(min_px) / height_px.max(1.0) * 100.0,
        });
    }
    out
}

/// How wide each depth's column of labels is, in characters: its longest
/// label, within 3 to `max_chars` (longer ones are cut with an ellipsis).
pub fn label_widths(boxes: &[LabelBox], max_chars: usize) -> Vec<usize> {
    let mut widths: Vec<usize> = Vec::new();
    for b in boxes {
        let d = usize::from(b.depth);
        if widths.len() <= d {
            widths.resize(d + 1, 3);
        }
        if let Some(w) = widths.get_mut(d) {
            *w = (*w).max(b.text.chars().count().clamp(3, max_chars.max(3)));
        }
    }
    widths
}

/// A labelled tick of the time axis under the map.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeTick {
    /// Seconds from the start of the run.
    pub seconds: f64,
    /// The label, with its unit (`10 min`).
    pub label: String,
    /// Where the tick is, in percent of the map's width.
    pub at: f64,
    /// How the label sits on the tick: its left edge on the first tick,
    /// its right edge on one at the map's right end, centred otherwise.
    pub align: TickAlign,
}

/// See [`TimeTick::align`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickAlign {
    /// The label starts at the tick.
    Start,
    /// The label is centred on the tick.
    Middle,
    /// The label ends at the tick.
    End,
}

impl TickAlign {
    /// The CSS class of the alignment.
    pub fn class(self) -> &'static str {
        match self {
            TickAlign::Start => "start",
            TickAlign::Middle => "middle",
            TickAlign::End => "end",
        }
    }
}

/// Round intervals between ticks, in seconds, smallest first.
const TICK_STEPS: [f64; 22] = [
    1.0,
    2.0,
    5.0,
    10.0,
    15.0,
    30.0,
    60.0,
    120.0,
    300.0,
    600.0,
    900.0,
    1200.0,
    1800.0,
    3600.0,
    7200.0,
    10_800.0,
    21_600.0,
    43_200.0,
    86_400.0,
    172_800.0,
    604_800.0,
    2_592_000.0,
];

/// `seconds` in the unit that suits ticks `step` seconds apart: seconds
/// under a minute, minutes under an hour, hours under a day, then days
/// (`0 min`, `10 min`, `20 min`).
fn tick_label(seconds: f64, step: f64) -> String {
    let (unit, name) = if step < 60.0 {
        (1.0, "s")
    } else if step < 3600.0 {
        (60.0, "min")
    } else if step < 86_400.0 {
        (3600.0, "h")
    } else {
        (86_400.0, "d")
    };
    format!("{} {name}", (seconds / unit).round())
}

/// The ticks of a time axis `total_seconds` long drawn `width_px` wide:
/// the smallest round interval whose labels, `char_px` per character
/// and at least `gap_px` apart, do not overlap. At least the start is
/// labelled; the end is labelled when it falls on a tick.
pub fn time_ticks(total_seconds: f64, width_px: f64, char_px: f64, gap_px: f64) -> Vec<TimeTick> {
    if !(total_seconds.is_finite() && total_seconds > 0.0 && width_px.is_finite() && width_px > 0.0)
    {
        return Vec::new();
    }
    let layout = |step: f64| -> Vec<TimeTick> {
        let count = (total_seconds / step + 1e-9).floor() as usize;
        (0..=count)
            .map(|i| {
                let seconds = i as f64 * step;
                let at = (seconds / total_seconds * 100.0).min(100.0);
                let align = if i == 0 {
                    TickAlign::Start
                } else if at >= 100.0 - 1e-9 {
                    TickAlign::End
                } else {
                    TickAlign::Middle
                };
                TimeTick {
                    seconds,
                    label: tick_label(seconds, step),
                    at,
                    align,
                }
            })
            .collect()
    };
    let fits = |ticks: &[TimeTick]| {
        let spans: Vec<(f64, f64)> = ticks
            .iter()
            .map(|t| tick_span(t, width_px, char_px))
            .collect();
        spans.iter().all(|s| s.0 >= -0.5 && s.1 <= width_px + 0.5)
            && spans.windows(2).all(|w| w[1].0 - w[0].1 >= gap_px)
    };
    for step in TICK_STEPS {
        if step > total_seconds {
            break;
        }
        let ticks = layout(step);
        if fits(&ticks) {
            return ticks;
        }
    }
    // Even the widest interval is too tight: the start alone.
    layout(f64::INFINITY).into_iter().take(1).collect()
}

/// Where a tick's label lies, in pixels from the map's left edge, for a
/// map `width_px` wide and `char_px` per character.
pub fn tick_span(tick: &TimeTick, width_px: f64, char_px: f64) -> (f64, f64) {
    let x = tick.at / 100.0 * width_px;
    let w = tick.label.chars().count() as f64 * char_px;
    match tick.align {
        TickAlign::Start => (x, x + w),
        TickAlign::Middle => (x - w / 2.0, x + w / 2.0),
        TickAlign::End => (x - w, x),
    }
}

/// The data-table alternative: the map's numbers averaged over blocks of
/// key buckets and columns, so a screen reader can go through them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataTable {
    /// What the cells are.
    pub caption: String,
    /// Column headers (time ranges).
    pub columns: Vec<String>,
    /// Rows: the key range and its values.
    pub rows: Vec<(String, Vec<String>)>,
}

/// At most `max_rows x max_columns` averages of the simulated part of
/// `map`.
pub fn data_table(map: &MapData, max_rows: usize, max_columns: usize) -> DataTable {
    let rows = map.rows();
    let cols = map.time_filled;
    let row_blocks = rows.min(max_rows.max(1));
    let col_blocks = cols.min(max_columns.max(1));
    let edges = |n: usize, blocks: usize| -> Vec<usize> {
        (0..=blocks).map(|i| i * n / blocks.max(1)).collect()
    };
    let re = edges(rows, row_blocks);
    let ce = edges(cols, col_blocks);
    let columns = ce
        .windows(2)
        .map(|w| {
            let (a, b) = (w[0], w[1]);
            let (from, to) = (a as f64 * map.bucket_seconds, b as f64 * map.bucket_seconds);
            match map.origin_micros {
                Some(_) => time_span(map.origin_micros, from, to),
                None => format!("{} to {}", human_seconds(from), human_seconds(to)),
            }
        })
        .collect();
    let table_rows = re
        .windows(2)
        .map(|w| {
            let (a, b) = (w[0], w[1]);
            let start = map.keys.get(a).map(|k| k.start.clone()).unwrap_or_default();
            let end = b
                .checked_sub(1)
                .and_then(|l| map.keys.get(l))
                .and_then(|k| k.end.clone());
            let mut label = format!(
                "{} to {}",
                if start.is_empty() {
                    "start of table".to_string()
                } else {
                    start
                },
                end.unwrap_or_else(|| "end of table".into())
            );
            // A real table's rows name their tablets, nodes and rows
            // stored (a simulation's tablets change over the run: its
            // cells name them, one time bucket at a time).
            if let Some(place) = (!map.stored_rows.is_empty())
                .then(|| range_place(map, a, b, None))
                .flatten()
            {
                label = format!("{label} ({place})");
            }
            let cells = ce
                .windows(2)
                .map(|cw| {
                    let (c0, c1) = (cw[0], cw[1]);
                    let mut sum = 0.0f64;
                    for r in a..b {
                        for c in c0..c1 {
                            sum += f64::from(map.value(r, c));
                        }
                    }
                    let n = ((b - a) * (c1 - c0)).max(1) as f64;
                    format_value((sum / n) as f32, map.metric)
                })
                .collect();
            (label, cells)
        })
        .collect();
    DataTable {
        caption: format!(
            "{} ({}), averaged over blocks of the Key Visualizer's {} key buckets and {} {} time buckets",
            metric_label(map.metric),
            map.unit,
            rows,
            cols,
            if map.origin_micros.is_some() {
                "recorded"
            } else {
                "simulated"
            }
        ),
        columns,
        rows: table_rows,
    }
}

/// The fine-bucket range of map rows `a..=b` (either order).
pub fn zoom_to_rows(map: &MapData, a: usize, b: usize) -> Option<[u32; 2]> {
    let (a, b) = (a.min(b), a.max(b));
    let lo = map.keys.get(a)?.fine[0];
    let hi = map.keys.get(b.min(map.rows().saturating_sub(1)))?.fine[1];
    (hi > lo).then_some([lo, hi])
}

/// The middle half of what is shown (never narrower than 2 fine
/// buckets).
pub fn zoom_in(map: &MapData) -> Option<[u32; 2]> {
    let [lo, hi] = map.range;
    let span = hi - lo;
    if span < 4 {
        return None;
    }
    let quarter = span / 4;
    Some([lo + quarter, hi - quarter])
}

/// Twice what is shown, around the same middle (`None`: everything).
pub fn zoom_out(map: &MapData) -> Option<[u32; 2]> {
    let [lo, hi] = map.range;
    let half = (hi - lo).max(1) / 2 + 1;
    clamp_zoom(
        Some([lo.saturating_sub(half), hi.saturating_add(half)]),
        map.fine_total,
    )
}

/// A finding as a banner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Banner {
    /// `info`, `warning` or `critical`.
    pub severity: &'static str,
    /// Names the pattern (`Hotspot: sequential writes`).
    pub title: String,
    /// Where and when.
    pub place: String,
    /// What was seen.
    pub evidence: String,
    /// What to do.
    pub remedy: String,
}

/// A pattern's name for people.
pub fn pattern_title(p: Pattern) -> &'static str {
    match p {
        Pattern::SequentialWrites => "Hotspot: sequential writes",
        Pattern::HotKeyRange => "Hotspot: hot key range",
        Pattern::HotRow => "Hotspot: hot row",
        Pattern::Periodic => "Periodic bursts",
        Pattern::TimeEvent => "One-off burst across the key space",
        Pattern::Even => "Even load",
        Pattern::LargeRows => "Large rows",
        Pattern::FullScans => "Full table scans",
    }
}

/// The findings as banners, most urgent first; times on the instance
/// clock when `origin_micros` (the first column's time) is given, else
/// into the run.
pub fn banners(diagnostics: &[Diagnostic], origin_micros: Option<i64>) -> Vec<Banner> {
    let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
    sorted.sort_by_key(|d| std::cmp::Reverse(d.severity));
    sorted
        .into_iter()
        .map(|d| Banner {
            severity: match d.severity {
                Severity::Info => "info",
                Severity::Warning => "warning",
                Severity::Critical => "critical",
            },
            title: pattern_title(d.pattern).to_string(),
            place: format!(
                "keys {} to {}, {}",
                if d.key_start.is_empty() {
                    "start of table"
                } else {
                    &d.key_start
                },
                d.key_end.as_deref().unwrap_or("end of table"),
                time_span(origin_micros, d.time_start_seconds, d.time_end_seconds)
            ),
            evidence: d.evidence.clone(),
            remedy: d.remedy.clone(),
        })
        .collect()
}

/// The folded findings in one line: the most severe one's title, and
/// how many others there are (`Hotspot: sequential writes, and 2 more
/// findings`).
pub fn findings_summary(banners: &[Banner]) -> Option<String> {
    let first = banners.first()?;
    Some(match banners.len() {
        1 => first.title.clone(),
        2 => format!("{}, and 1 more finding", first.title),
        n => format!("{}, and {} more findings", first.title, n - 1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(name: &str) -> Simulation {
        let text = tabletop_core::lesson::scenario_files()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .unwrap();
        Simulation::from_toml(text).unwrap()
    }

    fn ran(name: &str) -> Simulation {
        let mut s = sim(name);
        s.run_to_end();
        s
    }

    #[test]
    fn the_map_covers_the_run_and_fills_as_it_goes() {
        let mut s = sim("mobile_timestamp_first.toml");
        let settings = KeyVizSettings::default();
        let empty = build_map(&s, &settings);
        assert_eq!(empty.time_filled, 0);
        assert_eq!(empty.time_total, 300);
        s.step(tabletop_core::sim::Step::TimeBuckets(30));
        let map = build_map(&s, &settings);
        assert_eq!(map.time_filled, 30);
        assert!(
            map.rows() > 100 && map.rows() <= KEY_BUCKETS,
            "{}",
            map.rows()
        );
        assert_eq!(map.values.len(), map.rows() * 30);
        assert!(map.max > 0.0);
        assert!(!map.labels.is_empty());
        assert!(!map.zoomed());
        // Timestamp first: each new key sorts after the last, so the hot
        // band moves down the key space as time goes on (a diagonal).
        let hottest = |c: usize| {
            (0..map.rows())
                .max_by(|&a, &b| map.value(a, c).total_cmp(&map.value(b, c)))
                .unwrap()
        };
        assert!(hottest(2) < hottest(15) && hottest(15) < hottest(28));
    }

    #[test]
    fn painting_fills_simulated_columns_and_leaves_the_rest_clear() {
        let mut s = sim("mobile_device_first.toml");
        s.step(tabletop_core::sim::Step::TimeBuckets(150));
        let map = build_map(&s, &KeyVizSettings::default());
        let mut painter = Painter::default();
        let px = painter.paint(&map, ColorScale::Relative, 200, 100).to_vec();
        assert_eq!(px.len(), 200 * 100 * 4);
        // The left half is simulated (opaque), the right half not yet.
        assert_eq!(px[(50 * 200 + 10) * 4 + 3], 255);
        assert_eq!(px[(50 * 200 + 190) * 4 + 3], 0);
        // Same buffer, no new allocation for the same size.
        let ptr = painter.pixels.as_ptr();
        painter.paint(&map, ColorScale::Absolute, 200, 100);
        assert_eq!(painter.pixels.as_ptr(), ptr);
        // The absolute scale is darker for a cluster that is not saturated.
        let bright = |p: &[u8]| p.chunks(4).map(|c| u32::from(c[1])).sum::<u32>();
        let absolute = painter.pixels.clone();
        assert_ne!(bright(&absolute), bright(&px));
    }

    #[test]
    fn repainting_reuses_one_buffer_and_fills_every_pixel() {
        // Speed is measured in the browser (tests/e2e/perf.mjs); here the
        // property that keeps repaints cheap: the pixel buffer is allocated
        // once and reused, and a full map leaves no pixel unpainted.
        let s = ran("mobile_timestamp_first.toml");
        let map = build_map(&s, &KeyVizSettings::default());
        assert_eq!(map.time_filled, 300);
        let mut painter = Painter::default();
        let first = painter.paint(&map, ColorScale::Relative, 800, 600).as_ptr();
        for scale in [ColorScale::Absolute, ColorScale::Relative] {
            let pixels = painter.paint(&map, scale, 800, 600);
            assert_eq!(pixels.as_ptr(), first, "the buffer was reallocated");
            assert_eq!(pixels.len(), 800 * 600 * 4);
            assert!(pixels.chunks_exact(4).all(|p| p[3] == 255));
        }
    }

    #[test]
    fn hovering_names_the_key_range_time_and_value() {
        let s = ran("mobile_timestamp_first.toml");
        let map = build_map(&s, &KeyVizSettings::default());
        assert_eq!(hit(&map, 300.0, 200.0, -1.0, 5.0), None);
        assert_eq!(hit(&map, 300.0, 200.0, 0.0, 0.0), Some((0, 0)));
        let (row, col) = hit(&map, 300.0, 200.0, 299.9, 199.9).unwrap();
        assert_eq!((row, col), (map.rows() - 1, 299));
        let info = cell_info(&map, row, col).unwrap();
        assert_eq!(info.key_end, None);
        assert!(info.time.contains("into the run"), "{}", info.time);
        assert!(info.value.starts_with("Operations: "), "{}", info.value);
        assert!(info.value.ends_with("ops/s"), "{}", info.value);
        // The cell names the tablet and node that served it (see the
        // next test).
        let place = info.place.unwrap();
        assert!(place.starts_with("tablet #"), "{place}");
        assert!(place.contains(" on node"), "{place}");
        assert!(
            !place.contains("stored"),
            "a simulation stores no real rows"
        );
        assert!(cell_info(&map, map.rows(), 0).is_none());
    }

    #[test]
    fn a_simulation_cell_names_the_tablet_and_node_of_its_own_time_bucket() {
        let s = ran("mobile_timestamp_first.toml");
        let map = build_map(&s, &KeyVizSettings::default());
        let bs = s.recorder().bucket_seconds();
        // The last key bucket, where timestamp-first writes land: its
        // tablet splits and moves as the run goes.
        let served = s.served();
        let row = map.rows() - 1;
        let key = &map.keys[row];
        let at = |c: u32| {
            let mut v: Vec<(u64, u32)> = served
                .iter()
                .filter(|x| {
                    let [c0, c1] = x.columns(bs);
                    (c0..c1).contains(&c) && x.fine[0] < key.fine[1] && key.fine[0] < x.fine[1]
                })
                .map(|x| (x.tablet, x.node))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        for c in [0u32, 150, 299] {
            let place = cell_info(&map, row, c as usize).unwrap().place.unwrap();
            let expect = at(c);
            assert!(!expect.is_empty());
            for (id, node) in &expect {
                assert!(place.contains(&format!("#{id}")), "column {c}: {place}");
                assert!(place.contains(&node.to_string()), "column {c}: {place}");
            }
        }
        assert_ne!(at(0), at(299), "the last keys changed hands over the run");
        // The data table does not name a simulation's tablets (they
        // change over the run).
        let table = data_table(&map, 2, 2);
        assert!(!table.rows[0].0.contains(" on node"), "{}", table.rows[0].0);
    }

    #[test]
    fn zooming_narrows_the_key_range_and_resets() {
        let s = ran("mobile_device_first.toml");
        let mut settings = KeyVizSettings::default();
        let map = build_map(&s, &settings);
        let zin = zoom_in(&map).unwrap();
        settings.zoom = Some(zin);
        let zoomed = build_map(&s, &settings);
        assert!(zoomed.zoomed());
        assert_eq!(zoomed.range, zin);
        assert_eq!(zoomed.keys[0].fine[0], zin[0]);
        assert_eq!(zoomed.keys.last().unwrap().fine[1], zin[1]);
        assert_eq!(zoomed.values.len(), zoomed.rows() * zoomed.time_filled);
        assert_eq!(zoomed.reference, map.reference);
        let rows = zoom_to_rows(&zoomed, 10, 3).unwrap();
        assert!(rows[0] >= zin[0] && rows[1] <= zin[1] && rows[0] < rows[1]);
        // Zooming out far enough is the whole key space again.
        let mut out = zoom_out(&zoomed);
        for _ in 0..20 {
            settings.zoom = out;
            out = zoom_out(&build_map(&s, &settings));
        }
        assert_eq!(out, None);
        assert_eq!(clamp_zoom(Some([5, 5]), 100), None);
        assert_eq!(clamp_zoom(Some([0, 100]), 100), None);
        assert_eq!(clamp_zoom(Some([90, 900]), 100), Some([90, 100]));
    }

    #[test]
    fn every_metric_builds_and_has_a_legend() {
        let s = ran("filtered_full_scan.toml");
        for metric in Metric::ALL {
            let settings = KeyVizSettings {
                metric,
                ..KeyVizSettings::default()
            };
            let map = build_map(&s, &settings);
            assert_eq!(map.metric, metric);
            for scale in [ColorScale::Relative, ColorScale::Absolute] {
                let l = legend(&map, scale);
                assert!(!l.high.is_empty() && !l.caption.is_empty());
            }
        }
    }

    #[test]
    fn the_data_table_averages_the_same_numbers() {
        let s = ran("mobile_timestamp_first.toml");
        let map = build_map(&s, &KeyVizSettings::default());
        let table = data_table(&map, 10, 6);
        assert_eq!(table.rows.len(), 10);
        assert_eq!(table.columns.len(), 6);
        assert!(table.rows.iter().all(|(_, c)| c.len() == 6));
        assert!(table.rows[0].0.starts_with("start of table to "));
        assert!(table.rows[9].0.ends_with(" to end of table"));
        // One block over everything is the mean of every cell.
        let one = data_table(&map, 1, 1);
        let mean = map.values.iter().map(|v| f64::from(*v)).sum::<f64>() / map.values.len() as f64;
        assert_eq!(one.rows[0].1[0], format_value(mean as f32, Metric::Ops));
    }

    #[test]
    fn labels_follow_the_key_segments_and_skip_tiny_ones() {
        let s = ran("mobile_device_first.toml");
        let map = build_map(&s, &KeyVizSettings::default());
        let all = label_boxes(&map, 10_000.0, 0.0, 3);
        let readable = label_boxes(&map, 300.0, 14.0, 3);
        assert!(
            label_boxes(&map, 300.0, 14.0, 1)
                .iter()
                .all(|b| b.depth == 0)
        );
        assert_eq!(label_widths(&all, 12)[0], 6, "tablet");
        assert!(!readable.is_empty() && readable.len() < all.len());
        let top: Vec<&str> = all
            .iter()
            .filter(|b| b.depth == 0)
            .map(|b| b.text.as_str())
            .collect();
        assert_eq!(top, ["phone", "tablet"]);
        // Shown labels of a depth never overlap, and fit the map.
        for depth in 0..3 {
            let tops: Vec<f64> = readable
                .iter()
                .filter(|b| b.depth == depth)
                .map(|b| b.top)
                .collect();
            assert!(
                tops.windows(2)
                    .all(|w| (w[1] - w[0]) / 100.0 * 300.0 >= 14.0 - 1e-9),
                "{tops:?}"
            );
        }
        assert!(
            readable
                .iter()
                .all(|b| b.top / 100.0 * 300.0 + 14.0 <= 300.5)
        );
        // A timestamp first labels every bucket differently: ticks every
        // few buckets instead.
        let ts = build_map(
            &ran("mobile_timestamp_first.toml"),
            &KeyVizSettings::default(),
        );
        let ticks = label_boxes(&ts, 340.0, 14.0, 2);
        assert_eq!(label_widths(&ticks, 12), [12, 6], "timestamps are cut");
        let zero = ticks.iter().filter(|b| b.depth == 0).count();
        assert!((15..=25).contains(&zero), "{zero} ticks");
    }

    #[test]
    fn the_hotspot_is_named_with_its_remedy() {
        let s = ran("mobile_timestamp_first.toml");
        let b = banners(&s.diagnostics(), None);
        assert_eq!(b[0].title, "Hotspot: sequential writes");
        assert_eq!(b[0].severity, "critical");
        assert!(b[0].remedy.contains("row key"), "{}", b[0].remedy);
        assert!(b[0].place.contains("into the run"));
    }

    #[test]
    fn the_time_axis_has_round_ticks_that_never_overlap() {
        // An hour on a map 500 px wide: every ten minutes.
        let ticks = time_ticks(3600.0, 500.0, 6.5, 8.0);
        let labels: Vec<&str> = ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "0 min", "10 min", "20 min", "30 min", "40 min", "50 min", "60 min"
            ]
        );
        assert_eq!(ticks[0].align, TickAlign::Start);
        assert_eq!(ticks[3].align, TickAlign::Middle);
        assert!((ticks[3].at - 50.0).abs() < 1e-9);
        assert_eq!(ticks[6].align, TickAlign::End);
        // Wider: closer ticks; half an hour: minutes still.
        assert_eq!(time_ticks(3600.0, 1200.0, 6.5, 8.0)[1].label, "5 min");
        assert_eq!(time_ticks(1800.0, 500.0, 6.5, 8.0)[1].label, "5 min");
        // Short and long runs get seconds and hours.
        assert_eq!(time_ticks(60.0, 500.0, 6.5, 8.0)[1].label, "10 s");
        let day = time_ticks(86_400.0, 500.0, 6.5, 8.0);
        assert_eq!(day[1].label, "3 h");
        assert_eq!(day.last().unwrap().label, "24 h");
        // A run that does not end on a tick: the last tick is inside.
        let odd = time_ticks(3000.0, 500.0, 6.5, 8.0);
        assert!(odd.iter().all(|t| t.seconds <= 3000.0));
        // At every width, labels stay apart and inside the map; at least
        // three fit from about 200 px.
        for total in [60.0, 1800.0, 3600.0, 5400.0, 86_400.0] {
            for width in (20..2000).step_by(7).map(f64::from) {
                let ticks = time_ticks(total, width, 6.5, 8.0);
                assert!(!ticks.is_empty(), "{total} s at {width} px");
                let spans: Vec<(f64, f64)> =
                    ticks.iter().map(|t| tick_span(t, width, 6.5)).collect();
                for w in spans.windows(2) {
                    assert!(w[1].0 - w[0].1 >= 8.0, "{total} s at {width} px: {ticks:?}");
                }
                if ticks.len() > 1 {
                    assert!(spans.iter().all(|s| s.0 >= -0.5 && s.1 <= width + 0.5));
                }
                if width >= 200.0 {
                    assert!(ticks.len() >= 3, "{total} s at {width} px: {ticks:?}");
                }
            }
        }
        assert!(time_ticks(0.0, 500.0, 6.5, 8.0).is_empty());
        assert!(time_ticks(3600.0, 0.0, 6.5, 8.0).is_empty());
        assert!(time_ticks(f64::NAN, 500.0, 6.5, 8.0).is_empty());
    }

    #[test]
    fn folded_findings_name_the_most_severe_and_count_the_rest() {
        assert_eq!(findings_summary(&[]), None);
        let banner = |title: &str| Banner {
            severity: "warning",
            title: title.to_string(),
            place: String::new(),
            evidence: String::new(),
            remedy: String::new(),
        };
        let one = [banner("Hotspot: hot row")];
        assert_eq!(findings_summary(&one).unwrap(), "Hotspot: hot row");
        let three = [banner("A"), banner("B"), banner("C")];
        assert_eq!(findings_summary(&three).unwrap(), "A, and 2 more findings");
        assert_eq!(
            findings_summary(&three[..2]).unwrap(),
            "A, and 1 more finding"
        );
        // From a run: the critical hotspot comes first.
        let s = ran("mobile_timestamp_first.toml");
        let summary = findings_summary(&banners(&s.diagnostics(), None)).unwrap();
        assert!(
            summary.starts_with("Hotspot: sequential writes"),
            "{summary}"
        );
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(short_number(12_345.0), "12.3 k");
        assert_eq!(short_number(999.0), "999");
        assert_eq!(short_number(2.5), "2.50");
        assert_eq!(short_number(3.2e9), "3.20 G");
        assert_eq!(format_value(2048.0, Metric::DataStored), "2 KiB");
        assert_eq!(format_value(1536.0, Metric::WriteBytes), "1.5 KiB/s");
        assert_eq!(format_value(f32::NAN, Metric::Ops), "0 ops/s");
    }
}
