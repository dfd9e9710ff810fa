//! NumPy-style printing of `f64` arrays.
//!
//! The lessons show arrays the way `print(arr)` shows them in NumPy 2.x, usually after
//! `np.set_printoptions(precision=2, suppress=True)`. This module reproduces that text byte for
//! byte, so a Rust run can be compared with the lesson's output by eye or by `diff`:
//!
//! ```
//! use attention::print::{PrintOptions, format_array, np};
//! use ndarray::array;
//!
//! let w = array![[0.1234, 0.1, 0.28], [0.001, -0.5, 2.0]];
//! assert_eq!(format!("{}", np(&w)), "[[ 0.12  0.1   0.28]\n [ 0.   -0.5   2.  ]]");
//! // NumPy's defaults switch to scientific notation: max/min magnitude is 2.0 / 0.001 > 1e3.
//! assert_eq!(
//!     format_array(&w.view(), PrintOptions::default()),
//!     "[[ 1.234e-01  1.000e-01  2.800e-01]\n [ 1.000e-03 -5.000e-01  2.000e+00]]"
//! );
//! ```
//!
//! What is reproduced (NumPy's `array2string` with its default `floatmode='maxprec'`,
//! `sign='-'`, `linewidth=75`, `threshold=1000`, `edgeitems=3`, `nanstr='nan'`, `infstr='inf'`):
//!
//! * at most `precision` fractional digits per value, fewer when the shortest round-trip
//!   representation needs fewer (`0.1`, `1.`), with all values padded to a common width
//!   (`[0.12 0.1  0.28]`);
//! * the switch to scientific notation (any non-zero magnitude `>= 1e8`, or, when `suppress` is
//!   false, one below `1e-4` or a max/min magnitude ratio above `1e3`), with NumPy's common
//!   mantissa precision and exponent width (`1.e-005`);
//! * `nan`, `inf`, `-inf`, negative zero (`-0.`), rounding exactly on the binary value with
//!   ties to even (`0.125` → `0.12`);
//! * nested brackets and blank lines between blocks for any number of dimensions, wrapping of
//!   long rows at 75 columns with a hanging indent, summarisation (`...`) of arrays with more
//!   than 1000 elements, `[]` for empty arrays and the scalar form (`0.5`, `1e+20`) for 0-D
//!   arrays.
//!
//! Not supported: other `linewidth`, `threshold`, `edgeitems`, `sign`, `floatmode`, `legacy` or
//! `formatter` settings, `repr` output (`array([...])`), and element types other than `f64`.

use std::fmt;

use ndarray::{ArrayBase, ArrayViewD, Axis, Data, Dimension};

/// NumPy's `linewidth` print option: rows are wrapped so lines stay within this many columns.
pub const LINE_WIDTH: usize = 75;
/// NumPy's `threshold` print option: arrays with more elements than this are summarised.
pub const THRESHOLD: usize = 1000;
/// NumPy's `edgeitems` print option: items kept at each end of a summarised axis.
pub const EDGE_ITEMS: usize = 3;

/// The subset of `np.set_printoptions` the course uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PrintOptions {
    /// Maximum number of fractional digits (NumPy's `precision`, default 8).
    pub precision: usize,
    /// Never switch to scientific notation for small values (NumPy's `suppress`, default
    /// `false`); values that round to zero print as `0.`.
    pub suppress: bool,
}

impl PrintOptions {
    /// NumPy's defaults: `precision=8, suppress=False`.
    pub const NUMPY: Self = Self::new(8, false);
    /// The lessons' setting: `np.set_printoptions(precision=2, suppress=True)`.
    pub const LESSON: Self = Self::new(2, true);

    /// Options with the given `precision` and `suppress`.
    pub const fn new(precision: usize, suppress: bool) -> Self {
        Self {
            precision,
            suppress,
        }
    }

    /// The lessons' setting, `precision=2, suppress=True` (same as [`PrintOptions::LESSON`]).
    pub const fn lesson() -> Self {
        Self::LESSON
    }
}

impl Default for PrintOptions {
    /// NumPy's defaults, `precision=8, suppress=False`.
    fn default() -> Self {
        Self::NUMPY
    }
}

