//! Comparing snapshot text with a numeric tolerance, and explaining the first difference.

/// Largest absolute difference accepted between two rounded numbers: a value that sits on a
/// rounding boundary may print one unit of the 4th decimal away in another correct implementation.
pub const TOLERANCE: f64 = 1.5e-4;

/// `None` when `got` matches `expected` (numbers within `tolerance`), otherwise a one-line
/// explanation: a different shape, or the first differing element with its NumPy-style index.
///
/// ```
/// let e = "shape (2, 2)\n[0] 1.0000 2.0000\n[1] 3.0000 4.0000\n";
/// let g = "shape (2, 2)\n[0] 1.0000 2.0000\n[1] 3.0000 4.5000\n";
/// assert_eq!(
///     check_protocol::explain_difference(e, g, 1e-4).unwrap(),
///     "values differ: first at index [1, 1]: expected 4.0000, got 4.5000 (1 of 4 values differ)"
/// );
/// assert!(check_protocol::explain_difference(e, e, 0.0).is_none());
/// ```
pub fn explain_difference(expected: &str, got: &str, tolerance: f64) -> Option<String> {
    let plain = explain_plain(expected, got, tolerance)?;
    // A snapshot that declares its encoding (`encoding b*10000 + t*100 + c` on the line after
    // `shape`) gets the difference decoded too.
    let declared = expected
        .lines()
        .nth(1)
        .and_then(|l| l.strip_prefix("encoding "));
    match declared.and_then(Encoding::parse) {
        Some(enc) => Some(match explain_labelled(expected, got, &enc) {
            Some(decoded) if plain.starts_with("values differ") => decoded,
            Some(decoded) => format!("{plain}; {decoded}"),
            None => plain,
        }),
        None => Some(plain),
    }
}

fn explain_plain(expected: &str, got: &str, tolerance: f64) -> Option<String> {
    let mut e_lines = expected.trim_end().lines();
    let mut g_lines = got.trim_end().lines();
    let (e_head, g_head) = (e_lines.next().unwrap_or(""), g_lines.next().unwrap_or(""));
    if e_head.starts_with("shape ") && e_head != g_head {
        let g_shape = g_head.strip_prefix("shape ").unwrap_or(g_head);
        return Some(format!(
            "wrong shape: expected {}, got {g_shape}",
            &e_head["shape ".len()..]
        ));
    }
    if e_head != g_head {
        return Some(format!("expected `{e_head}`, got `{g_head}`"));
    }
    let mut e_rows: Vec<&str> = e_lines.collect();
    let mut g_rows: Vec<&str> = g_lines.collect();
    // A declared `encoding` line (right after `shape`) must match too, but holds no values.
    let declared = |rows: &[&str]| rows.first().is_some_and(|l| l.starts_with("encoding "));
    let mut head_lines = 1;
    if declared(&e_rows) || declared(&g_rows) {
        let (e_enc, g_enc) = (
            e_rows.first().copied().unwrap_or(""),
            g_rows.first().copied().unwrap_or(""),
        );
        if e_enc != g_enc {
            return Some(format!("expected `{e_enc}`, got `{g_enc}`"));
        }
        e_rows.remove(0);
        g_rows.remove(0);
        head_lines = 2;
    }
    if e_rows.len() != g_rows.len() {
        return Some(format!(
            "expected {} lines, got {}",
            e_rows.len() + head_lines,
            g_rows.len() + head_lines
        ));
    }
    let mut first: Option<String> = None;
    let (mut differing, mut total) = (0usize, 0usize);
    for (e_row, g_row) in e_rows.iter().zip(&g_rows) {
        let e_tok: Vec<&str> = e_row.split_whitespace().collect();
        let g_tok: Vec<&str> = g_row.split_whitespace().collect();
        if e_tok.len() != g_tok.len() {
            return Some(format!("expected `{e_row}`, got `{g_row}`"));
        }
        let label = e_tok.first().copied().filter(|t| t.starts_with('['));
        let skip = usize::from(label.is_some());
        for (col, (e, g)) in e_tok.iter().zip(&g_tok).enumerate().skip(skip) {
            total += 1;
            let same = match (e.parse::<f64>(), g.parse::<f64>()) {
                (Ok(a), Ok(b)) => (a - b).abs() <= tolerance || a.to_bits() == b.to_bits(),
                _ => e == g,
            };
            if !same {
                differing += 1;
                if first.is_none() {
                    let index = match label {
                        Some(l) => {
                            let inner = l.trim_start_matches('[').trim_end_matches(']');
                            let mut parts: Vec<String> = inner
                                .split(',')
                                .filter(|p| !p.is_empty())
                                .map(str::to_owned)
                                .collect();
                            parts.push((col - skip).to_string());
                            format!("[{}]", parts.join(", "))
                        }
                        None => format!("item {}", col + 1),
                    };
                    first = Some(format!("first at index {index}: expected {e}, got {g}"));
                }
            }
        }
    }
    first.map(|f| format!("values differ: {f} ({differing} of {total} values differ)"))
}

