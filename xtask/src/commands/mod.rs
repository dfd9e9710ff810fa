//! One file per command. Each takes its parsed flags, the course root and the course, and returns
//! the exit status.

pub mod autograder;
#[cfg(feature = "instructor")]
pub mod bless;
#[cfg(feature = "instructor")]
pub mod check;
#[cfg(feature = "instructor")]
pub mod class_page;
pub mod demo;
#[cfg(feature = "instructor")]
pub mod dist;
pub mod grade;
#[cfg(feature = "instructor")]
pub mod gradebook;
pub mod hint;
pub mod list;
#[cfg(feature = "instructor")]
pub mod manifest;
#[cfg(feature = "instructor")]
pub mod new_exercise;
#[cfg(feature = "instructor")]
pub mod own_tests;
pub mod reset;
#[cfg(feature = "instructor")]
pub mod scaffold;
#[cfg(feature = "instructor")]
pub mod secret;
#[cfg(feature = "instructor")]
pub mod similarity;
pub mod watch;

use crate::cli::Cmd;
use anyhow::Result;
use grader::course::{Course, layout};
use std::process::ExitCode;

/// Runs `command` in the course around the current directory.
pub fn run(command: Cmd) -> Result<ExitCode> {
    let root = layout::root()?;
    #[cfg(not(feature = "instructor"))]
    if crate::instructor::needs_instructor(&command) {
        return crate::instructor::relaunch(&root);
    }
    let course = Course::load(&root)?;
    match command {
        Cmd::Grade(args) => grade::run(&root, &course, args),
        #[cfg(feature = "instructor")]
        Cmd::Bless {
            lesson,
            check,
            dry_run,
        } => Ok(crate::exit_status::exit(bless::run(
            &root,
            &course,
            lesson.as_deref(),
            check,
            dry_run,
        )?)),
        #[cfg(feature = "instructor")]
        Cmd::Check { lesson, jobs } => Ok(crate::exit_status::exit(check::run(
            &root,
            &course,
            lesson.as_deref(),
            crate::cli::jobs_or_cores(jobs),
        )?)),
        #[cfg(feature = "instructor")]
        Cmd::New { slug, title } => {
            scaffold::run(&root, &course, &slug, &title)?;
            Ok(ExitCode::SUCCESS)
        }
        #[cfg(feature = "instructor")]
        Cmd::NewExercise { lesson, name } => {
            new_exercise::run(&root, &course, &lesson, &name)?;
            Ok(ExitCode::SUCCESS)
        }
        #[cfg(feature = "instructor")]
        Cmd::ClassPage(args) => class_page::command(&root, &course, args),
        #[cfg(feature = "instructor")]
        Cmd::RegradeDiff { old, new } => class_page::regrade_diff(&old, &new),
        #[cfg(feature = "instructor")]
        command @ Cmd::Gradebook { .. } => gradebook::run(command),
        #[cfg(feature = "instructor")]
        Cmd::Dist { out_dir } => dist::run(&root, &course, &out_dir),
        #[cfg(feature = "instructor")]
        Cmd::Secret { replace } => secret::run(&root, replace),
        #[cfg(feature = "instructor")]
        Cmd::Similarity {
            dir,
            threshold,
            exercises,
            output,
        } => similarity::run(&root, &course, &dir, threshold, exercises, output),
        Cmd::Demo {
            lesson,
            solutions,
            compare,
            svg,
        } => demo::command(
            &root,
            &course,
            &lesson,
            demo::Options {
                solutions,
                compare,
                svg,
            },
        ),
        Cmd::Hint {
            exercise,
            all,
            reset,
        } => {
            print!("{}", hint::hint(&root, &course, &exercise, all, reset)?);
            Ok(ExitCode::SUCCESS)
        }
        Cmd::List => list::run(&root, &course),
        Cmd::Watch { lesson, demo } => Ok(ExitCode::from(watch::run(
            &root,
            &course,
            &watch::Options { lesson, demo },
        )?)),
        Cmd::Reset {
            what,
            course_files,
            yes,
        } => reset::run(&root, &course, what.as_deref(), course_files, yes),
        Cmd::Autograder { platform } => autograder::run(&root, &course, platform),
        #[cfg(feature = "instructor")]
        Cmd::Manifest => manifest::run(&root, &course),
        Cmd::Sandbox(_) => unreachable!("main parses `__sandbox` before the command line"),
        #[cfg(all(target_os = "linux", feature = "instructor"))]
        Cmd::ContainerLike { .. } => unreachable!("handled before the course is read"),
        // The instructors' commands (`instructor::needs_instructor`).
        #[cfg(not(feature = "instructor"))]
        _ => unreachable!("relaunched with the instructor feature"),
    }
}