/// Formats `a` exactly as NumPy 2.x `print(a)` (i.e. `str(a)`) would for a float64 array.
///
/// Works for owned arrays, views and any dimensionality (`Ix0` to `IxDyn`). No trailing newline.
pub fn format_array<S, D>(a: &ArrayBase<S, D>, opts: PrintOptions) -> String
where
    S: Data<Elem = f64>,
    D: Dimension,
{
    let view = a.view().into_dyn();
    if view.ndim() == 0 {
        return scalar_str(view[[]].to_owned());
    }
    if view.is_empty() {
        return "[]".to_owned();
    }
    let summarise = view.len() > THRESHOLD;
    let mut shown = Vec::new();
    collect_shown(&view, summarise, &mut shown);
    let format = FloatFormat::new(&shown, opts);
    render(&view, &format, " ", LINE_WIDTH, summarise)
}

/// A [`Display`](fmt::Display) adapter printing an array like NumPy; build it with [`np`],
/// [`np_with`] or the [`NumpyPrint`] methods.
#[derive(Debug)]
pub struct NumpyDisplay<'a, S, D>
where
    S: Data<Elem = f64>,
    D: Dimension,
{
    array: &'a ArrayBase<S, D>,
    opts: PrintOptions,
}

impl<'a, S, D> NumpyDisplay<'a, S, D>
where
    S: Data<Elem = f64>,
    D: Dimension,
{
    /// Wraps `array` for printing with `opts`.
    pub fn new(array: &'a ArrayBase<S, D>, opts: PrintOptions) -> Self {
        Self { array, opts }
    }
}

impl<S, D> fmt::Display for NumpyDisplay<'_, S, D>
where
    S: Data<Elem = f64>,
    D: Dimension,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_array(self.array, self.opts))
    }
}

/// Displays `a` as the lessons print it, i.e. NumPy with `precision=2, suppress=True`
/// ([`PrintOptions::LESSON`]): `println!("{}", np(&w))`.
pub fn np<S, D>(a: &ArrayBase<S, D>) -> NumpyDisplay<'_, S, D>
where
    S: Data<Elem = f64>,
    D: Dimension,
{
    NumpyDisplay::new(a, PrintOptions::LESSON)
}

/// Displays `a` as NumPy would with the given options: `println!("{}", np_with(&w, PrintOptions::default()))`.
pub fn np_with<S, D>(a: &ArrayBase<S, D>, opts: PrintOptions) -> NumpyDisplay<'_, S, D>
where
    S: Data<Elem = f64>,
    D: Dimension,
{
    NumpyDisplay::new(a, opts)
}

/// Method-call access to NumPy-style printing: `println!("{}", w.np())`.
pub trait NumpyPrint {
    /// The element container of the array.
    type Storage: Data<Elem = f64>;
    /// The dimension type of the array.
    type Dim: Dimension;

    /// Displays with the lessons' options ([`PrintOptions::LESSON`]).
    fn np(&self) -> NumpyDisplay<'_, Self::Storage, Self::Dim>;

    /// Displays with the given options.
    fn np_with(&self, opts: PrintOptions) -> NumpyDisplay<'_, Self::Storage, Self::Dim>;
}

impl<S, D> NumpyPrint for ArrayBase<S, D>
where
    S: Data<Elem = f64>,
    D: Dimension,
{
    type Storage = S;
    type Dim = D;

    fn np(&self) -> NumpyDisplay<'_, S, D> {
        NumpyDisplay::new(self, PrintOptions::LESSON)
    }

    fn np_with(&self, opts: PrintOptions) -> NumpyDisplay<'_, S, D> {
        NumpyDisplay::new(self, opts)
    }
}

/// The values NumPy looks at to choose the format: every element, or only the corners
/// (`EDGE_ITEMS` per end of each long axis) of a summarised array. Same order as printed.
fn collect_shown(a: &ArrayViewD<'_, f64>, summarise: bool, out: &mut Vec<f64>) {
    if a.ndim() == 0 {
        out.push(a[[]]);
        return;
    }
    for i in shown_indices(a.len_of(Axis(0)), summarise) {
        collect_shown(&a.index_axis(Axis(0), i), summarise, out);
    }
}

/// Indices along an axis of length `n` that are printed (all, or the edges when summarising).
fn shown_indices(n: usize, summarise: bool) -> Vec<usize> {
    if summarise && n > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS).chain(n - EDGE_ITEMS..n).collect()
    } else {
        (0..n).collect()
    }
}

