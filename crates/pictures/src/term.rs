//! Heatmaps in the terminal: one block per panel, side by side, each cell two characters wide.
//!
//! On a colour terminal a cell is `██` shaded along the viridis scale (dark = 0, yellow = 1), in
//! true colour when `COLORTERM` is `truecolor` or `24bit`, else in the 256-colour palette. Without
//! colour (stdout is not a terminal, `NO_COLOR` is set, or `TERM=dumb`) a cell is a character of the
//! ramp [`RAMP`], doubled: `"  "` is 0 and `"@@"` is 1.
//!
//! ```
//! use pictures::{Figure, term::{ColorMode, render}};
//! use ndarray::array;
//!
//! let w = array![[1.0, 0.0], [0.5, 0.5]];
//! let fig = Figure::new("demo", "two tokens").labels(&["a", "b"], &["a", "b"]).panel("head 0", w.view());
//! let text = render(&fig, ColorMode::Ramp, 80);
//! assert!(text.contains("0 a @@\n")); // trailing blanks are trimmed
//! assert!(text.contains("1 b ++++")); // 0.5 rounds to the ramp's sixth character
//! ```

use crate::figure::{Figure, Panel};
use std::fmt::Write as _;
use std::io::IsTerminal;

/// The character ramp used without colour, from 0 (a space) to 1 (`@`).
pub const RAMP: &str = " .:-=+*#%@";

/// How cells are shaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorMode {
    /// No escape codes: the characters of [`RAMP`].
    Ramp,
    /// `██` in the xterm 256-colour palette.
    Ansi256,
    /// `██` in 24-bit colour.
    TrueColor,
}

impl ColorMode {
    /// The mode for this process's standard output and environment (see [`ColorMode::choose`]).
    pub fn detect() -> Self {
        Self::choose(std::io::stdout().is_terminal(), |name| {
            std::env::var(name).ok()
        })
    }

    /// The mode for a stdout that is (or is not) a terminal, reading environment variables through
    /// `var`: [`ColorMode::Ramp`] when stdout is not a terminal, `NO_COLOR` is set to anything
    /// non-empty, or `TERM` is `dumb`; [`ColorMode::TrueColor`] when `COLORTERM` is `truecolor` or
    /// `24bit`; otherwise [`ColorMode::Ansi256`].
    pub fn choose(stdout_is_terminal: bool, var: impl Fn(&str) -> Option<String>) -> Self {
        let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
        if !stdout_is_terminal || set("NO_COLOR") || var("TERM").as_deref() == Some("dumb") {
            return Self::Ramp;
        }
        match var("COLORTERM").as_deref() {
            Some("truecolor") | Some("24bit") => Self::TrueColor,
            _ => Self::Ansi256,
        }
    }
}

/// The terminal's width for laying panels side by side: `COLUMNS` if set, else 100.
pub fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&c| c >= 20)
        .unwrap_or(100)
}

/// The viridis colour at `t` in `[0, 1]` (five stops, linearly interpolated).
pub fn viridis(t: f64) -> (u8, u8, u8) {
    const STOPS: [(f64, f64, f64); 5] = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (253.0, 231.0, 37.0),
    ];
    let x = t.clamp(0.0, 1.0) * 4.0;
    let i = (x.floor() as usize).min(3);
    let f = x - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |p: f64, q: f64| (p + (q - p) * f).round() as u8;
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// One cell (two columns wide) for a level `t` in `[0, 1]`.
pub fn cell(t: f64, mode: ColorMode) -> String {
    match mode {
        ColorMode::Ramp => {
            let ramp: Vec<char> = RAMP.chars().collect();
            let c = ramp[(t.clamp(0.0, 1.0) * (ramp.len() - 1) as f64).round() as usize];
            format!("{c}{c}")
        }
        ColorMode::TrueColor => {
            let (r, g, b) = viridis(t);
            format!("\x1b[38;2;{r};{g};{b}m██\x1b[0m")
        }
        ColorMode::Ansi256 => {
            let (r, g, b) = viridis(t);
            let q = |c: u8| (f64::from(c) / 255.0 * 5.0).round() as u16;
            format!("\x1b[38;5;{}m██\x1b[0m", 16 + 36 * q(r) + 6 * q(g) + q(b))
        }
    }
}

