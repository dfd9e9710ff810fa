//! A check's message as a person reads it. Checks write raw `f64`s (`off by
//! 7.278639849618757e-1`, `got [-1.252916746356904, …]`) because the grader compares the messages
//! of a failure and of a known misconception number by number, and an `assert_eq!` on arrays
//! prints ndarray's `Debug`, memory layout included; the tables shorten the numbers the way the
//! course prints them and keep only an array's shape. The JSON report keeps every message as the
//! check wrote it.

/// More significant digits than this mark a number with a fraction or an exponent as a raw
/// `f64`; shorter ones (`0.0890`, `5e-5`) and integers (a shape, a line number, a byte count)
/// were written for people and are left alone.
const RAW_DIGITS: usize = 8;

/// `text` for people: ndarray's layout details dropped ([`without_layout`]), each raw `f64`
/// shortened ([`short_numbers`]) and control characters made visible ([`printable`]).
pub fn readable(text: &str) -> String {
    printable(&short_numbers(&without_layout(text)))
}

/// `text` with every character of [`hidden_effect`] written out as an escape (`\u{1b}`, `\r`,
/// `\u{202e}`): a student's message, compiler output or file name printed to a terminal
/// must not move the cursor, clear the screen or rewrite a line (a forged `Total: 26/26` over
/// the real one in an instructor's terminal).
pub fn printable(text: &str) -> String {
    if !text.chars().any(hidden_effect) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden_effect(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A character a terminal obeys rather than shows ([`crate::report::student_text::hidden_effect`]) other
/// than a line feed or a tab, which a multi-line message keeps.
fn hidden_effect(c: char) -> bool {
    c != '\n' && c != '\t' && crate::report::student_text::hidden_effect(c)
}

/// `text` without the layout ndarray's `Debug` prints after an array's shape (`, strides=[16, 4,
/// 1], layout=Cc (0x5), const ndim=3`); the array and its `shape=[…]` are kept.
fn without_layout(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(", strides=[") {
        out.push_str(&rest[..at]);
        let layout = &rest[at..];
        match layout_len(layout) {
            Some(len) => rest = &layout[len..],
            None => {
                out.push_str(", strides=[");
                rest = &layout[", strides=[".len()..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The length of `, strides=[…], layout=… (0x…), const ndim=N` (or `dynamic ndim=N`) at the start
/// of `text`, if that is what starts it. Each part is read only as far as the characters it can
/// hold, so a message full of unclosed `, strides=[` costs linear time, not a scan to its end per
/// occurrence (a check's message is the student's to write, up to megabytes).
fn layout_len(text: &str) -> Option<usize> {
    let skip =
        |s: &'_ str, allowed: fn(char) -> bool| s.len() - s.trim_start_matches(allowed).len();
    let strides = text.strip_prefix(", strides=[")?;
    let strides =
        strides[skip(strides, |c| c.is_ascii_digit() || ", -".contains(c))..].strip_prefix(']')?;
    let layout = strides.strip_prefix(", layout=")?;
    let layout = layout[skip(layout, |c| c.is_ascii_alphanumeric() || " (".contains(c))..]
        .strip_prefix(')')?;
    let ndim = layout
        .strip_prefix(", const ndim=")
        .or_else(|| layout.strip_prefix(", dynamic ndim="))?;
    let digits = skip(ndim, |c| c.is_ascii_digit());
    (digits > 0).then(|| text.len() - ndim.len() + digits)
}

/// `text` with each raw `f64` shortened: 4 decimals (`-1.2529`), or 4 significant digits when it
/// was written in scientific notation (`7.278639849618757e-1` becomes `0.7279`) or is too small
/// for 4 decimals (`0.000000001234567891` becomes `1.235e-9`). Everything else is kept byte for
/// byte.
fn short_numbers(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let after_word =
            i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || b"_.".contains(&bytes[i - 1]));
        if !bytes[i].is_ascii_digit() || after_word {
            i += 1;
            continue;
        }
        let (end, digits, fraction, scientific) = scan_number(bytes, i);
        let ends_word = bytes
            .get(end)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
        if digits > RAW_DIGITS
            && (fraction || scientific)
            && !ends_word
            && let Ok(value) = text[i..end].parse::<f64>()
        {
            out.push_str(&text[copied..i]);
            out.push_str(&if scientific || (value != 0.0 && value < 1e-3) {
                significant(value)
            } else {
                format!("{value:.4}")
            });
            copied = end;
        }
        i = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// `value` to 4 significant digits: as a decimal between 0.001 and 10000 (`0.7279`, `2.771`),
/// in scientific notation otherwise (`1.235e-12`).
fn significant(value: f64) -> String {
    let magnitude = value.abs();
    if (1e-3..1e4).contains(&magnitude) {
        let decimals = (3 - magnitude.log10().floor() as i32).max(0) as usize;
        format!("{value:.decimals$}")
    } else {
        format!("{value:.3e}")
    }
}

/// The number starting at `start` (a digit): where it ends, its significant digits, whether it
/// has a fraction and whether an exponent. A `.` or `e` not followed by a digit is not part of it
/// (`… by 2.`).
fn scan_number(bytes: &[u8], start: usize) -> (usize, usize, bool, bool) {
    let digit_at = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let mut end = start;
    while digit_at(end) {
        end += 1;
    }
    let fraction = bytes.get(end) == Some(&b'.') && digit_at(end + 1);
    if fraction {
        end += 1;
        while digit_at(end) {
            end += 1;
        }
    }
    let significant = bytes[start..end]
        .iter()
        .skip_while(|b| matches!(b, b'0' | b'.'))
        .filter(|b| b.is_ascii_digit())
        .count();
    let mut scientific = false;
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(bytes.get(end + 1), Some(b'-' | b'+')));
        if digit_at(end + 1 + sign) {
            scientific = true;
            end += 1 + sign;
            while digit_at(end) {
                end += 1;
            }
        }
    }
    (end, significant, fraction, scientific)
}

#[cfg(test)]
mod tests {
    use super::{printable, readable};

    #[test]
    fn control_characters_are_written_out_but_lines_and_tabs_kept() {
        let forged = "wrong\x1b[2J\x1b[H\rTotal: 26/26\u{7}\u{9b}\n\tnext line";
        assert_eq!(
            printable(forged),
            "wrong\\u{1b}[2J\\u{1b}[H\\rTotal: 26/26\\u{7}\\u{9b}\n\tnext line"
        );
        assert_eq!(printable("plain ✓ text\n"), "plain ✓ text\n");
        assert_eq!(printable("0/26\u{202e}62/0"), "0/26\\u{202e}62/0");
        assert!(!readable(forged).contains('\x1b'));
    }

    #[test]
    fn raw_floats_are_shortened_and_everything_else_kept() {
        assert_eq!(
            readable(
                "query head 1 (kv head 0): off by 7.278639849618757e-1 (weights), 9.086395518830761e-1 (output)"
            ),
            "query head 1 (kv head 0): off by 0.7279 (weights), 0.9086 (output)"
        );
        assert_eq!(
            readable(
                "runs from -1.8084 to 3.1573, got [-1.252916746356904, 0.016294890565896704, 1.724400560916695]"
            ),
            "runs from -1.8084 to 3.1573, got [-1.2529, 0.0163, 1.7244]"
        );
        assert_eq!(readable("by 2.7705825630984817e0."), "by 2.771.");
        assert_eq!(readable("by 1.2345678901234e3"), "by 1235");
        assert_eq!(readable("tiny: 1.2345678901e-12"), "tiny: 1.235e-12");
        assert_eq!(readable("tiny: 0.000000001234567891"), "tiny: 1.235e-9");
        assert_eq!(readable("huge: 1.2345678901e5"), "huge: 1.235e5");
        // Written for people: left alone, byte for byte.
        // ndarray's layout after the shape is dropped, the values and the shape kept.
        assert_eq!(
            readable(
                "left: [[true, false],\n [true, true]], shape=[2, 2], strides=[2, 1], layout=Cc (0x5), const ndim=2\n\
                 right: [0.5, 0.25], shape=[2], strides=[1], layout=CFcf (0xf), dynamic ndim=1"
            ),
            "left: [[true, false],\n [true, true]], shape=[2, 2]\nright: [0.5, 0.25], shape=[2]"
        );
        // A message is the student's to write: megabytes of unclosed layouts and numbers are read
        // in one pass (a scan to the end per `, strides=[` took minutes at this size).
        let bomb = "0.123456789012345, strides=[1, 2 ".repeat(250_000);
        let shortened = readable(&bomb);
        assert_eq!(shortened, "0.1235, strides=[1, 2 ".repeat(250_000));
        for kept in [
            "a lookalike, strides=[1], and no layout",
            "cut short, strides=[1], layout=Cc (0x5), const ndim=",
            "values differ: first at index [0, 1, 0]: expected 0.0890, got 0.2399 (12 of 24 values differ)",
            "tolerance 5e-5, shape (1, 6, 16), exercises/lesson07-kv-cache/src/exercises.rs:91",
            "lesson07 version 1.2.3 at 0x7ffd1234 and 123456789012 bytes",
            "a5.123456789012 x_0.123456789012",
            "",
        ] {
            assert_eq!(readable(kept), kept);
        }
    }
}
