//! `cargo xtask class-page RDIR`: the feedback pages and the class page again, from the reports
//! (or, with `--merge`, from the reports folders of a class graded in parts);
//! `cargo xtask regrade-diff OLD_RDIR NEW_RDIR`: what a regrade changed, from two runs' reports.

use crate::cli::args::ClassPageArgs;
use anyhow::Result;
use grader::course::Course;
use std::path::Path;
use std::process::ExitCode;

/// `class-page` as `args` ask: the parts of a class merged first when given, then the pages of
/// the reports folder, with the course's comments (`comments.toml`), the late policy and the
/// regrade since `--regrade-from`.
pub fn command(root: &Path, course: &Course, args: ClassPageArgs) -> Result<ExitCode> {
    let comments = grader::official::comments::Comments::load(root, course)?;
    if let Some(parts) = &args.merge {
        let class = args.submissions.as_deref();
        grader::official::merge::run(root, course, &args.dir, parts, class)?;
    }
    grader::official::pages::run(
        &args.dir,
        (args.late.as_deref(), args.roster.as_deref()),
        args.regrade_from.as_deref(),
        comments,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Prints what changed from the reports in `old` to those in `new`.
pub fn regrade_diff(old: &Path, new: &Path) -> Result<ExitCode> {
    let diff = grader::official::pages::regrade(old, new)?;
    println!("Regrade from {} to {}:", old.display(), new.display());
    print!("{}", grader::official::regrade::render(&diff));
    Ok(ExitCode::SUCCESS)
}
