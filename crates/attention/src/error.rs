//! Shape errors that say what was expected and what arrived.
//!
//! Every function in the course that can receive a badly shaped tensor returns
//! [`Result<T>`](Result) and, on failure, a [`ShapeError`] whose message reads like
//! `split_heads: expected (B, T, C) with C divisible by h = 5, got (1, 6, 64)`.

use std::fmt;

/// A tensor (or a size parameter) did not have the shape an operation needs. `{:?}` prints the
/// same message as `{}`, so an `.unwrap()` on one (in a check, a demo or your own code) panics
/// with `split_heads: expected …, got …` rather than the struct's fields.
#[derive(Clone, PartialEq, Eq)]
pub struct ShapeError {
    /// The operation that refused the input, e.g. `"split_heads"`.
    pub operation: String,
    /// What the operation expected, in the lessons' shape names, e.g. `"(B, T, C) with C divisible by h = 5"`.
    pub expected: String,
    /// What it got, e.g. `"(1, 6, 64)"`.
    pub got: String,
}

/// `Result` with a [`ShapeError`].
pub type Result<T> = std::result::Result<T, ShapeError>;

impl ShapeError {
    /// An error for `operation` that expected `expected` and received an array of shape `got`.
    pub fn new(operation: &str, expected: impl Into<String>, got: &[usize]) -> Self {
        Self {
            operation: operation.to_owned(),
            expected: expected.into(),
            got: shape_string(got),
        }
    }

    /// An error whose "got" part is free text (for size parameters such as `C = 64, h = 5`).
    pub fn with_got(operation: &str, expected: impl Into<String>, got: impl Into<String>) -> Self {
        Self {
            operation: operation.to_owned(),
            expected: expected.into(),
            got: got.into(),
        }
    }
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: expected {}, got {}",
            self.operation, self.expected, self.got
        )
    }
}

impl fmt::Debug for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for ShapeError {}

/// Writes a shape the way NumPy prints one: `(1, 6, 64)`, `(5,)`, `()`.
pub fn shape_string(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(usize::to_string).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// Fails with a [`ShapeError`] unless `shape` has exactly `ndim` axes.
pub fn expect_ndim(operation: &str, names: &str, shape: &[usize], ndim: usize) -> Result<()> {
    if shape.len() == ndim {
        Ok(())
    } else {
        Err(ShapeError::new(
            operation,
            format!("a {ndim}-D array {names}"),
            shape,
        ))
    }
}

/// Fails with a [`ShapeError`] naming `what` of the `expected` shape unless `got` is exactly it
/// (`"q of shape (1, 2, 8, 4)"`).
pub fn expect_shape(operation: &str, what: &str, got: &[usize], expected: &[usize]) -> Result<()> {
    if got == expected {
        Ok(())
    } else {
        Err(ShapeError::new(
            operation,
            format!("{what} of shape {}", shape_string(expected)),
            got,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_is_expected_exactly() {
        assert!(expect_shape("f", "q", &[1, 2], &[1, 2]).is_ok());
        let e = expect_shape("f", "q", &[2, 1], &[1, 2]).unwrap_err();
        assert_eq!(e, ShapeError::new("f", "q of shape (1, 2)", &[2, 1]));
    }

    #[test]
    fn shapes_print_like_numpy() {
        assert_eq!(shape_string(&[]), "()");
        assert_eq!(shape_string(&[5]), "(5,)");
        assert_eq!(shape_string(&[1, 6, 64]), "(1, 6, 64)");
    }

    #[test]
    fn message_names_operation_expected_and_got() {
        let e = ShapeError::new("split_heads", "(B, T, C)", &[6, 64]);
        assert_eq!(
            e.to_string(),
            "split_heads: expected (B, T, C), got (6, 64)"
        );
        assert!(expect_ndim("f", "(B, T, C)", &[1, 2, 3], 3).is_ok());
        let e = expect_ndim("f", "(B, T, C)", &[1, 2], 3).unwrap_err();
        assert_eq!(
            e.to_string(),
            "f: expected a 3-D array (B, T, C), got (1, 2)"
        );
        // What `.unwrap()` on an `Err` prints reads the same.
        assert_eq!(format!("{e:?}"), e.to_string());
        assert_eq!(
            format!("{:?}", Err::<(), _>(e)),
            "Err(f: expected a 3-D array (B, T, C), got (1, 2))"
        );
    }
}
