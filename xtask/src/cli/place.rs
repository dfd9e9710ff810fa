//! Where the command line runs (a student handout, the repository from the student build or
//! from the full grader), and so which commands and flags it shows and takes.

use super::args::{Cli, Cmd, Platform};
use clap::CommandFactory as _;
use std::path::Path;

/// Where the command line runs, which decides the commands it shows and takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A student handout (no `solutions/`): only the student's commands are shown, and the
    /// instructors' are refused at once, before anything is built.
    Handout,
    /// The course repository, from the student build of the grader (`cargo xtask`): the
    /// student's commands, then one line naming the instructors' (the full grader is built the
    /// first time one runs).
    RepositoryStudentBuild,
    /// The course repository, from the full grader: every command.
    Repository,
}

impl Place {
    /// The place of the course at `root` (`None`: no course found) for this build of the grader.
    pub fn of(root: Option<&Path>) -> Place {
        match root {
            Some(root) if !root.join("solutions").is_dir() => Place::Handout,
            _ if cfg!(feature = "instructor") => Place::Repository,
            _ => Place::RepositoryStudentBuild,
        }
    }
}

/// The commands only instructors run, as typed.
pub const INSTRUCTOR_COMMANDS: &[&str] = &[
    "bless",
    "check",
    "new",
    "new-exercise",
    "dist",
    "manifest",
    "secret",
    "similarity",
    "class-page",
    "regrade-diff",
    "gradebook",
    "autograder",
];

/// The flags of `grade` that only instructors use, or that need `solutions/` (clap's ids).
const INSTRUCTOR_GRADE_FLAGS: &[&str] = &[
    "solutions",
    "plant",
    "submission",
    "submissions",
    "build_timeout",
    "allow_unsandboxed",
    "keep",
    "student",
    "gradebook",
    "gradebook_format",
    "roster",
    "missing",
    "late",
    "reports",
    "similarity_threshold",
    "similarity_exercises",
    "shard",
];

/// What the command line is, for a student.
const STUDENT_ABOUT: &str = "The course's grader: grade your exercises, run the worked examples, \
                             get hints, and put code or course files back as handed out.";

/// `grade --help` for a student (the reference solutions and official grading left out).
const GRADE_LONG_ABOUT: &str = "Grade your exercises, check by check, each judged by the grader.\n\n\
     Exits 0 only at full marks. Grading never writes or accepts snapshots. A mistyped lesson or \
     exercise name is refused (exit status 2) with the closest name: `did you mean ...?`.";

/// The command line as `place` shows it: the instructors' commands and flags hidden from a
/// student's help (they still parse, to be refused with a message that says why).
pub fn command(place: Place) -> clap::Command {
    let mut cmd = Cli::command();
    if place == Place::Repository {
        return cmd;
    }
    for name in INSTRUCTOR_COMMANDS {
        cmd = cmd.mut_subcommand(*name, |c| c.hide(true));
    }
    cmd = cmd.about(STUDENT_ABOUT).long_about(None);
    cmd = cmd.mut_subcommand("grade", |mut g| {
        for flag in INSTRUCTOR_GRADE_FLAGS {
            g = g.mut_arg(*flag, |a| a.hide(true));
        }
        g.about("Grade your exercises, check by check, each judged by the grader")
            .long_about(GRADE_LONG_ABOUT)
    });
    // The reference solution is not in a handout.
    cmd = cmd.mut_subcommand("demo", |d| {
        d.mut_arg("solutions", |a| a.hide(true))
            .mut_arg("compare", |a| a.hide(true))
            .about("Run a lesson's worked example with your code and print it like the text")
    });
    if place == Place::RepositoryStudentBuild {
        let note = format!(
            "\n\nInstructors, in the course repository: {} (`cargo xtask <command> --help`; the \
             first one builds the full grader).",
            INSTRUCTOR_COMMANDS.join(", ")
        );
        let after = cmd
            .get_after_help()
            .map(ToString::to_string)
            .unwrap_or_default();
        cmd = cmd.after_help(after + &note);
    }
    cmd
}

/// Why `command` cannot run at `place`, as the error to print: an instructors' command, or the
/// reference solution, in a student handout. `None` when it can run.
pub fn refused(place: Place, command: &Cmd) -> Option<String> {
    if place != Place::Handout {
        return None;
    }
    let in_handout = "a student handout has no solutions/ and no instructors' files";
    if let Some(name) = instructor_command(command) {
        return Some(format!(
            "`cargo xtask {name}` is an instructors' command: it runs in the course repository, \
             and {in_handout}\n  help: `cargo xtask --help` lists your commands"
        ));
    }
    let (what, instead) = match command {
        Cmd::Demo {
            solutions: true,
            lesson,
            ..
        } => (
            "`demo --solutions` runs the reference solution",
            format!("`cargo xtask demo {lesson}` runs the worked example with your code"),
        ),
        Cmd::Grade(g) if g.solutions => (
            "`grade --solutions` grades the reference solutions",
            "`cargo xtask grade` grades your exercises".to_owned(),
        ),
        _ => return None,
    };
    Some(format!(
        "{what}, which is not in a student handout ({in_handout})\n  help: {instead}"
    ))
}

