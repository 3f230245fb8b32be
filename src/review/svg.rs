//! One warp's request drawn as SVG: the 32 lanes in a row above, the 32-byte sectors they touch
//! below (each split into element-sized cells), a line from each lane to its bytes, the bytes
//! used filled and those fetched but unused hatched. Untouched ranges between sectors are
//! left out and marked with a break.

use kernel_lint_analyzer::WarpSample;
use std::collections::BTreeSet;
use std::fmt::Write;

const SECTOR: i64 = 32;
const LANE: f64 = 22.0;
const MARGIN: f64 = 20.0;
const BREAK: f64 = 14.0;
/// At most this many sectors are drawn; a request touching more says so.
const MOST_SECTORS: usize = 64;
/// Colours the page's test looks for in the screenshot.
pub const USED: &str = "#2563eb";
const LANE_FILL: &str = "#dbeafe";

/// What one picture shows, for its caption.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Figures {
    /// Distinct sectors the request touches.
    pub sectors: usize,
    /// Distinct bytes the lanes use.
    pub useful_bytes: usize,
}

impl Figures {
    /// "4 sectors for 128 useful bytes: 100 % efficiency".
    pub fn caption(self) -> String {
        let fetched = self.sectors as f64 * SECTOR as f64;
        let efficiency = if fetched > 0.0 {
            self.useful_bytes as f64 / fetched
        } else {
            0.0
        };
        let noun = if self.sectors == 1 { "sector" } else { "sectors" };
        format!(
            "{} {noun} for {} useful bytes: {} efficiency",
            self.sectors,
            self.useful_bytes,
            super::diff::percent(efficiency)
        )
    }
}

/// The byte ranges `[start, end)` the active lanes use.
fn ranges(sample: &WarpSample) -> Vec<(i64, i64)> {
    let width = sample.bytes_per_lane.max(1) as i64;
    sample
        .lane_addresses
        .iter()
        .flatten()
        .map(|&a| (a, a.saturating_add(width)))
        .collect()
}

/// The sectors and useful bytes of a request.
pub fn figures(sample: &WarpSample) -> Figures {
    let mut bytes: BTreeSet<i64> = BTreeSet::new();
    let mut sectors: BTreeSet<i64> = BTreeSet::new();
    for (start, end) in ranges(sample) {
        // A lane moves at most 16 bytes: walking them is cheap.
        for b in start..end.min(start + 64) {
            bytes.insert(b);
            sectors.insert(b.div_euclid(SECTOR));
        }
    }
    Figures {
        sectors: sectors.len(),
        useful_bytes: bytes.len(),
    }
}

