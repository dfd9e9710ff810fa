//! Whether a lesson's code can keep state from one call to the next inside a process. Local
//! grading runs such a lesson's checks one per process, as official grading does: in a shared
//! process ([`crate::run::grouped`]) each check would start from what the checks before it left (a
//! cache that forgets part of its key hands one check the answer of another), and its verdict
//! could differ from the one it gets alone.

use crate::course::{Lesson, Side};
use std::path::Path;

/// The identifiers through which safe Rust code keeps state for the whole process: a `static`
/// (a cache in a `Mutex` or a `OnceLock`, a counter in an atomic; declared anywhere, even in a
/// function or a macro's body), `thread_local!`, the panic hook, the working directory and the
/// environment; and `include`/`path`, through which code from a file not read here is compiled.
/// (`unsafe`, the other way, is refused outright: [`crate::course::refused`].)
const KEEPS_STATE: &[&str] = &[
    "static",
    "thread_local",
    "set_hook",
    "take_hook",
    "set_current_dir",
    "set_var",
    "remove_var",
    // Code compiled from another file than the lesson's own: `include!("…")` and `#[path = "…"]
    // mod …;` can take it from another lesson's `src/` (official grading takes every lesson's, and
    // local grading fails anything from further away: `crate::build::outside_sources`), which is not
    // read here. A lesson that does either is graded one check per process, whatever that file
    // holds (`path` also matches `std::path`: graded more slowly, never otherwise).
    "include",
    "path",
];

/// Whether `lesson`'s code in the course at `root` (`src/**` of its exercises' crate, or its
/// solutions' on that `side`) can keep state between calls.
pub fn keeps_state(root: &Path, lesson: &Lesson, side: Side) -> bool {
    let src = lesson.crate_dir(root, side).join("src");
    crate::course::tokens::first_in_files(&src, KEEPS_STATE).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Option<&'static str> {
        crate::course::tokens::first_ident(text, KEEPS_STATE)
            .ok()
            .flatten()
            .map(|i| KEEPS_STATE[i])
    }

    #[test]
    fn every_way_to_keep_state_is_found_and_lifetimes_are_not() {
        for (text, how) in [
            (
                "fn f() { static SEEN: AtomicUsize = AtomicUsize::new(0); }",
                "static",
            ),
            (
                "static CACHE: Mutex<Option<Array3<f64>>> = Mutex::new(None);",
                "static",
            ),
            (
                "macro_rules! cache { () => { static C: u8 = 0; } }",
                "static",
            ),
            (
                "thread_local! { static C: Cell<u8> = Cell::new(0) }",
                "thread_local",
            ),
            (
                "fn f() { std::panic::set_hook(Box::new(|_| {})); }",
                "set_hook",
            ),
            ("fn f() { let _ = std::panic::take_hook(); }", "take_hook"),
            (
                "fn f() { std::env::set_current_dir(\"/\").ok(); }",
                "set_current_dir",
            ),
            (
                "include!(\"../../lesson02-split-heads/src/cache.rs\");",
                "include",
            ),
            ("#[path = \"../../l/src/c.rs\"]\nmod c;", "path"),
        ] {
            assert_eq!(found(text), Some(how), "{text}");
        }
        for text in [
            "pub fn words() -> &'static [&'static str] { &[\"static\"] }",
            "// a static cache would be wrong here\nfn f(x: &dyn Any + 'static) {}",
            "fn f() -> Vec<f64> { vec![0.0; 3] }",
            "const TABLE: &str = include_str!(\"table.txt\");",
        ] {
            assert_eq!(found(text), None, "{text}");
        }
    }

    #[test]
    fn each_side_is_read_from_its_own_crate() {
        let root = tempfile::tempdir().unwrap();
        let lesson = crate::course::fixture().lessons.remove(0);
        let src = lesson.crate_dir(root.path(), Side::Exercises).join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("lib.rs"), "pub fn f() -> &'static str { \"\" }").unwrap();
        assert!(!keeps_state(root.path(), &lesson, Side::Exercises));
        std::fs::write(src.join("cache.rs"), "static C: u8 = 0;").unwrap();
        assert!(keeps_state(root.path(), &lesson, Side::Exercises));
        assert!(!keeps_state(root.path(), &lesson, Side::Solutions));
    }
}
