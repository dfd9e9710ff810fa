//! The stubs' convention: every exercise body starts as `todo!("NAME: what to write")`, so the
//! panic message `not yet implemented: NAME: what to write` names the function to implement.
//! The grader (a check that is not started yet) and the demos (a line not computed yet) both
//! read `NAME` back with [`todo_function`].

/// How Rust's `todo!()` starts its panic message.
pub const TODO_PREFIX: &str = "not yet implemented";

/// The function a `todo!()` panic message names: `NAME` in `not yet implemented: NAME: …` or
/// `not yet implemented: NAME`, a path such as `KvCache::append` included. `None` for a message
/// that is not a `todo!()`'s, a bare `todo!()`, or one whose text does not start with a name
/// followed by `:` (`todo!("write me")`).
pub fn todo_function(message: &str) -> Option<&str> {
    let rest = message.strip_prefix(TODO_PREFIX)?.strip_prefix(':')?;
    let rest = rest.trim_start();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut end = 0;
    loop {
        let ident = rest[end..]
            .find(|c: char| !is_ident(c))
            .map_or(rest.len(), |i| end + i);
        if ident == end {
            return None;
        }
        end = ident;
        match rest[end..].strip_prefix("::") {
            Some(next) if next.starts_with(is_ident) => end += 2,
            _ => break,
        }
    }
    let after = &rest[end..];
    (after.is_empty() || after.starts_with(':')).then(|| &rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_function_or_method_before_the_colon() {
        let name = todo_function;
        assert_eq!(
            name("not yet implemented: split_heads: reshape"),
            Some("split_heads")
        );
        assert_eq!(
            name("not yet implemented: split_heads"),
            Some("split_heads")
        );
        assert_eq!(
            name("not yet implemented: KvCache::append: write k and v at position len"),
            Some("KvCache::append")
        );
        assert_eq!(
            name("not yet implemented: KvCache::new"),
            Some("KvCache::new")
        );
        assert_eq!(name("not yet implemented"), None);
        assert_eq!(name("not yet implemented: write me"), None);
        assert_eq!(name("not yet implemented: KvCache::: odd"), Some("KvCache"));
        assert_eq!(name("not yet implemented: : nothing"), None);
        assert_eq!(name("index out of bounds: the len is 3"), None);
        assert_eq!(name("not yet implementedx: f"), None);
    }
}