/// A block of lines with a known visible width (escape codes do not count).
struct Block {
    lines: Vec<(String, usize)>,
    width: usize,
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

const LABEL_MAX: usize = 10;

fn row_label_texts(fig: &Figure) -> Vec<String> {
    fig.row_labels()
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if *l == i.to_string() {
                l.clone()
            } else {
                truncate(&format!("{i} {l}"), LABEL_MAX)
            }
        })
        .collect()
}

fn panel_block(fig: &Figure, panel: &Panel, mode: ColorMode) -> Block {
    let labels = row_label_texts(fig);
    let lw = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let (_, cols) = panel.dim();
    let grid_w = lw + 1 + 2 * cols;
    let mut lines = Vec::new();
    let title = truncate(&panel.title, grid_w.max(32));
    let tw = title.chars().count();
    lines.push((title, tw));
    let mut header = " ".repeat(lw + 1);
    for j in 0..cols {
        let _ = write!(header, "{:>2}", j % 100);
    }
    lines.push((header, grid_w));
    for (label, row) in labels.iter().zip(&panel.values) {
        let mut line = format!("{label:<lw$} ");
        for &v in row {
            line.push_str(&cell(fig.level(v), mode));
        }
        lines.push((line, grid_w));
    }
    let width = lines.iter().map(|l| l.1).max().unwrap_or(0);
    Block { lines, width }
}

/// Lays blocks side by side (3 spaces apart), starting a new band when `width` would be exceeded.
fn side_by_side(blocks: &[Block], width: usize) -> String {
    const GAP: usize = 3;
    let mut out = String::new();
    let mut start = 0;
    while start < blocks.len() {
        let mut end = start + 1;
        let mut used = blocks[start].width;
        while end < blocks.len() && used + GAP + blocks[end].width <= width {
            used += GAP + blocks[end].width;
            end += 1;
        }
        let band = &blocks[start..end];
        let height = band.iter().map(|b| b.lines.len()).max().unwrap_or(0);
        if start > 0 {
            out.push('\n');
        }
        for i in 0..height {
            let mut line = String::new();
            for (k, b) in band.iter().enumerate() {
                let (text, w) = b.lines.get(i).map_or(("", 0), |(t, w)| (t.as_str(), *w));
                line.push_str(text);
                if k + 1 < band.len() {
                    line.push_str(&" ".repeat(b.width - w + GAP));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        start = end;
    }
    out
}

/// The scale line: what 0 and 1 look like.
pub fn legend(fig: &Figure, mode: ColorMode) -> String {
    let (lo, hi) = fig.range;
    match mode {
        ColorMode::Ramp => format!("scale: \"{RAMP}\" from {lo} (blank) to {hi} (@)"),
        _ => {
            let bar: String = (0..10).map(|i| cell(i as f64 / 9.0, mode)).collect();
            format!("scale: {lo} {bar} {hi}")
        }
    }
}

/// The whole figure: its title and axes, every panel side by side (wrapped at `width` columns),
/// the column labels when they are words, and the scale.
pub fn render(fig: &Figure, mode: ColorMode, width: usize) -> String {
    let mut out = format!(
        "{} (rows: {}, columns: {})\n",
        fig.title, fig.row_axis, fig.col_axis
    );
    let blocks: Vec<Block> = fig
        .panels
        .iter()
        .map(|p| panel_block(fig, p, mode))
        .collect();
    out.push_str(&side_by_side(&blocks, width));
    let cols = fig.col_labels();
    let numbered = cols.iter().enumerate().all(|(i, c)| *c == i.to_string());
    if !numbered && cols != fig.row_labels() {
        let list: Vec<String> = cols
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{i} {c}"))
            .collect();
        let _ = writeln!(out, "{} columns: {}", fig.col_axis, list.join(", "));
    }
    out.push_str(&legend(fig, mode));
    out.push('\n');
    out
}
