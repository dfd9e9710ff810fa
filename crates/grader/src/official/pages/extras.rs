//! What the pages show beyond the class's reports, when the instructors ask for it.

/// The optional parts of the pages.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// The regrade since an older run: the old reports folder as given, and the diff
    /// (`class-page --regrade-from`).
    pub regrade: Option<(String, crate::official::regrade::Diff)>,
    /// The instructors' comments (`comments.toml`): on the page of each student they apply to,
    /// and counted on the class page.
    pub comments: crate::official::comments::Comments,
}