/// The name of an instructors' command, as typed (`grade` with an instructors' flag included).
fn instructor_command(command: &Cmd) -> Option<&'static str> {
    Some(match command {
        Cmd::Bless { .. } => "bless",
        Cmd::Check { .. } => "check",
        Cmd::New { .. } => "new",
        Cmd::NewExercise { .. } => "new-exercise",
        Cmd::Dist { .. } => "dist",
        Cmd::Manifest => "manifest",
        Cmd::Secret { .. } => "secret",
        Cmd::Similarity { .. } => "similarity",
        Cmd::ClassPage(_) => "class-page",
        Cmd::RegradeDiff { .. } => "regrade-diff",
        Cmd::Gradebook { .. } => "gradebook",
        Cmd::Autograder {
            platform: Platform::Gradescope { .. },
        } => "autograder gradescope",
        Cmd::Autograder {
            platform: Platform::Github { .. },
        } => "autograder github",
        Cmd::Grade(g) if g.submission.is_some() => "grade --submission",
        Cmd::Grade(g) if g.submissions.is_some() => "grade --submissions",
        Cmd::Grade(g) if g.plant.is_some() => "grade --plant",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::FromArgMatches as _;

    fn help(place: Place) -> String {
        command(place).render_long_help().to_string()
    }

    fn subcommand_help(place: Place, name: &str) -> String {
        let mut cmd = command(place);
        cmd.build();
        cmd.find_subcommand_mut(name)
            .unwrap()
            .render_long_help()
            .to_string()
    }

    /// The command names `--help` lists, one per line of its `Commands:` section.
    fn listed(help: &str) -> Vec<String> {
        help.split("Commands:")
            .nth(1)
            .unwrap()
            .split("\n\n")
            .next()
            .unwrap()
            .lines()
            .filter_map(|l| l.strip_prefix("  "))
            .filter(|l| !l.starts_with(' '))
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn a_students_help_lists_only_the_students_commands() {
        let all = listed(&help(Place::Repository));
        for name in INSTRUCTOR_COMMANDS {
            assert!(all.iter().any(|c| c == name), "{name} not in {all:?}");
        }
        for place in [Place::Handout, Place::RepositoryStudentBuild] {
            let shown = listed(&help(place));
            assert_eq!(
                shown,
                ["grade", "demo", "hint", "list", "watch", "reset", "help"],
                "{place:?}"
            );
            let grade = subcommand_help(place, "grade");
            for flag in ["--submission", "--plant", "--solutions", "--gradebook"] {
                assert!(!grade.contains(flag), "{place:?}: {flag} in\n{grade}");
            }
            assert!(grade.contains("--brief"), "{grade}");
            let demo = subcommand_help(place, "demo");
            assert!(!demo.contains("--solutions") && !demo.contains("--compare"));
        }
        // The student build in the repository names the instructors' commands in a line of
        // their own; a handout does not.
        assert!(
            help(Place::RepositoryStudentBuild)
                .contains("Instructors, in the course repository: bless,")
        );
        assert!(!help(Place::Handout).contains("Instructors"));
        assert!(!help(Place::Handout).contains("(instructors)"));
        for place in [Place::Handout, Place::RepositoryStudentBuild] {
            let text =
                help(place) + &subcommand_help(place, "grade") + &subcommand_help(place, "demo");
            for word in ["reference", "instructors' tools", "submission"] {
                assert!(!text.contains(word), "{place:?}: `{word}` in\n{text}");
            }
        }
    }

    fn parse(place: Place, args: &[&str]) -> Cmd {
        let matches = command(place)
            .try_get_matches_from(std::iter::once("xtask").chain(args.iter().copied()))
            .unwrap();
        Cli::from_arg_matches(&matches).unwrap().command
    }

    #[test]
    fn a_handout_refuses_the_instructors_commands_and_the_reference_at_once() {
        let refusal = |args: &[&str]| refused(Place::Handout, &parse(Place::Handout, args));
        for (args, says) in [
            (
                &["bless", "--check"][..],
                "`cargo xtask bless` is an instructors' command",
            ),
            (
                &["manifest"],
                "`cargo xtask manifest` is an instructors' command",
            ),
            (
                &["grade", "--submissions", "x"],
                "`cargo xtask grade --submissions`",
            ),
            (
                &["autograder", "gradescope", "x.zip"],
                "autograder gradescope",
            ),
            (
                &["demo", "1", "--solutions"],
                "`demo --solutions` runs the reference solution",
            ),
            (
                &["grade", "--solutions"],
                "`cargo xtask grade` grades your exercises",
            ),
        ] {
            let text = refusal(args).unwrap_or_else(|| panic!("{args:?} not refused"));
            assert!(text.contains(says), "{args:?}: {text}");
            assert!(text.contains("\n  help: "), "{text}");
        }
        // The student's commands, and the GitHub Classroom steps a student's CI runs.
        for args in [
            &["grade", "1"][..],
            &["demo", "1"],
            // The demo says the reference is missing and draws the student's heads.
            &["demo", "1", "--compare"],
            &["reset", "--course-files", "--yes"],
            &["autograder", "classroom-result", "r.json"],
        ] {
            assert_eq!(refusal(args), None, "{args:?}");
        }
        // In the course repository nothing is refused here.
        let bless = parse(Place::Repository, &["bless"]);
        assert_eq!(refused(Place::Repository, &bless), None);
        assert_eq!(refused(Place::RepositoryStudentBuild, &bless), None);
    }

    #[test]
    fn a_course_without_solutions_is_a_handout() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Place::of(Some(dir.path())), Place::Handout);
        std::fs::create_dir(dir.path().join("solutions")).unwrap();
        let repository = if cfg!(feature = "instructor") {
            Place::Repository
        } else {
            Place::RepositoryStudentBuild
        };
        assert_eq!(Place::of(Some(dir.path())), repository);
        assert_eq!(Place::of(None), repository);
    }
}
