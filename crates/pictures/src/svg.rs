//! SVG files of figures, drawn with `plotters`' SVG backend: text is SVG `<text>` (the viewer's
//! font), so no system font is needed to write them.
//!
//! Layout: the figure's title on top; one panel per head side by side, each with its title, the
//! column labels (rotated) and the column axis name above the grid, the row labels and the row axis
//! name to its left, and every cell's value written in it; the colour scale at the bottom. The
//! document also carries the title as its `<title>` element.

use crate::figure::{Figure, Panel};
use crate::term::viridis;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};

const CELL: i32 = 40;
const CHAR_W: i32 = 8;
const TITLE_H: i32 = 44;
const PANEL_TITLE_H: i32 = 28;
const AXIS_H: i32 = 22;
const GAP: i32 = 40;
const SCALE_H: i32 = 56;
const MARGIN: i32 = 16;

struct Layout {
    row_label_w: i32,
    panel_w: i32,
    grid_top: i32,
    width: i32,
    height: i32,
}

fn layout(fig: &Figure) -> Layout {
    let (rows, cols) = fig.dim();
    let longest = |labels: Vec<String>| {
        labels
            .iter()
            .map(|l| l.chars().count() as i32)
            .max()
            .unwrap_or(1)
    };
    let row_label_w = AXIS_H + CHAR_W * longest(fig.row_labels()) + 10;
    let col_label_h = CHAR_W * longest(fig.col_labels()) + 10;
    let panel_w = (row_label_w + CELL * cols as i32).max(CHAR_W * 24);
    let n = fig.panels.len().max(1) as i32;
    let grid_top = TITLE_H + PANEL_TITLE_H + AXIS_H + col_label_h;
    let title_w = CHAR_W * (fig.title.chars().count() as i32 + 4);
    Layout {
        row_label_w,
        panel_w,
        grid_top,
        width: (2 * MARGIN + n * panel_w + (n - 1) * GAP).max(title_w),
        height: grid_top + CELL * rows as i32 + SCALE_H + MARGIN,
    }
}

fn colour(t: f64) -> RGBColor {
    let (r, g, b) = viridis(t);
    RGBColor(r, g, b)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn text<'a>(size: f64, pos: Pos, color: RGBColor) -> TextStyle<'a> {
    ("sans-serif", size).into_font().color(&color).pos(pos)
}

fn draw_panel(
    root: &Area,
    fig: &Figure,
    panel: &Panel,
    left: i32,
    l: &Layout,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<std::io::Error>| e.to_string();
    let (rows, cols) = panel.dim();
    let grid_left = left + l.row_label_w;
    let center = Pos::new(HPos::Center, VPos::Center);
    root.draw(&Text::new(
        panel.title.clone(),
        (left + l.panel_w / 2, TITLE_H + PANEL_TITLE_H / 2),
        text(16.0, center, BLACK),
    ))
    .map_err(err)?;
    root.draw(&Text::new(
        fig.col_axis.clone(),
        (
            grid_left + CELL * cols as i32 / 2,
            TITLE_H + PANEL_TITLE_H + AXIS_H / 2,
        ),
        text(13.0, center, BLACK),
    ))
    .map_err(err)?;
    let rotated =
        text(12.0, Pos::new(HPos::Left, VPos::Center), BLACK).transform(FontTransform::Rotate270);
    for (j, label) in fig.col_labels().into_iter().enumerate() {
        let x = grid_left + CELL * j as i32 + CELL / 2;
        root.draw(&Text::new(label, (x, l.grid_top - 6), rotated.clone()))
            .map_err(err)?;
    }
    let grid_mid = l.grid_top + CELL * rows as i32 / 2;
    root.draw(&Text::new(
        fig.row_axis.clone(),
        (left + AXIS_H / 2, grid_mid),
        text(13.0, center, BLACK).transform(FontTransform::Rotate270),
    ))
    .map_err(err)?;
    for (i, label) in fig.row_labels().into_iter().enumerate() {
        let y = l.grid_top + CELL * i as i32 + CELL / 2;
        root.draw(&Text::new(
            label,
            (grid_left - 6, y),
            text(12.0, Pos::new(HPos::Right, VPos::Center), BLACK),
        ))
        .map_err(err)?;
    }
    for (i, row) in panel.values.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            let (x0, y0) = (grid_left + CELL * j as i32, l.grid_top + CELL * i as i32);
            let t = fig.level(v);
            root.draw(&Rectangle::new(
                [(x0, y0), (x0 + CELL, y0 + CELL)],
                colour(t).filled(),
            ))
            .map_err(err)?;
            let ink = if t > 0.6 { BLACK } else { WHITE };
            root.draw(&Text::new(
                format!("{v:.2}"),
                (x0 + CELL / 2, y0 + CELL / 2),
                text(11.0, center, ink),
            ))
            .map_err(err)?;
        }
    }
    Ok(())
}

/// The figure as an SVG document.
pub fn to_svg(fig: &Figure) -> Result<String, String> {
    let l = layout(fig);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (l.width as u32, l.height as u32))
            .into_drawing_area();
        let err = |e: DrawingAreaErrorKind<std::io::Error>| e.to_string();
        root.fill(&WHITE).map_err(err)?;
        root.draw(&Text::new(
            fig.title.clone(),
            (l.width / 2, TITLE_H / 2),
            text(20.0, Pos::new(HPos::Center, VPos::Center), BLACK),
        ))
        .map_err(err)?;
        for (k, panel) in fig.panels.iter().enumerate() {
            let left = MARGIN + k as i32 * (l.panel_w + GAP);
            draw_panel(&root, fig, panel, left, &l)?;
        }
        let (lo, hi) = fig.range;
        let top = l.height - SCALE_H + 12;
        let left = MARGIN + l.row_label_w;
        let swatch = 20;
        let label = text(12.0, Pos::new(HPos::Right, VPos::Center), BLACK);
        root.draw(&Text::new(
            format!("scale {lo}"),
            (left - 6, top + swatch / 2),
            label,
        ))
        .map_err(err)?;
        for i in 0..10 {
            let x = left + i * swatch;
            root.draw(&Rectangle::new(
                [(x, top), (x + swatch, top + swatch)],
                colour(f64::from(i) / 9.0).filled(),
            ))
            .map_err(err)?;
        }
        root.draw(&Text::new(
            format!("{hi}"),
            (left + 10 * swatch + 6, top + swatch / 2),
            text(12.0, Pos::new(HPos::Left, VPos::Center), BLACK),
        ))
        .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(with_title(out, &fig.title))
}

/// Inserts `<title>` right after the opening `<svg …>` tag.
fn with_title(svg: String, title: &str) -> String {
    let Some(open) = svg.find("<svg") else {
        return svg;
    };
    let Some(end) = svg[open..].find('>') else {
        return svg;
    };
    let at = open + end + 1;
    let escaped = title
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!("{}\n<title>{escaped}</title>{}", &svg[..at], &svg[at..])
}

/// Writes the figure to `dir/<id>.svg` (creating `dir`) and returns the file's path.
pub fn write(fig: &Figure, dir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(format!("{}.svg", fig.id));
    std::fs::write(&path, to_svg(fig)?)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}