/// How the values of a labelled input tell where they sit: `b·10000 + t·100 + c` is the axes
/// `b`, `t`, `c` with the weights 10000, 100 and 1. Every index must stay below the next larger
/// weight divided by its own (`t < 100` here), so each value decodes to one position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoding {
    /// `(axis name, weight)`, largest weight first.
    axes: Vec<(String, u64)>,
}

impl Encoding {
    /// An encoding from `(name, weight)` pairs, e.g. `[("b", 10000), ("t", 100), ("c", 1)]`.
    /// `None` when a weight is 0 or two weights are equal.
    pub fn new(axes: &[(&str, u64)]) -> Option<Self> {
        let mut axes: Vec<(String, u64)> = axes.iter().map(|&(n, w)| (n.to_owned(), w)).collect();
        axes.sort_by_key(|a| std::cmp::Reverse(a.1));
        if axes.is_empty()
            || axes.iter().any(|a| a.1 == 0)
            || axes.windows(2).any(|w| w[0].1 == w[1].1)
        {
            return None;
        }
        Some(Self { axes })
    }

    /// `b·10000 + t·100 + c`: the `(B, T, C)` inputs of lessons 2 and 4 (`setup::labelled`).
    pub fn batch_time_channel() -> Self {
        Self::new(&[("b", 10000), ("t", 100), ("c", 1)]).expect("distinct weights")
    }

    /// `b·1000 + i·100 + t·10 + j`: the `(B, h, T, hs)` inputs of lessons 2, 3, 4 and 6
    /// (`b` sequence, `i` head, `t` position, `j` feature).
    pub fn batch_head_time_feature() -> Self {
        Self::new(&[("b", 1000), ("i", 100), ("t", 10), ("j", 1)]).expect("distinct weights")
    }

    /// Parses `b*10000 + t*100 + c` (also `·` for `*`; a bare name has weight 1).
    pub fn parse(text: &str) -> Option<Self> {
        let mut axes = Vec::new();
        for term in text.split('+') {
            let term = term.trim().replace('·', "*");
            let (name, weight) = match term.split_once('*') {
                Some((a, b)) => {
                    let (a, b) = (a.trim(), b.trim());
                    match (a.parse::<u64>(), b.parse::<u64>()) {
                        (Err(_), Ok(w)) => (a.to_owned(), w),
                        (Ok(w), Err(_)) => (b.to_owned(), w),
                        _ => return None,
                    }
                }
                None => (term.trim().to_owned(), 1),
            };
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return None;
            }
            axes.push((name, weight));
        }
        let pairs: Vec<(&str, u64)> = axes.iter().map(|(n, w)| (n.as_str(), *w)).collect();
        Self::new(&pairs)
    }

    /// The position a value encodes, `(name, index)` largest weight first; `None` when the value
    /// is not a non-negative integer or an index would overflow into the next axis.
    pub fn decode(&self, value: f64) -> Option<Vec<(&str, u64)>> {
        if !(value >= 0.0 && value.fract() == 0.0 && value < 1e15) {
            return None;
        }
        let mut rest = value as u64;
        let mut out = Vec::with_capacity(self.axes.len());
        for (k, (name, weight)) in self.axes.iter().enumerate() {
            let index = rest / weight;
            if k > 0 && index >= self.axes[k - 1].1 / weight {
                return None;
            }
            rest %= weight;
            out.push((name.as_str(), index));
        }
        (rest == 0).then_some(out)
    }

    /// `100 = (b 0, t 1, c 0)`, or just the value when it encodes no position.
    fn describe(&self, token: &str) -> String {
        let decoded = token.parse::<f64>().ok().and_then(|v| self.decode(v));
        match decoded {
            Some(parts) => {
                let parts: Vec<String> = parts.iter().map(|(n, i)| format!("{n} {i}")).collect();
                format!("{token} = ({})", parts.join(", "))
            }
            None => format!("{token} (no position of the input encodes it)"),
        }
    }

    /// The encoding written as `b·10000 + t·100 + c`.
    pub fn formula(&self) -> String {
        let terms: Vec<String> = self
            .axes
            .iter()
            .map(|(n, w)| {
                if *w == 1 {
                    n.clone()
                } else {
                    format!("{n}·{w}")
                }
            })
            .collect();
        terms.join(" + ")
    }
}