/// The picture of one request; `id` keeps its pattern's name unique on the page.
pub fn warp(sample: &WarpSample, id: &str) -> String {
    let spans = ranges(sample);
    let used: BTreeSet<i64> = spans.iter().flat_map(|&(s, e)| s..e.min(s + 64)).collect();
    let all: Vec<i64> = used
        .iter()
        .map(|b| b.div_euclid(SECTOR))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let shown = &all[..all.len().min(MOST_SECTORS)];
    let breaks = shown.windows(2).filter(|w| w[1] != w[0] + 1).count();
    let lanes_width = 32.0 * LANE;
    let sector_width = if shown.is_empty() {
        88.0
    } else {
        ((lanes_width - breaks as f64 * BREAK) / shown.len() as f64).clamp(16.0, 88.0)
    };
    let sectors_width = shown.len() as f64 * sector_width + breaks as f64 * BREAK;
    let width = (2.0 * MARGIN + lanes_width.max(sectors_width)).ceil();
    let height = 200.0;
    let (lane_y, sector_y, sector_h) = (24.0, 120.0, 28.0);
    // Where each shown sector starts.
    let mut xs = Vec::with_capacity(shown.len());
    let mut x = MARGIN;
    for (i, &s) in shown.iter().enumerate() {
        if i > 0 && s != shown[i - 1] + 1 {
            x += BREAK;
        }
        xs.push(x);
        x += sector_width;
    }
    let byte_x = |b: i64| -> Option<f64> {
        let s = b.div_euclid(SECTOR);
        let i = shown.iter().position(|&t| t == s)?;
        Some(xs[i] + (b.rem_euclid(SECTOR)) as f64 / SECTOR as f64 * sector_width)
    };
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" font-family="sans-serif" font-size="9">"##
    );
    let _ = write!(
        svg,
        r##"<defs><pattern id="{id}-unused" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#e5e7eb"/><line x1="0" y1="0" x2="0" y2="6" stroke="#9ca3af" stroke-width="2"/></pattern></defs>"##
    );
    let _ = write!(svg, r##"<text x="{MARGIN}" y="12" font-size="10">lanes</text>"##);
    let _ = write!(
        svg,
        r##"<text x="{MARGIN}" y="{}" font-size="10">32-byte sectors</text>"##,
        sector_y - 6.0
    );
    // Lines first, so that the boxes cover their ends.
    svg.push_str(r##"<g stroke="#64748b" stroke-width="0.8">"##);
    for (lane, address) in sample.lane_addresses.iter().enumerate() {
        let Some(address) = address else { continue };
        let Some(to) = byte_x(*address) else { continue };
        let from = MARGIN + lane as f64 * LANE + LANE / 2.0 - 1.0;
        let _ = write!(
            svg,
            r##"<line x1="{from:.1}" y1="{}" x2="{:.1}" y2="{sector_y}"/>"##,
            lane_y + 20.0,
            to + 1.0
        );
    }
    svg.push_str("</g>");
    for (lane, address) in sample.lane_addresses.iter().enumerate() {
        let x = MARGIN + lane as f64 * LANE;
        let (fill, dash) = match address {
            Some(_) => (LANE_FILL, ""),
            None => ("#ffffff", r#" stroke-dasharray="2 2""#),
        };
        let _ = write!(
            svg,
            r##"<rect x="{x}" y="{lane_y}" width="{}" height="20" fill="{fill}" stroke="#1e3a8a"{dash}/><text x="{}" y="{}" text-anchor="middle">{lane}</text>"##,
            LANE - 2.0,
            x + (LANE - 2.0) / 2.0,
            lane_y + 13.0
        );
    }
    let cell_bytes = match sample.bytes_per_lane {
        w @ (1 | 2 | 4 | 8 | 16 | 32) => w as i64,
        _ => 4,
    };
    let cell_width = sector_width * cell_bytes as f64 / SECTOR as f64;
    let mut dividers = String::new();
    for (i, &s) in shown.iter().enumerate() {
        // The whole sector is fetched: hatched, then the cells used filled over it.
        let _ = write!(
            svg,
            r##"<rect x="{:.1}" y="{sector_y}" width="{sector_width:.1}" height="{sector_h}" fill="url(#{id}-unused)"/>"##,
            xs[i]
        );
        let cells = SECTOR / cell_bytes;
        let is_used = |c: i64| {
            let first = s * SECTOR + c * cell_bytes;
            (first..first + cell_bytes).any(|b| used.contains(&b))
        };
        let mut c = 0;
        while c < cells {
            if !is_used(c) {
                c += 1;
                continue;
            }
            let run = (c..cells).take_while(|&d| is_used(d)).count() as i64;
            let _ = write!(
                svg,
                r##"<rect x="{:.1}" y="{sector_y}" width="{:.1}" height="{sector_h}" fill="{USED}"/>"##,
                xs[i] + c as f64 * cell_width,
                run as f64 * cell_width
            );
            c += run;
        }
        for c in 1..cells {
            let _ = write!(dividers, "M{:.1} {sector_y}v{sector_h}", xs[i] + c as f64 * cell_width);
        }
        let _ = write!(
            svg,
            r##"<rect x="{:.1}" y="{sector_y}" width="{sector_width:.1}" height="{sector_h}" fill="none" stroke="#111827"/>"##,
            xs[i]
        );
        if i > 0 && s != shown[i - 1] + 1 {
            // The untouched bytes between two sectors are left out.
            let mid = xs[i] - BREAK / 2.0;
            let _ = write!(
                svg,
                r##"<path d="M{:.1} {} l4 -6 M{:.1} {} l4 -6" stroke="#111827" stroke-width="1.2"/>"##,
                mid - 4.0,
                sector_y + sector_h / 2.0 + 3.0,
                mid,
                sector_y + sector_h / 2.0 + 3.0
            );
        }
    }
    if !dividers.is_empty() {
        let _ = write!(svg, r##"<path d="{dividers}" stroke="#ffffff" stroke-width="0.5"/>"##);
    }
    let figures = figures(sample);
    let mut caption = figures.caption();
    if all.len() > shown.len() {
        caption.push_str(&format!(" (the first {} sectors drawn)", shown.len()));
    }
    let _ = write!(
        svg,
        r##"<text x="{MARGIN}" y="{}" font-size="12">{}</text>"##,
        sector_y + sector_h + 30.0,
        super::markup::escape(&caption)
    );
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(stride: i64, width: u64) -> WarpSample {
        WarpSample {
            warp: 0,
            lane_addresses: (0..32).map(|l| Some(l * stride)).collect(),
            bytes_per_lane: width,
        }
    }

    #[test]
    fn captions_count_sectors_and_useful_bytes() {
        assert_eq!(
            figures(&sample(4, 4)).caption(),
            "4 sectors for 128 useful bytes: 100 % efficiency"
        );
        assert_eq!(
            figures(&sample(8, 4)).caption(),
            "8 sectors for 128 useful bytes: 50 % efficiency"
        );
        assert_eq!(
            figures(&sample(128, 4)).caption(),
            "32 sectors for 128 useful bytes: 12.5 % efficiency"
        );
    }

    #[test]
    fn gaps_get_a_break_mark_and_sizes_are_fixed() {
        let svg = warp(&sample(128, 4), "a");
        assert!(svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="#));
        // One break mark (two slashes) between each two of the 32 sectors.
        assert_eq!(svg.matches(" l4 -6 M").count(), 31);
        assert_eq!(warp(&sample(4, 4), "b").matches(" l4 -6 M").count(), 0);
        assert!(
            svg.contains(r#"width="986" height="200" viewBox="0 0 986 200""#),
            "{svg}"
        );
        let mut inactive = sample(4, 4);
        inactive.lane_addresses[31] = None;
        assert_eq!(warp(&inactive, "c").matches("stroke-dasharray").count(), 1);
    }
}