/// NumPy's `_formatArray` recursion (non-legacy, separator `' '`).
fn render(
    a: &ArrayViewD<'_, f64>,
    format: &FloatFormat,
    hanging_indent: &str,
    width: usize,
    summarise: bool,
) -> String {
    let axes_left = a.ndim();
    if axes_left == 0 {
        return format.format(a[[]]);
    }
    let next_indent = format!("{hanging_indent} ");
    let next_width = width.saturating_sub(1);
    let n = a.len_of(Axis(0));
    let summary = summarise && n > 2 * EDGE_ITEMS;
    let (leading, trailing) = if summary {
        (EDGE_ITEMS, EDGE_ITEMS)
    } else {
        (0, n)
    };
    let child = |i: usize| {
        render(
            &a.index_axis(Axis(0), i),
            format,
            &next_indent,
            next_width,
            summarise,
        )
    };

    let mut s = String::new();
    if axes_left == 1 {
        // Room for the closing bracket.
        let elem_width = width.saturating_sub(1);
        let mut line = hanging_indent.to_owned();
        for i in 0..leading {
            extend_line(&mut s, &mut line, &child(i), elem_width, hanging_indent);
            line.push(' ');
        }
        if summary {
            extend_line(&mut s, &mut line, "...", elem_width, hanging_indent);
            line.push(' ');
        }
        for back in (2..=trailing).rev() {
            extend_line(
                &mut s,
                &mut line,
                &child(n - back),
                elem_width,
                hanging_indent,
            );
            line.push(' ');
        }
        extend_line(&mut s, &mut line, &child(n - 1), elem_width, hanging_indent);
        s.push_str(&line);
    } else {
        let line_sep = "\n".repeat(axes_left - 1);
        for i in 0..leading {
            s.push_str(hanging_indent);
            s.push_str(&child(i));
            s.push_str(&line_sep);
        }
        if summary {
            s.push_str(hanging_indent);
            s.push_str("...");
            s.push_str(&line_sep);
        }
        for back in (2..=trailing).rev() {
            s.push_str(hanging_indent);
            s.push_str(&child(n - back));
            s.push_str(&line_sep);
        }
        s.push_str(hanging_indent);
        s.push_str(&child(n - 1));
    }
    format!("[{}]", &s[hanging_indent.len()..])
}

/// Appends `word` to `line`, first moving to a fresh line (starting with `indent`) if it would
/// overflow `width` and the current line holds more than the indent.
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, indent: &str) {
    if line.len() + word.len() > width && line.len() > indent.len() {
        s.push_str(line.trim_end());
        s.push('\n');
        line.clear();
        line.push_str(indent);
    }
    line.push_str(word);
}

/// NumPy's `FloatingFormat` for `floatmode='maxprec'`, `sign='-'`: one width for all elements.
#[derive(Debug)]
struct FloatFormat {
    /// Scientific (`1.5e-05`) instead of positional notation.
    exp_format: bool,
    /// Positional: maximum fractional digits. Scientific: exact mantissa digits.
    precision: usize,
    /// Characters left of the decimal point (sign included).
    pad_left: usize,
    /// Characters right of the decimal point (exponent included in scientific mode).
    pad_right: usize,
    /// Digits in the exponent (at least 2).
    exp_digits: usize,
}

