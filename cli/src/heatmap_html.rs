//! Pieces of the self-contained HTML pages `keyviz --out` and `sim --vs
//! --out` write: a heatmap as an inline PNG, and its key axis labelled by
//! a hierarchy of key prefixes (`phone` > `phone#4c41` > ...).

use std::fmt::Write as _;

use tabletop_core::keyviz::{ColorScale, Heatmap, PrefixTree};

/// Levels of prefix labels beside a heatmap.
pub const LABEL_DEPTH: usize = 2;

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The heatmap as a PNG: time left to right, the start of the key space
/// at the top; `enlarge` draws each cell as a block (for a file to open
/// on its own), else one pixel per cell (a page scales it).
pub fn heatmap_png(h: &Heatmap, enlarge: bool) -> Vec<u8> {
    let (w, rows) = (h.time_buckets.max(1) as u32, h.key_buckets.max(1) as u32);
    let (sx, sy) = if enlarge {
        ((720 / w).clamp(1, 24), (480 / rows).clamp(1, 24))
    } else {
        (1, 1)
    };
    crate::png::encode_rgba(w, rows, &h.rgba(ColorScale::Relative), sx, sy)
}

/// An `<img>` of the heatmap, inline.
pub fn heatmap_img(h: &Heatmap, alt: &str) -> String {
    let png = tabletop_core::base64_text::encode(&heatmap_png(h, false));
    format!(
        "<img class=\"hm\" alt=\"{}\" src=\"data:image/png;base64,{png}\">",
        esc(alt)
    )
}

/// The key axis: one column per prefix level, each label placed over the
/// buckets it covers (labels too thin to read are left out; their
/// buckets keep their place). Hovering a label shows the whole prefix.
pub fn prefix_axis(tree: &PrefixTree, key_buckets: usize) -> String {
    let n = key_buckets.max(1) as f64;
    let mut out = String::from("<div class=\"axis\">");
    for depth in 0..LABEL_DEPTH as u8 {
        out.push_str("<div class=\"lvl\">");
        for node in tree.at_depth(depth) {
            let top = f64::from(node.first) / n * 100.0;
            let height = f64::from(node.last + 1 - node.first) / n * 100.0;
            if height < 2.5 || node.prefix.is_empty() {
                continue;
            }
            let _ = write!(
                out,
                "<div class=\"l\" style=\"top:{top:.2}%;height:{height:.2}%\" title=\"{}\">{}</div>",
                esc(&node.prefix),
                esc(&node.label)
            );
        }
        out.push_str("</div>");
    }
    out.push_str("</div>");
    out
}

/// The page's style sheet.
pub const STYLE: &str = "body{font:14px system-ui,sans-serif;background:#111;color:#ddd;margin:24px}\
.map{display:flex;gap:8px;align-items:flex-start}\
.axis{display:flex;gap:2px;height:480px;font:11px monospace}\
.lvl{position:relative;width:110px;height:480px}\
.l{position:absolute;right:0;left:0;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;\
border-top:1px solid #444;padding-left:2px}\
.hm{width:720px;height:480px;image-rendering:pixelated;background:#000}\
pre{white-space:pre-wrap;max-width:1100px}\
.pair{display:flex;gap:32px;flex-wrap:wrap}";

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_core::keyviz::PrefixNode;

    #[test]
    fn html_is_escaped() {
        assert_eq!(esc("<a&\"b\">"), "&lt;a&amp;&quot;b&quot;&gt;");
    }

    #[test]
    fn the_axis_places_each_level() {
        let node = |depth, label: &str, prefix: &str, first, last| PrefixNode {
            depth,
            label: label.into(),
            prefix: prefix.into(),
            first,
            last,
            parent: None,
        };
        let tree = PrefixTree {
            nodes: vec![
                node(0, "phone", "phone", 0, 74),
                node(0, "tablet", "tablet", 75, 99),
                node(1, "4c41", "phone#4c41", 0, 9),
                node(1, "x", "phone#x", 10, 10),
            ],
        };
        let html = prefix_axis(&tree, 100);
        assert!(
            html.contains("top:75.00%;height:25.00%\" title=\"tablet\">tablet<"),
            "{html}"
        );
        assert!(html.contains("title=\"phone#4c41\">4c41<"), "{html}");
        // One bucket of 100 is too thin for a label.
        assert!(!html.contains("phone#x"), "{html}");
    }
}
