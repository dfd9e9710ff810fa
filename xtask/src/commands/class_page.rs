//! `cargo xtask class-page RDIR`: the feedback pages and the class page again, from the reports
//! (or, with `--merge`, from the reports folders of a class graded in parts);
//! `cargo xtask regrade-diff OLD_RDIR NEW_RDIR`: what a regrade changed, from two runs' reports.

use crate::cli::{ClassPageArgs, GradebookFormat};
use anyhow::Result;
use grader::course::Course;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `class-page` as `args` ask: the pages of a reports folder, or the merge of a class's parts.
pub fn command(root: &Path, course: &Course, args: ClassPageArgs) -> Result<ExitCode> {
    match args.merge {
        Some(parts) => merge(
            root,
            course,
            &args.dir,
            &parts,
            args.submissions,
            args.gradebook
                .map(|g| (g, args.gradebook_format.unwrap_or_default())),
        ),
        None => run(root, course, &args.dir, args.regrade_from.as_deref()),
    }
}

/// Writes the pages of the reports folder `dir`, with the course's comments (`comments.toml`)
/// and the regrade since `regrade_from`.
pub fn run(
    root: &Path,
    course: &Course,
    dir: &Path,
    regrade_from: Option<&Path>,
) -> Result<ExitCode> {
    let comments = grader::official::comments::Comments::load(root, course)?;
    let rows = grader::official::merge::class_rows(dir)?;
    grader::official::pages::run(dir, &rows, regrade_from, comments)?;
    Ok(ExitCode::SUCCESS)
}

/// Puts the class graded in the reports folders `parts` together into `dir`.
pub fn merge(
    root: &Path,
    course: &Course,
    dir: &Path,
    parts: &[PathBuf],
    submissions: Option<PathBuf>,
    gradebook: Option<(PathBuf, GradebookFormat)>,
) -> Result<ExitCode> {
    let comments = grader::official::comments::Comments::load(root, course)?;
    let outputs = grader::official::merge::Outputs {
        submissions,
        gradebook: gradebook.map(|(path, f)| (path, crate::commands::grade::gradebook_format(f))),
    };
    grader::official::merge::run(root, course, dir, parts, &outputs, comments)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints what changed from the reports in `old` to those in `new`.
pub fn regrade_diff(old: &Path, new: &Path) -> Result<ExitCode> {
    let diff = grader::official::pages::regrade(old, new)?;
    println!("Regrade from {} to {}:", old.display(), new.display());
    print!("{}", grader::official::regrade::render(&diff));
    Ok(ExitCode::SUCCESS)
}
