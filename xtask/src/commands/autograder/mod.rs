//! `cargo xtask autograder …`: set-ups for the platforms schools already grade on: the Gradescope
//! bundle ([`gradescope`]), and GitHub Classroom's workflows ([`github`]) with the two commands
//! they run, `classroom-result` (a JSON report as the points Classroom reads) and
//! `classroom-feedback` (a student's feedback, posted by the grading workflow).

pub mod github;
#[cfg(feature = "instructor")]
pub mod gradescope;
mod toolchain;

use crate::cli::Platform;
use anyhow::Result;
use grader::course::Course;
use std::path::Path;
use std::process::ExitCode;

/// Runs an autograder command.
pub fn run(root: &Path, course: &Course, platform: Platform) -> Result<ExitCode> {
    match platform {
        #[cfg(not(feature = "instructor"))]
        Platform::Gradescope { .. } | Platform::GradescopeStudent { .. } => {
            unreachable!("relaunched with the instructor feature")
        }
        #[cfg(feature = "instructor")]
        Platform::Gradescope { out } => {
            let n = gradescope::bundle(root, &out)?;
            println!(
                "wrote the Gradescope autograder to {} ({n} files; Rust {})\n\
                 it holds the course secret (course/{}): upload it to Gradescope only, which keeps \
                 it from students",
                out.display(),
                toolchain::toolchain(root),
                grader::variants::secret::FILE
            );
        }
        #[cfg(feature = "instructor")]
        Platform::GradescopeStudent { metadata } => {
            println!("{}", gradescope::student_id(&metadata)?);
        }
        Platform::Github {
            out_dir,
            deadline,
            shards,
        } => {
            let written = github::write(root, course, &out_dir, deadline.as_deref(), shards)?;
            println!(
                "wrote the students' template workflow to {}\n\
                 wrote the instructors' grading workflow to {}\n\
                 it reads the course secret from the Actions secret COURSE_SECRET of the \
                 instructors' repository: `gh secret set COURSE_SECRET < {}` there (never in the \
                 template)",
                written.template.display(),
                written.grading.display(),
                grader::variants::secret::FILE
            );
        }
        Platform::ClassroomFeedback { report } => {
            print!("{}", github::classroom_feedback(&report)?);
        }
        Platform::ClassroomResult { report, log } => {
            let log = log.and_then(|p| std::fs::read_to_string(p).ok());
            println!(
                "result={}",
                github::classroom_result(course, &report, log.as_deref())
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
