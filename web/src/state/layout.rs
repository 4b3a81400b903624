//! The screen's layout: which panels are shown and how big the resizable
//! ones are. Plain data, saved in share links and autosave.

use serde::{Deserialize, Serialize};

/// A panel of the playground.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PanelId {
    /// Tables, families, GC rules (left).
    Schema,
    /// The key space as tablets (middle, above the rows).
    Tablets,
    /// The rows in key order (middle).
    Rows,
    /// The Key Visualizer heatmap (right).
    KeyVisualizer,
    /// cbt and JSON (bottom).
    Console,
    /// The lessons (a tab of the left column, beside Schema).
    Lessons,
}

impl PanelId {
    /// Every panel, in the order they are laid out.
    pub const ALL: [PanelId; 6] = [
        PanelId::Schema,
        PanelId::Tablets,
        PanelId::Rows,
        PanelId::KeyVisualizer,
        PanelId::Console,
        PanelId::Lessons,
    ];

    /// The panel's accessible name (and title).
    pub fn name(self) -> &'static str {
        match self {
            PanelId::Schema => "Schema",
            PanelId::Tablets => "Tablets",
            PanelId::Rows => "Rows",
            PanelId::KeyVisualizer => "Key Visualizer",
            PanelId::Console => "Console",
            PanelId::Lessons => "Lessons",
        }
    }

    /// The panel's name in `?panels=` lists.
    pub fn slug(self) -> &'static str {
        match self {
            PanelId::Schema => "schema",
            PanelId::Tablets => "tablets",
            PanelId::Rows => "rows",
            PanelId::KeyVisualizer => "keyviz",
            PanelId::Console => "console",
            PanelId::Lessons => "lessons",
        }
    }

    /// The panel named `slug` (`keyvisualizer` and `key-visualizer` are
    /// accepted too).
    pub fn from_slug(slug: &str) -> Option<PanelId> {
        let slug = slug.trim().to_ascii_lowercase();
        match slug.as_str() {
            "keyvisualizer" | "key-visualizer" | "heatmap" => Some(PanelId::KeyVisualizer),
            _ => PanelId::ALL.into_iter().find(|p| p.slug() == slug),
        }
    }
}

/// Which panels are on screen. The full app shows all; an embed shows the
/// ones its `?panels=` list names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Panels {
    shown: [bool; PanelId::ALL.len()],
}

impl Default for Panels {
    fn default() -> Self {
        Panels {
            shown: [true; PanelId::ALL.len()],
        }
    }
}

impl Panels {
    /// The panels named in a comma-separated list (`rows,console`);
    /// unknown names are ignored, and a list naming none shows all.
    pub fn parse(list: &str) -> Panels {
        let mut shown = [false; PanelId::ALL.len()];
        for slug in list.split(',') {
            if let Some(panel) = PanelId::from_slug(slug) {
                shown[panel as usize] = true;
            }
        }
        if shown.iter().any(|s| *s) {
            Panels { shown }
        } else {
            Panels::default()
        }
    }

    /// Whether `panel` is shown.
    pub fn has(self, panel: PanelId) -> bool {
        self.shown[panel as usize]
    }

    /// Whether every panel is shown.
    pub fn all(self) -> bool {
        self.shown.iter().all(|s| *s)
    }

    /// What is on screen while `panel` is maximized: that panel alone,
    /// or the whole left column for Schema and Lessons (they share it as
    /// tabs). A panel that is not shown maximizes nothing.
    pub fn focused(self, panel: PanelId) -> Panels {
        if !self.has(panel) {
            return self;
        }
        let mut shown = [false; PanelId::ALL.len()];
        shown[panel as usize] = true;
        if matches!(panel, PanelId::Schema | PanelId::Lessons) {
            for p in [PanelId::Schema, PanelId::Lessons] {
                shown[p as usize] = self.has(p);
            }
        }
        Panels { shown }
    }

    /// The shown panels as a `?panels=` list.
    pub fn to_list(self) -> String {
        PanelId::ALL
            .into_iter()
            .filter(|p| self.has(*p))
            .map(PanelId::slug)
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// A drag handle between panels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Splitter {
    /// Between the Schema panel and the middle.
    Left,
    /// Between the middle and the Key Visualizer.
    Right,
    /// Above the Console.
    Bottom,
    /// Between the Tablets bar and the Rows.
    Tablets,
}

impl Splitter {
    /// The size a handle resizes, smallest and largest, in CSS pixels.
    pub fn range(self) -> (u32, u32) {
        match self {
            Splitter::Left => (180, 720),
            // The Key Visualizer may take more: it is the one panel that
            // gets better the bigger it is.
            Splitter::Right => (180, 960),
            Splitter::Bottom => (120, 900),
            Splitter::Tablets => (96, 600),
        }
    }

    /// Whether the handle moves left-right (`true`) or up-down.
    pub fn is_vertical(self) -> bool {
        matches!(self, Splitter::Left | Splitter::Right)
    }

    /// The handle's accessible name.
    pub fn label(self) -> &'static str {
        match self {
            Splitter::Left => "Resize the Schema panel",
            Splitter::Right => "Resize the Key Visualizer panel",
            Splitter::Bottom => "Resize the Console panel",
            Splitter::Tablets => "Resize the Tablets panel",
        }
    }

    /// Whether moving the pointer right (or down) grows the panel.
    pub fn grows_forward(self) -> bool {
        matches!(self, Splitter::Left | Splitter::Tablets)
    }
}

