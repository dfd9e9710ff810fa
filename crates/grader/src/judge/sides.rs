//! A failed `assert_eq!` of a check says `left` and `right`, as std's does; the table names
//! each side by the expression the check compared, and, when one side is a literal, which one
//! is the student's result and which the expected value (the checks' convention: the value
//! computed first, the expected one second). Only the verdict's message changes: the check's
//! observation, which misconceptions are matched against, keeps the check's own words.

/// Longest expression shown whole; a longer one is cut with `…`.
const MAX_EXPR: usize = 60;

/// `message` of the failed assertion `label` with its sides named, or `message` as it is when it
/// is not a comparison's (`assertion `left OP right` failed…`) or the label cannot be split.
pub fn labelled(label: &str, message: &str) -> String {
    let Some(op) = ["==", "!="]
        .into_iter()
        .find(|op| message.starts_with(&format!("assertion `left {op} right` failed")))
    else {
        return message.to_owned();
    };
    let parts: Vec<&str> = label.split(&format!(" {op} ")).collect();
    let (Some(start), Some(end), [left, right]) = (
        message.find("\n  left: "),
        message.rfind("\n right: "),
        parts.as_slice(),
    ) else {
        return message.to_owned();
    };
    if end <= start {
        return message.to_owned();
    }
    let header = &message[..start];
    let left_value = &message[start + "\n  left: ".len()..end];
    let right_value = &message[end + "\n right: ".len()..];
    let (left_name, right_name) = match (op, literal(left), literal(right)) {
        ("==", false, true) => (format!("yours, `{}`", cut(left)), "expected".to_owned()),
        ("==", true, false) => ("expected".to_owned(), format!("yours, `{}`", cut(right))),
        _ => (
            format!("left, `{}`", cut(left)),
            format!("right, `{}`", cut(right)),
        ),
    };
    format!("{header}\n  {left_name}: {left_value}\n  {right_name}: {right_value}")
}

/// True for an expression that is a value written out (`16`, `0.0`, `&[1, 8, 8]`, `"a"`,
/// `["c", "a"]`, `true`): no name, no call.
fn literal(expr: &str) -> bool {
    let expr = expr.trim().trim_start_matches('&').trim_start();
    if expr == "true" || expr == "false" {
        return true;
    }
    let first = expr.chars().next();
    let starts = first.is_some_and(|c| c.is_ascii_digit() || "-[\"'".contains(c));
    starts
        && !expr.contains('(')
        && !expr
            .split(|c: char| "\"'".contains(c))
            .step_by(2)
            .any(|outside| {
                outside
                    .chars()
                    .any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
            })
}

/// `expr` cut to [`MAX_EXPR`] characters.
fn cut(expr: &str) -> String {
    if expr.chars().count() <= MAX_EXPR {
        return expr.to_owned();
    }
    let kept: String = expr.chars().take(MAX_EXPR - 1).collect();
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use super::*;
    use check_protocol::observe::comparison_failed;

    #[test]
    fn the_students_side_and_the_expected_one_are_named() {
        let message = comparison_failed("==", None, &8, &16);
        assert_eq!(
            labelled("head_size(64, 4).unwrap() == 16", &message),
            "assertion `left == right` failed\n  yours, `head_size(64, 4).unwrap()`: 8\n  expected: 16"
        );
        let message = comparison_failed("==", Some("h = 2: exactly".into()), &1.5, &0.0);
        assert_eq!(
            labelled("max == 0.0", &message),
            "assertion `left == right` failed: h = 2: exactly\n  yours, `max`: 1.5\n  expected: 0.0"
        );
        let shape: &[usize] = &[1, 8];
        let message = comparison_failed("==", None, &[1usize, 4].as_slice(), &shape);
        assert!(
            labelled("sums.shape() == &[1, 8]", &message)
                .ends_with("yours, `sums.shape()`: [1, 4]\n  expected: [1, 8]")
        );
        let message = comparison_failed("==", None, &["c"], &["a"]);
        assert!(
            labelled("[\"a\"] == focus", &message)
                .contains("  expected: [\"c\"]\n  yours, `focus`: [\"a\"]")
        );
    }

    #[test]
    fn two_computed_sides_are_named_by_their_expressions() {
        let message = comparison_failed("==", None, &"a\nb", &"c");
        let long = "x".repeat(80);
        let text = labelled(&format!("split(view, 2) == {long}"), &message);
        assert!(
            text.contains("\n  left, `split(view, 2)`: \"a\\nb\"\n"),
            "{text}"
        );
        assert!(
            text.contains(&format!("  right, `{}…`: \"c\"", "x".repeat(59))),
            "{text}"
        );
        // Another assertion's message, or a label that does not split in two, is left alone.
        assert_eq!(
            labelled("a == b", "rows must sum to 1"),
            "rows must sum to 1"
        );
        let message = comparison_failed("==", None, &true, &false);
        assert_eq!(labelled("(a == b) == c", &message), message);
        assert!(!literal("q * 0.5") && !literal("array![[1.0]]") && !literal("w.len()"));
        assert!(
            literal("1e-12") && literal("&[1, 8, 8]") && literal("\"abc\"") && literal("false")
        );
    }
}
