//! What a picture shows: a [`Figure`] is one or more heatmap [`Panel`]s (one per head, say) over the
//! same rows and columns, with a title and labels. The terminal renderer ([`crate::term`]) and the
//! SVG writer ([`crate::svg`]) both draw a `Figure`; the demos save them as JSON to compare runs.

use ndarray::ArrayView2;
use serde::{Deserialize, Serialize};

/// One heatmap: a `(rows, cols)` grid of values and its title (e.g. `head 0`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Panel {
    /// The panel's title, e.g. `head 0` or `average over heads`.
    pub title: String,
    /// The values, row by row: `values[i][j]` is row `i`, column `j`.
    pub values: Vec<Vec<f64>>,
}

impl Panel {
    /// A panel from a `(rows, cols)` array.
    pub fn new(title: impl Into<String>, values: ArrayView2<f64>) -> Self {
        Self {
            title: title.into(),
            values: values.rows().into_iter().map(|r| r.to_vec()).collect(),
        }
    }

    /// A panel from a `(rows, cols)` boolean mask: `true` (may attend) is 1, `false` is 0.
    pub fn mask(title: impl Into<String>, allowed: ArrayView2<bool>) -> Self {
        Self::new(title, allowed.mapv(|a| if a { 1.0 } else { 0.0 }).view())
    }

    /// `(rows, cols)`.
    pub fn dim(&self) -> (usize, usize) {
        (
            self.values.len(),
            self.values.first().map_or(0, |row| row.len()),
        )
    }
}

/// A titled, labelled figure of one or more heatmaps over the same rows and columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// A short file-name-safe identifier, unique within a demo: the SVG is `<id>.svg`, and
    /// `--compare` matches the student's figure with the reference's by it.
    pub id: String,
    /// The figure's title.
    pub title: String,
    /// What the rows are, e.g. `query`.
    pub row_axis: String,
    /// What the columns are, e.g. `key`.
    pub col_axis: String,
    /// One label per row (tokens where the lesson has them, else positions).
    pub rows: Vec<String>,
    /// One label per column.
    pub cols: Vec<String>,
    /// The value drawn darkest/brightest: values are clamped to `[lo, hi]`.
    pub range: (f64, f64),
    /// The heatmaps, drawn side by side.
    pub panels: Vec<Panel>,
}

impl Figure {
    /// An empty figure of attention weights: rows are queries, columns are keys, range `[0, 1]`.
    pub fn new(id: impl Into<String>, title: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            title: title.into(),
            row_axis: "query".into(),
            col_axis: "key".into(),
            rows: Vec::new(),
            cols: Vec::new(),
            range: (0.0, 1.0),
            panels: Vec::new(),
        }
    }

    /// Names the axes (defaults: `query`, `key`).
    pub fn axes(mut self, rows: &str, cols: &str) -> Self {
        self.row_axis = rows.into();
        self.col_axis = cols.into();
        self
    }

    /// Labels rows and columns (e.g. tokens). Missing labels default to positions `0, 1, …`.
    pub fn labels<R: AsRef<str>, C: AsRef<str>>(mut self, rows: &[R], cols: &[C]) -> Self {
        self.rows = rows.iter().map(|r| r.as_ref().to_owned()).collect();
        self.cols = cols.iter().map(|c| c.as_ref().to_owned()).collect();
        self
    }

    /// Adds a panel of values.
    pub fn panel(mut self, title: impl Into<String>, values: ArrayView2<f64>) -> Self {
        self.panels.push(Panel::new(title, values));
        self
    }

    /// Adds a panel drawn from a boolean mask (`true` = may attend = 1).
    pub fn mask(mut self, title: impl Into<String>, allowed: ArrayView2<bool>) -> Self {
        self.panels.push(Panel::mask(title, allowed));
        self
    }

    /// Sets the range to `[0, m]`, `m` the largest value over every panel rounded up to two
    /// decimals (1 when there is none): weights of an untrained head rarely reach 1, and a fixed
    /// `[0, 1]` scale would draw them all faint. The scale line shows the range used.
    pub fn scaled_to_max(mut self) -> Self {
        let m = self
            .panels
            .iter()
            .flat_map(|p| p.values.iter().flatten())
            .copied()
            .filter(|v| v.is_finite())
            .fold(0.0_f64, f64::max);
        let m = (m * 100.0).ceil() / 100.0;
        self.range = (0.0, if m > 0.0 { m } else { 1.0 });
        self
    }

    /// `(rows, cols)` of the first panel (every panel has the same shape).
    pub fn dim(&self) -> (usize, usize) {
        self.panels.first().map_or((0, 0), Panel::dim)
    }

    /// The row labels, completed with positions where none were given.
    pub fn row_labels(&self) -> Vec<String> {
        complete(&self.rows, self.dim().0)
    }

    /// The column labels, completed with positions where none were given.
    pub fn col_labels(&self) -> Vec<String> {
        complete(&self.cols, self.dim().1)
    }

    /// Where `v` falls in [`Figure::range`], clamped to `[0, 1]` (NaN counts as 0).
    pub fn level(&self, v: f64) -> f64 {
        let (lo, hi) = self.range;
        let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.0 };
        if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) }
    }
}

fn complete(labels: &[String], n: usize) -> Vec<String> {
    (0..n)
        .map(|i| labels.get(i).cloned().unwrap_or_else(|| i.to_string()))
        .collect()
}

/// Positions `0..n` as labels.
pub fn positions(n: usize) -> Vec<String> {
    (0..n).map(|i| i.to_string()).collect()
}
