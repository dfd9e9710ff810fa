//! How Python prints booleans, strings and lists of strings, so demo lines read like the NumPy
//! lessons' output.
//!
//! ```
//! use pictures::py;
//! assert_eq!(py::bool(true), "True");
//! assert_eq!(py::strs(&["the", "keeper"]), "['the', 'keeper']");
//! assert_eq!(py::str("it's"), "\"it's\"");
//! ```

/// `True` or `False`.
pub fn bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// A string's `repr`: single quotes, or double quotes when it holds a single quote and no double
/// quote (backslashes and the chosen quote escaped).
pub fn str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// A list of strings as Python prints it: `['a', 'b']`.
pub fn strs<S: AsRef<str>>(items: &[S]) -> String {
    let inner: Vec<String> = items.iter().map(|s| str(s.as_ref())).collect();
    format!("[{}]", inner.join(", "))
}

/// A shape tuple as Python prints it: `(1, 8, 8)`, `(5,)`, `()`.
pub fn shape(dims: &[usize]) -> String {
    match dims {
        [d] => format!("({d},)"),
        _ => {
            let inner: Vec<String> = dims.iter().map(usize::to_string).collect();
            format!("({})", inner.join(", "))
        }
    }
}