impl FloatFormat {
    /// Chooses notation, precision and padding from the values that will be printed.
    fn new(values: &[f64], opts: PrintOptions) -> Self {
        let finite: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let mut exp_format = false;
        let non_zero = finite.iter().filter(|&&x| x != 0.0).map(|x| x.abs());
        let (min, max) = non_zero.fold((f64::INFINITY, 0.0_f64), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
        if max > 0.0 && (max >= 1e8 || (!opts.suppress && (min < 1e-4 || max / min > 1e3))) {
            exp_format = true;
        }

        let mut format = Self {
            exp_format,
            precision: opts.precision,
            pad_left: 0,
            pad_right: 0,
            exp_digits: 2,
        };
        if !finite.is_empty() {
            if exp_format {
                let mut frac = 0;
                for &x in &finite {
                    let (mantissa, exp) = scientific_maxprec(x, opts.precision);
                    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((&mantissa, ""));
                    format.pad_left = format.pad_left.max(int_part.len());
                    frac = frac_part.len().max(frac);
                    format.exp_digits = format.exp_digits.max(exp.unsigned_abs().to_string().len());
                }
                format.precision = frac;
                format.pad_right = format.exp_digits + 2 + frac;
            } else {
                for &x in &finite {
                    let s = positional_maxprec(x, opts.precision);
                    let (int_part, frac_part) = s.split_once('.').unwrap_or((&s, ""));
                    format.pad_left = format.pad_left.max(int_part.len());
                    format.pad_right = format.pad_right.max(frac_part.len());
                }
            }
        }
        if finite.len() != values.len() {
            let neg_inf = values.contains(&f64::NEG_INFINITY);
            let offset = format.pad_right + 1;
            let needed = ("inf".len() + usize::from(neg_inf)).max("nan".len());
            format.pad_left = format.pad_left.max(needed.saturating_sub(offset));
        }
        format
    }

    /// One element, padded to the common width.
    fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let word = if x.is_nan() {
                "nan"
            } else if x < 0.0 {
                "-inf"
            } else {
                "inf"
            };
            return format!("{word:>width$}", width = self.pad_left + self.pad_right + 1);
        }
        if self.exp_format {
            // Exactly `precision` mantissa digits, rounded on the exact binary value.
            let s = format!("{x:.prec$e}", prec = self.precision);
            let (mantissa, exp) = s.split_once('e').expect("`{:e}` output has an exponent");
            let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
            let mantissa = if mantissa.contains('.') {
                mantissa.to_owned()
            } else {
                format!("{mantissa}.")
            };
            let sign = if exp < 0 { '-' } else { '+' };
            format!(
                "{mantissa:>left$}e{sign}{digits:0>width$}",
                left = self.pad_left + 1 + self.precision,
                digits = exp.unsigned_abs(),
                width = self.exp_digits,
            )
        } else {
            let s = positional_maxprec(x, self.precision);
            let (int_part, frac_part) = s.split_once('.').unwrap_or((&s, ""));
            format!(
                "{int_part:>left$}.{frac_part:<right$}",
                left = self.pad_left,
                right = self.pad_right
            )
        }
    }
}

/// Dragon4 positional output with `unique=True`, `precision`, `trim='.'`: the shortest
/// round-trip digits if they need at most `precision` fractional digits, otherwise the exact
/// binary value rounded (ties to even) to `precision` digits; trailing zeros dropped, the
/// decimal point kept (`1.`, `0.1`, `-0.`).
fn positional_maxprec(x: f64, precision: usize) -> String {
    let shortest = shortest_positional(x);
    let frac_len = shortest.split_once('.').map_or(0, |(_, f)| f.len());
    let s = if frac_len <= precision {
        shortest
    } else {
        format!("{x:.precision$}")
    };
    trim_keep_point(&s)
}

/// Dragon4 scientific output with `unique=True`, `precision`, `trim='.'`, split into the
/// mantissa (e.g. `1.5`, `2.`) and the decimal exponent.
fn scientific_maxprec(x: f64, precision: usize) -> (String, i32) {
    let shortest = shortest_scientific(x);
    let (mantissa, _) = shortest
        .split_once('e')
        .expect("`{:e}` output has an exponent");
    let frac_len = mantissa.split_once('.').map_or(0, |(_, f)| f.len());
    let s = if frac_len <= precision {
        shortest
    } else {
        format!("{x:.precision$e}")
    };
    let (mantissa, exp) = s.split_once('e').expect("`{:e}` output has an exponent");
    (
        trim_keep_point(mantissa),
        exp.parse().expect("`{:e}` exponent is an integer"),
    )
}

/// The shortest round-trip digits of `x` in positional form (`{}`: `0.1`, `12`, `-0`), with
/// NumPy's tie rule (see [`even_on_tie`]).
fn shortest_positional(x: f64) -> String {
    let s = format!("{x}");
    let last_digit = match s.split_once('.') {
        Some((_, frac)) => -(frac.len() as i32),
        None => (s.len() - s.trim_end_matches('0').len()) as i32,
    };
    if last_digit <= 0 {
        let digits = last_digit.unsigned_abs() as usize;
        even_on_tie(x, s, last_digit, || format!("{x:.digits$}"))
    } else {
        s
    }
}