/// A snapshot's shape and its values in row-major order (the row labels and any `encoding`
/// line left out).
fn parse_tensor(text: &str) -> Option<(Vec<usize>, Vec<String>)> {
    let mut lines = text.trim_end().lines();
    let head = lines.next()?.strip_prefix("shape ")?;
    let inner = head.trim().strip_prefix('(')?.strip_suffix(')')?;
    let shape = inner
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().ok())
        .collect::<Option<Vec<usize>>>()?;
    let mut values = Vec::new();
    for line in lines {
        if line.starts_with("encoding ") {
            continue;
        }
        let mut tokens = line.split_whitespace().peekable();
        if tokens.peek().is_some_and(|t| t.starts_with('[')) {
            tokens.next();
        }
        values.extend(tokens.map(str::to_owned));
    }
    (values.len() == shape.iter().product::<usize>()).then_some((shape, values))
}

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1] * shape[k + 1];
    }
    s
}

/// Every permutation of `0..n` (n is at most 4 or 5 in a snapshot), the identity first.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for pos in (0..n).rev() {
            let mut q = p.clone();
            q.insert(pos, n - 1);
            out.push(q);
        }
    }
    out.sort();
    out
}

/// The axis permutation `p` (other than the identity) with `got[i] == expected[i permuted]`,
/// i.e. `got` is `expected.permuted_axes(p)` laid out in row-major order.
fn axis_permutation(
    shape_e: &[usize],
    e: &[String],
    shape_g: &[usize],
    g: &[String],
) -> Option<Vec<usize>> {
    if shape_e.len() > 6 {
        return None;
    }
    let se = strides(shape_e);
    permutations(shape_e.len()).into_iter().find(|p| {
        if p.iter().enumerate().all(|(k, &a)| k == a) {
            return false;
        }
        if p.iter().map(|&a| shape_e[a]).ne(shape_g.iter().copied()) {
            return false;
        }
        let sg = strides(shape_g);
        (0..g.len()).all(|flat| {
            let mut offset = 0;
            for (k, &a) in p.iter().enumerate() {
                offset += (flat / sg[k] % shape_g[k]) * se[a];
            }
            g[flat] == e[offset]
        })
    })
}