/// Sizes of the resizable panels, in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Layout {
    /// Width of the Schema panel.
    pub left: u32,
    /// Width of the Key Visualizer panel.
    pub right: u32,
    /// Height of the Console.
    pub bottom: u32,
    /// Height of the Tablets bar.
    pub tablets: u32,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            left: 280,
            // The Key Visualizer is the hero: wide enough for a heatmap of
            // about 500 px beside its key labels (on a narrower window the
            // grid gives it less, so the rows stay readable).
            right: 680,
            // Enough for a read's output and its report; the panels above
            // get the rest (the Key Visualizer runs the full height).
            bottom: 230,
            tablets: 170,
        }
    }
}

/// Side widths that earlier versions of the app used as defaults (links
/// and autosaves made then still carry them).
const EARLIER_DEFAULT_LEFT: [u32; 1] = [300];
const EARLIER_DEFAULT_RIGHT: [u32; 2] = [260, 420];

impl Layout {
    /// The size `splitter` controls.
    pub fn size(&self, splitter: Splitter) -> u32 {
        match splitter {
            Splitter::Left => self.left,
            Splitter::Right => self.right,
            Splitter::Bottom => self.bottom,
            Splitter::Tablets => self.tablets,
        }
    }

    /// Sets the size `splitter` controls, kept within its range.
    pub fn resize(&mut self, splitter: Splitter, px: i64) {
        let (min, max) = splitter.range();
        let px = u32::try_from(px.clamp(i64::from(min), i64::from(max))).unwrap_or(min);
        match splitter {
            Splitter::Left => self.left = px,
            Splitter::Right => self.right = px,
            Splitter::Bottom => self.bottom = px,
            Splitter::Tablets => self.tablets = px,
        }
    }

    /// A layout read from a link or an autosave made by an earlier
    /// version: side widths that were that version's defaults (nobody
    /// dragged them) become today's defaults, so an old link gets the big
    /// Key Visualizer too; sizes someone chose are kept.
    #[must_use]
    pub fn upgraded(mut self) -> Layout {
        let now = Layout::default();
        if EARLIER_DEFAULT_LEFT.contains(&self.left) {
            self.left = now.left;
        }
        if EARLIER_DEFAULT_RIGHT.contains(&self.right) {
            self.right = now.right;
        }
        self
    }

    /// The layout with every size within range (for layouts read from a
    /// link).
    #[must_use]
    pub fn clamped(mut self) -> Layout {
        for s in [
            Splitter::Left,
            Splitter::Right,
            Splitter::Bottom,
            Splitter::Tablets,
        ] {
            self.resize(s, i64::from(self.size(s)));
        }
        self
    }
}

/// Applies a layout action: a resize, back to the defaults, or a panel
/// given the whole workspace (only one the page shows).
pub(crate) fn reduce(
    layout: &mut Layout,
    maximized: &mut Option<PanelId>,
    panels: Panels,
    action: super::Action,
) {
    use super::Action;
    match action {
        Action::Resize(splitter, px) => layout.resize(splitter, px),
        Action::ResetLayout => {
            *layout = Layout::default();
            *maximized = None;
        }
        Action::Maximize(panel) => *maximized = panel.filter(|p| panels.has(*p)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panel_lists_parse_leniently() {
        let p = Panels::parse("rows, Console,nope");
        assert!(p.has(PanelId::Rows) && p.has(PanelId::Console));
        assert!(!p.has(PanelId::Schema) && !p.has(PanelId::KeyVisualizer));
        assert_eq!(p.to_list(), "rows,console");
        assert!(!p.all());
        assert!(Panels::parse("").all());
        assert!(Panels::parse("x,y").all());
        assert!(Panels::parse("key-visualizer").has(PanelId::KeyVisualizer));
        for panel in PanelId::ALL {
            assert_eq!(PanelId::from_slug(panel.slug()), Some(panel));
        }
    }

    #[test]
    fn a_maximized_panel_is_shown_alone() {
        let all = Panels::default();
        assert_eq!(all.focused(PanelId::KeyVisualizer).to_list(), "keyviz");
        assert_eq!(all.focused(PanelId::Rows).to_list(), "rows");
        // Schema and Lessons share the left column, so both stay as tabs.
        assert_eq!(all.focused(PanelId::Lessons).to_list(), "schema,lessons");
        let embed = Panels::parse("schema,console");
        assert_eq!(embed.focused(PanelId::Schema).to_list(), "schema");
        // A panel the page does not show cannot take it over.
        assert_eq!(embed.focused(PanelId::KeyVisualizer), embed);
    }

    #[test]
    fn sizes_stay_in_range() {
        let mut layout = Layout::default();
        layout.resize(Splitter::Left, 10);
        assert_eq!(layout.left, 180);
        layout.resize(Splitter::Bottom, 5000);
        assert_eq!(layout.bottom, 900);
        layout.resize(Splitter::Tablets, 200);
        assert_eq!(layout.size(Splitter::Tablets), 200);
        let wild = Layout {
            left: 0,
            right: 99_999,
            bottom: 1,
            tablets: 3,
        };
        assert_eq!(
            wild.clamped(),
            Layout {
                left: 180,
                right: 960,
                bottom: 120,
                tablets: 96
            }
        );
    }

    #[test]
    fn earlier_default_widths_become_todays_and_chosen_ones_stay() {
        // The defaults of two earlier versions, as their links carry them.
        for right in [260, 420] {
            let old = Layout {
                left: 300,
                right,
                bottom: 270,
                tablets: 150,
            };
            let now = old.upgraded();
            assert_eq!(now.left, Layout::default().left);
            assert_eq!(now.right, Layout::default().right);
            // Heights were never a side column's: kept.
            assert_eq!((now.bottom, now.tablets), (270, 150));
        }
        // Dragged widths are the person's choice.
        let dragged = Layout {
            left: 333,
            right: 517,
            ..Layout::default()
        };
        assert_eq!(dragged.upgraded(), dragged);
        assert_eq!(Layout::default().upgraded(), Layout::default());
    }
}