/// The shortest round-trip digits of `x` in Rust's scientific form (`1.5e-7`, `1e0`), with
/// NumPy's tie rule (see [`even_on_tie`]).
fn shortest_scientific(x: f64) -> String {
    let s = format!("{x:e}");
    let (mantissa, exp) = s.split_once('e').expect("`{:e}` output has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
    let frac = mantissa.split_once('.').map_or(0, |(_, f)| f.len());
    let last_digit = exp - frac as i32;
    even_on_tie(x, s, last_digit, || format!("{x:.frac$e}"))
}

/// When `x` lies exactly halfway between two shortest candidates whose last digit is at
/// `10^last_digit`, NumPy's Dragon4 (like Python's `repr`) takes the one with the even last
/// digit while Rust's shortest formatting rounds up. `even` formats `x` at that digit with
/// Rust's fixed-precision rounding, which is exact and ties-to-even; it is used if it still reads
/// back as `x` (the other candidate may lie outside the rounding interval next to a power of 2).
fn even_on_tie(x: f64, shortest: String, last_digit: i32, even: impl FnOnce() -> String) -> String {
    if !is_decimal_midpoint(x, last_digit) {
        return shortest;
    }
    let candidate = even();
    if candidate.parse::<f64>() == Ok(x) {
        candidate
    } else {
        shortest
    }
}

/// Whether finite `x` is exactly an odd multiple of `10^q / 2`, i.e. halfway between two
/// neighbouring multiples of `10^q`.
fn is_decimal_midpoint(x: f64, q: i32) -> bool {
    if !x.is_finite() || x == 0.0 {
        return false;
    }
    // |x| = m * 2^e with m odd.
    let bits = x.abs().to_bits();
    let exp_bits = (bits >> 52) as i32;
    let frac_bits = bits & ((1 << 52) - 1);
    let (mut m, mut e) = if exp_bits == 0 {
        (frac_bits, -1074)
    } else {
        (frac_bits | (1 << 52), exp_bits - 1075)
    };
    let zeros = m.trailing_zeros();
    m >>= zeros;
    e += zeros as i32;
    if q <= 0 {
        // An odd multiple of 10^q / 2 has exactly 1 - q fractional digits, the last one a 5,
        // exactly like m * 2^e with e = q - 1.
        e == q - 1
    } else {
        // (2j + 1) * 10^q / 2 = (2j + 1) * 5^q * 2^(q - 1).
        e == q - 1 && q <= 22 && m % 5u64.pow(q as u32) == 0
    }
}

/// Drops trailing fractional zeros but keeps (or adds) the decimal point: `0.50` → `0.5`,
/// `2.00` → `2.`, `3` → `3.`.
fn trim_keep_point(s: &str) -> String {
    match s.split_once('.') {
        Some((int_part, frac_part)) => format!("{int_part}.{}", frac_part.trim_end_matches('0')),
        None => format!("{s}."),
    }
}

/// `str(np.float64(x))`, which is what NumPy prints for a 0-D array: Python's `repr` of the
/// value (shortest round-trip digits, ignoring `precision`), positional for `1e-4 <= |x| < 1e16`
/// (or zero) and scientific otherwise.
fn scalar_str(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_owned();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_owned();
    }
    let magnitude = x.abs();
    if x == 0.0 || (1e-4..1e16).contains(&magnitude) {
        let s = shortest_positional(x);
        if s.contains('.') { s } else { format!("{s}.0") }
    } else {
        let s = shortest_scientific(x);
        let (mantissa, exp) = s.split_once('e').expect("`{:e}` output has an exponent");
        let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, array};

    #[test]
    fn lesson_rows_pad_short_values() {
        let a = array![[0.1234, 0.1, 0.28], [0.0012, 0.2, 0.34]];
        assert_eq!(
            format_array(&a, PrintOptions::lesson()),
            "[[0.12 0.1  0.28]\n [0.   0.2  0.34]]"
        );
    }

    #[test]
    fn display_helpers_agree() {
        let a = Array2::from_shape_fn((2, 2), |(i, j)| (i * 2 + j) as f64);
        let expected = "[[0. 1.]\n [2. 3.]]";
        assert_eq!(np(&a).to_string(), expected);
        assert_eq!(a.view().np().to_string(), expected);
        assert_eq!(a.np_with(PrintOptions::default()).to_string(), expected);
        assert_eq!(
            np_with(&a, PrintOptions::new(4, false)).to_string(),
            expected
        );
    }
}