/// Explains a difference in a labelled tensor, whose every value encodes where it came from
/// (see [`Encoding`]): the first differing value of `got` decoded next to the expected one,
/// `expected 100 = (b 0, t 1, c 0), got 2 = (b 0, t 0, c 2)`, and, when the whole of `got` fits a
/// known pattern, what it is in plain words:
///
/// * `got` holds the input's values in their original row-major order: the input was reshaped
///   without moving the head axis (a split or merge without the transpose);
/// * `got` is the expected tensor with two or more axes swapped.
///
/// `None` when the two snapshots hold the same values or cannot be read as tensors.
///
/// ```ignore
/// let enc = Encoding::batch_time_channel();
/// let e = "shape (1, 2, 1, 2)\n[0,0,0] 0 1\n[0,1,0] 100 101\n";
/// let g = "shape (1, 2, 1, 2)\n[0,0,0] 0 1\n[0,1,0] 2 3\n";
/// assert!(explain_labelled(e, g, &enc).unwrap().starts_with(
///     "first at index [0, 1, 0, 0]: expected 100 = (b 0, t 1, c 0), got 2 = (b 0, t 0, c 2)"));
/// ```
pub fn explain_labelled(expected: &str, got: &str, encoding: &Encoding) -> Option<String> {
    let (shape_e, e) = parse_tensor(expected)?;
    let (shape_g, g) = parse_tensor(got)?;
    if shape_e == shape_g && e == g {
        return None;
    }
    let mut out = Vec::new();
    if shape_e == shape_g {
        let flat = e.iter().zip(&g).position(|(a, b)| a != b)?;
        let st = strides(&shape_e);
        let index: Vec<String> = (0..shape_e.len())
            .map(|k| (flat / st[k] % shape_e[k]).to_string())
            .collect();
        let differing = e.iter().zip(&g).filter(|(a, b)| a != b).count();
        out.push(format!(
            "first at index [{}]: expected {}, got {} ({differing} of {} values differ; \
             each input value encodes its position as {})",
            index.join(", "),
            encoding.describe(&e[flat]),
            encoding.describe(&g[flat]),
            e.len(),
            encoding.formula()
        ));
    }
    let mut sorted_e: Vec<f64> = e.iter().filter_map(|t| t.parse().ok()).collect();
    let g_num: Vec<f64> = g.iter().filter_map(|t| t.parse().ok()).collect();
    let mut sorted_g = g_num.clone();
    sorted_e.sort_by(f64::total_cmp);
    sorted_g.sort_by(f64::total_cmp);
    let same_values = sorted_e.len() == e.len() && g_num.len() == g.len() && sorted_e == sorted_g;
    if same_values && g_num.windows(2).all(|w| w[0] < w[1]) {
        out.push(
            "your output holds the input's values in their original order: the input was \
             reshaped without moving the head axis (a reshape never moves data; swap the head \
             and time axes with a permute, then make the layout standard)"
                .to_owned(),
        );
    } else if let Some(p) = axis_permutation(&shape_e, &e, &shape_g, &g) {
        let moved: Vec<String> = p
            .iter()
            .enumerate()
            .filter(|(k, a)| k != *a)
            .map(|(k, a)| format!("axis {k} holds what belongs on axis {a}"))
            .collect();
        out.push(format!(
            "your output is the expected one with its axes swapped: {}",
            moved.join(", ")
        ));
    } else if same_values {
        out.push("every expected value is there, in another order".to_owned());
    }
    (!out.is_empty()).then(|| out.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const E: &str = "shape (1, 2, 2)\n[0,0] 0.1000 0.2000\n[0,1] 0.3000 0.4000\n";

    #[test]
    fn within_tolerance_passes_and_beyond_fails() {
        let near = E.replace("0.4000", "0.4001");
        assert!(explain_difference(E, &near, TOLERANCE).is_none());
        assert!(explain_difference(E, &near, 0.0).is_some());
        let far = E.replace("0.3000", "0.3100");
        assert_eq!(
            explain_difference(E, &far, TOLERANCE).unwrap(),
            "values differ: first at index [0, 1, 0]: expected 0.3000, got 0.3100 (1 of 4 values differ)"
        );
    }

    #[test]
    fn shape_mismatch_is_reported_first() {
        let g = "shape (1, 1, 4)\n[0,0] 0.1000 0.2000 0.3000 0.4000\n";
        assert_eq!(
            explain_difference(E, g, TOLERANCE).unwrap(),
            "wrong shape: expected (1, 2, 2), got (1, 1, 4)"
        );
    }

    #[test]
    fn words_compare_exactly() {
        assert!(explain_difference("a b", "a c", 1.0).is_some());
        assert!(explain_difference("a b", "a b", 0.0).is_none());
        // Also in the rows under the first line, next to numbers.
        let e = "title\nalpha 1.0 beta\n";
        assert_eq!(
            explain_difference(e, "title\nalpha 1.0 gamma\n", 1.0).unwrap(),
            "values differ: first at index item 3: expected beta, got gamma (1 of 3 values differ)"
        );
        assert!(explain_difference(e, e, 0.0).is_none());
    }

    #[test]
    fn an_encoding_line_must_be_on_both_sides() {
        let e = "shape (2,)\nencoding b*1\n[] 0 1\n";
        let g = "shape (2,)\n[] 0 1\n";
        assert_eq!(
            explain_difference(e, g, 0.0).unwrap(),
            "expected `encoding b*1`, got `[] 0 1`"
        );
        assert_eq!(
            explain_difference(g, e, 0.0).unwrap(),
            "expected `[] 0 1`, got `encoding b*1`"
        );
    }
}

#[cfg(test)]
mod labelled_tests {
    use super::*;

    /// `split_heads(labelled(1, 2, 4), 2)`: `(B, h, T, hs) = (1, 2, 2, 2)`.
    const SPLIT: &str =
        "shape (1, 2, 2, 2)\n[0,0,0] 0 1\n[0,0,1] 100 101\n[0,1,0] 2 3\n[0,1,1] 102 103\n";
    /// The same input reshaped straight to `(1, 2, 2, 2)`: split without the transpose.
    const RESHAPED: &str =
        "shape (1, 2, 2, 2)\n[0,0,0] 0 1\n[0,0,1] 2 3\n[0,1,0] 100 101\n[0,1,1] 102 103\n";

    #[test]
    fn encodings_decode_positions() {
        let btc = Encoding::batch_time_channel();
        assert_eq!(
            btc.decode(10203.0),
            Some(vec![("b", 1), ("t", 2), ("c", 3)])
        );
        assert_eq!(btc.decode(0.0), Some(vec![("b", 0), ("t", 0), ("c", 0)]));
        assert_eq!(btc.decode(2.5), None, "not an integer");
        assert_eq!(btc.decode(-1.0), None);
        assert_eq!(btc.formula(), "b·10000 + t·100 + c");
        let heads = Encoding::batch_head_time_feature();
        assert_eq!(
            heads.decode(1213.0),
            Some(vec![("b", 1), ("i", 2), ("t", 1), ("j", 3)])
        );
        assert_eq!(Encoding::parse("b*10000 + t*100 + c"), Some(btc));
        assert_eq!(Encoding::parse("b·1000 + i·100 + t·10 + j"), Some(heads));
        assert_eq!(
            Encoding::parse("100*t + c"),
            Encoding::new(&[("t", 100), ("c", 1)])
        );
        assert_eq!(Encoding::parse("b*10 + t*10"), None, "equal weights");
        assert_eq!(Encoding::parse("b*x + c"), None);
        assert_eq!(Encoding::parse(""), None);
    }

    #[test]
    fn a_split_without_transpose_is_decoded_and_named() {
        let why = explain_labelled(SPLIT, RESHAPED, &Encoding::batch_time_channel()).unwrap();
        assert!(
            why.starts_with(
                "first at index [0, 0, 1, 0]: expected 100 = (b 0, t 1, c 0), \
                 got 2 = (b 0, t 0, c 2) (4 of 8 values differ"
            ),
            "{why}"
        );
        assert!(
            why.contains("reshaped without moving the head axis"),
            "{why}"
        );
        assert_eq!(
            explain_labelled(SPLIT, SPLIT, &Encoding::batch_time_channel()),
            None
        );
    }

    #[test]
    fn swapped_axes_are_named() {
        // Expected (2, 3) = b·100 + c; got is the (3, 2) transpose.
        let e = "shape (2, 3)\n[0] 0 1 2\n[1] 100 101 102\n";
        let g = "shape (3, 2)\n[0] 0 100\n[1] 1 101\n[2] 2 102\n";
        let enc = Encoding::parse("b*100 + c").unwrap();
        let why = explain_labelled(e, g, &enc).unwrap();
        assert_eq!(
            why,
            "your output is the expected one with its axes swapped: axis 0 holds what belongs \
             on axis 1, axis 1 holds what belongs on axis 0"
        );
        // B = h = 2 with the two leading axes swapped: same shape, values decoded first.
        let e = "shape (2, 2, 1)\n[0,0] 0\n[0,1] 100\n[1,0] 1000\n[1,1] 1100\n";
        let g = "shape (2, 2, 1)\n[0,0] 0\n[0,1] 1000\n[1,0] 100\n[1,1] 1100\n";
        let why = explain_labelled(e, g, &Encoding::batch_head_time_feature()).unwrap();
        assert!(why.starts_with("first at index [0, 1, 0]: expected 100 = (b 0, i 1, t 0, j 0), got 1000 = (b 1, i 0, t 0, j 0)"), "{why}");
        assert!(
            why.ends_with(
                "axis 0 holds what belongs on axis 1, axis 1 holds what belongs on axis 0"
            ),
            "{why}"
        );
    }

    #[test]
    fn values_that_encode_nothing_are_said_so() {
        let e = "shape (2,)\n[] 0 1\n";
        let g = "shape (2,)\n[] 0 1.5\n";
        let why = explain_labelled(e, g, &Encoding::batch_time_channel()).unwrap();
        assert!(
            why.contains("got 1.5 (no position of the input encodes it)"),
            "{why}"
        );
        assert!(!why.contains("original order"), "{why}");
    }

    #[test]
    fn explain_difference_decodes_a_declared_encoding() {
        let declare = |t: &str| t.replacen('\n', "\nencoding b*10000 + t*100 + c\n", 1);
        let why = explain_difference(&declare(SPLIT), &declare(RESHAPED), 0.0).unwrap();
        assert!(
            why.starts_with("first at index [0, 0, 1, 0]: expected 100 = (b 0, t 1, c 0)"),
            "{why}"
        );
        // Without a declaration the message is the plain one.
        assert_eq!(
            explain_difference(SPLIT, RESHAPED, 0.0).unwrap(),
            "values differ: first at index [0, 0, 1, 0]: expected 100, got 2 (4 of 8 values differ)"
        );
        // A wrong shape keeps its plain words and gets the pattern appended.
        let e = declare("shape (2, 3)\n[0] 0 1 2\n[1] 100 101 102\n");
        let g = "shape (3, 2)\n[0] 0 100\n[1] 1 101\n[2] 2 102\n";
        let why = explain_difference(&e, g, 0.0).unwrap();
        assert!(why.starts_with("wrong shape: expected (2, 3), got (3, 2); your output is the expected one with its axes swapped"), "{why}");
    }
}
