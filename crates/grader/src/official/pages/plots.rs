//! The class page's plots, inline SVG drawn with `plotters` (as the course's figures,
//! `crates/pictures`): the score histogram and each exercise's pass rate. Their labels are the
//! course's (bins, exercise names), never a student's.

use anyhow::{Result, anyhow};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

const BAR: RGBColor = RGBColor(0x3b, 0x6e, 0xa8);
const FULL: RGBColor = RGBColor(0x2e, 0x8b, 0x57);
const AXIS: RGBColor = RGBColor(0x55, 0x55, 0x55);
/// Pixels per character of a 12 px label, to size the label column.
const CHAR_W: i32 = 7;

fn style<'a>(size: f64, h: HPos, v: VPos) -> TextStyle<'a> {
    ("sans-serif", size)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(h, v))
}

fn drawn<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> anyhow::Error {
    anyhow!("cannot draw a plot: {e}")
}

/// An SVG document of `size` drawn by `draw`, with `label` as its accessible name.
fn svg(size: (u32, u32), label: &str, draw: impl FnOnce(&Area) -> Result<()>) -> Result<String> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        root.fill(&WHITE).map_err(drawn)?;
        draw(&root)?;
        root.present().map_err(drawn)?;
    }
    // The label is the page's own text, escaped all the same.
    Ok(buf.replacen(
        "<svg ",
        &format!(
            "<svg class=\"plot\" role=\"img\" aria-label=\"{}\" ",
            super::escape::html(label)
        ),
        1,
    ))
}

/// A vertical bar per bin: its count above it and its label under it.
pub fn histogram(counts: &[usize], labels: &[String]) -> Result<String> {
    let (w, h) = (64 * counts.len().max(1) as i32 + 60, 240);
    let (left, top, bottom) = (40, 24, h - 36);
    let most = counts.iter().copied().max().unwrap_or(0).max(1);
    let slot = (w - left - 10) / counts.len().max(1) as i32;
    svg((w as u32, h as u32), "score distribution", |root| {
        for (i, (&n, label)) in counts.iter().zip(labels).enumerate() {
            let x = left + slot * i as i32;
            let height = ((bottom - top) as f64 * n as f64 / most as f64).round() as i32;
            let colour = if i + 1 == counts.len() { FULL } else { BAR };
            if n > 0 {
                root.draw(&Rectangle::new(
                    [(x + 6, bottom - height), (x + slot - 6, bottom)],
                    colour.filled(),
                ))
                .map_err(drawn)?;
            }
            let centre = x + slot / 2;
            root.draw(&Text::new(
                n.to_string(),
                (centre, bottom - height - 4),
                style(12.0, HPos::Center, VPos::Bottom),
            ))
            .map_err(drawn)?;
            root.draw(&Text::new(
                label.clone(),
                (centre, bottom + 6),
                style(11.0, HPos::Center, VPos::Top),
            ))
            .map_err(drawn)?;
        }
        root.draw(&PathElement::new(
            vec![(left, bottom), (w - 10, bottom)],
            AXIS.stroke_width(1),
        ))
        .map_err(drawn)?;
        root.draw(&Text::new(
            "students",
            (4, top - 8),
            style(11.0, HPos::Left, VPos::Bottom),
        ))
        .map_err(drawn)?;
        Ok(())
    })
}

/// A horizontal bar per item, its length the rate (0 to 1), the percentage after it.
pub fn rates(items: &[(String, f64)]) -> Result<String> {
    const ROW: i32 = 24;
    const SPAN: i32 = 360;
    let longest = items
        .iter()
        .map(|(l, _)| l.chars().count() as i32)
        .max()
        .unwrap_or(1);
    let left = CHAR_W * longest + 16;
    let (w, h) = (left + SPAN + 60, ROW * items.len().max(1) as i32 + 16);
    svg((w as u32, h as u32), "pass rate per exercise", |root| {
        for (i, (label, rate)) in items.iter().enumerate() {
            let y = 8 + ROW * i as i32;
            let length = (SPAN as f64 * rate.clamp(0.0, 1.0)).round() as i32;
            root.draw(&Rectangle::new(
                [(left, y + 3), (left + SPAN, y + ROW - 3)],
                RGBColor(0xee, 0xee, 0xee).filled(),
            ))
            .map_err(drawn)?;
            if length > 0 {
                root.draw(&Rectangle::new(
                    [(left, y + 3), (left + length, y + ROW - 3)],
                    BAR.filled(),
                ))
                .map_err(drawn)?;
            }
            root.draw(&Text::new(
                label.clone(),
                (left - 8, y + ROW / 2),
                style(12.0, HPos::Right, VPos::Center),
            ))
            .map_err(drawn)?;
            root.draw(&Text::new(
                format!("{:.0}%", rate * 100.0),
                (left + SPAN + 6, y + ROW / 2),
                style(12.0, HPos::Left, VPos::Center),
            ))
            .map_err(drawn)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plots_are_svg_with_a_bar_per_nonzero_value() {
        let labels: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let svg = histogram(&[2, 0, 1], &labels).unwrap();
        assert!(svg.starts_with("<svg class=\"plot\" role=\"img\""), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
        // The background and two bars.
        assert_eq!(svg.matches("<rect").count(), 3, "{svg}");
        let svg = rates(&[("split_heads".into(), 0.5), ("merge".into(), 0.0)]).unwrap();
        // Two tracks and one bar.
        assert_eq!(svg.matches("<rect").count(), 4, "{svg}");
        assert!(svg.contains(">50%<") || svg.contains("50%"), "{svg}");
        assert!(svg.contains("split_heads"));
    }
}
