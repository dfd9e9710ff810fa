//! The container mode's build as a user of its own, [`BUILDER`]: `rustc` running as the grader
//! (root) could read every file of the machine, the course secret and the solutions included, at
//! a student's `include!`. The builder may read only what others may (the toolchain, the
//! registry) and what is its own: the submissions' target folder ([`give_tree`]) and its
//! [`world`] (build copies, homes). The grader's folders that lead to the target folder are
//! left passable, not listable, with every other entry in them closed ([`ways`]).

use std::path::{Path, PathBuf};

/// The builder's user (and group): no one else's, and never a check's (those start one above).
pub const BUILDER: u32 = crate::run::container::FIRST_UID - 1;

/// What to close and what to make passable so that the builder reaches each of `places` through
/// the `closed` folders, and every folder on the way to the `tools` (the toolchain, the
/// registry: `/root` is `0700`). On the way through a closed folder, each folder becomes passable
/// and every other entry in it closed: a check's user passing through finds nothing it may open.
pub fn ways(
    closed: &[&Path],
    places: &[PathBuf],
    tools: &[PathBuf],
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    use std::os::unix::fs::PermissionsExt as _;
    let places: Vec<PathBuf> = places.iter().map(|p| existing_canonical(p)).collect();
    let closed: Vec<PathBuf> = closed
        .iter()
        .filter_map(|c| c.canonicalize().ok())
        .collect();
    let (mut close, mut pass) = (Vec::new(), Vec::new());
    for place in &places {
        for from in closed
            .iter()
            .filter(|c| place.starts_with(c) && place != *c)
        {
            let mut dir = from.clone();
            for part in place
                .strip_prefix(from)
                .into_iter()
                .flat_map(Path::components)
            {
                let next = dir.join(part);
                pass.push(dir.clone());
                for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                    close.push(entry.path());
                }
                dir = next;
            }
        }
    }
    for tool in tools {
        let tool = existing_canonical(tool);
        for dir in tool.ancestors() {
            let mode = std::fs::metadata(dir).map(|m| m.permissions().mode());
            if mode.is_ok_and(|m| m & 0o001 == 0) {
                pass.push(dir.to_path_buf());
            }
        }
    }
    close.retain(|c| !pass.contains(c) && !places.iter().any(|p| p.starts_with(c)));
    close.sort();
    close.dedup();
    pass.sort();
    pass.dedup();
    (close, pass)
}

/// The first folder on the way to `place` that the builder could not pass through: closed to
/// other users and not among the folders `pass` opens (those of [`ways`]). A build there would
/// fail for every submission alike, which must stop the grading, not grade a class as not
/// compiling.
pub fn blocked_way(place: &Path, pass: &[PathBuf]) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let place = existing_canonical(place);
    let mut ancestors: Vec<&Path> = place.ancestors().skip(1).collect();
    ancestors.reverse();
    ancestors.into_iter().find_map(|dir| {
        let mode = std::fs::metadata(dir).ok()?.permissions().mode();
        (mode & 0o001 == 0 && !pass.iter().any(|p| p == dir)).then(|| dir.to_path_buf())
    })
}

/// The grader's folders closed to the checks' users for one grade in the container mode, until
/// the guard drops: `closed` (the course, its target folders, the grader's scratch root
/// `scratch`), with the way through them to the submissions' target folder `target` and to the
/// `tools` (the toolchain, the registry) left passable for the builder. Refused, before anything
/// is built, when the builder could not pass through a folder on the way to `target`.
pub fn close_for_grading(
    scratch: &Path,
    closed: &[&Path],
    target: &Path,
    tools: &[PathBuf],
) -> anyhow::Result<crate::run::closed::Closed> {
    let _ = std::fs::create_dir_all(target);
    let (close, pass) = ways(closed, &[target.to_path_buf()], tools);
    if let Some(dir) = blocked_way(target, &pass) {
        anyhow::bail!(
            "the container mode builds as a user of its own, which cannot pass through {} \
             (closed to other users) to reach the submissions' target folder {}: nothing \
             was graded\n  help: grade from a folder other users may pass through \
             (`chmod o+x` on it), or set CARGO_TARGET_DIR to one",
            dir.display(),
            target.display()
        );
    }
    let mut closed = closed.to_vec();
    closed.extend(close.iter().map(PathBuf::as_path));
    let pass: Vec<&Path> = pass.iter().map(PathBuf::as_path).collect();
    crate::run::closed::change_modes(scratch, &closed, &pass)
        .map_err(|e| anyhow::anyhow!("cannot close the grader's folders to the checks' users: {e}"))
}

/// The builder's own folder in the system's temporary folder (its build copies and homes),
/// made when missing: the builder's, closed to everyone else. Whatever else stands at its path
/// (a check's user may have put a folder or a link there) is removed first.
pub fn world() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let world = std::env::temp_dir().join("course-grader-builder");
    for _ in 0..3 {
        match std::fs::symlink_metadata(&world) {
            Ok(m) if m.is_dir() && m.uid() == BUILDER && m.mode() & 0o077 == 0 => return Ok(world),
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&world)?,
            Ok(_) => std::fs::remove_file(&world)?,
            Err(_) => {}
        }
        // Made by root, closed, then given: no one else can replace it in between (`/tmp` is
        // sticky) nor enter it.
        let mut dir = std::fs::DirBuilder::new();
        std::os::unix::fs::DirBuilderExt::mode(&mut dir, 0o700);
        if dir.create(&world).is_ok() {
            std::fs::set_permissions(&world, std::fs::Permissions::from_mode(0o700))?;
            std::os::unix::fs::lchown(&world, Some(BUILDER), Some(BUILDER))?;
            return Ok(world);
        }
    }
    Err(std::io::Error::other(format!(
        "cannot make the builder's folder {}",
        world.display()
    )))
}

/// A home of the builder's for one build, in its [`world`] (removed when dropped).
pub fn home() -> std::io::Result<tempfile::TempDir> {
    let home = tempfile::Builder::new()
        .prefix(&format!("{}-home-", std::process::id()))
        .tempdir_in(world()?)?;
    give_tree(home.path())?;
    Ok(home)
}

/// `path` canonical as far as it exists, the rest as written.
fn existing_canonical(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(found) = at.canonicalize() {
            return rest.iter().rev().fold(found, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Makes `dir` and everything beneath it the builder's (without following links), `dir` closed
/// to everyone else. Entries that are its already are left as they are.
pub fn give_tree(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
        let owner = entry.metadata().map(|m| (m.uid(), m.gid()));
        if owner.is_ok_and(|o| o != (BUILDER, BUILDER)) {
            std::os::unix::fs::lchown(entry.path(), Some(BUILDER), Some(BUILDER))?;
        }
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

/// Gives `dir` and everything beneath it back to this process's user when a container-mode
/// build left it the builder's: the Landlock mode's build is root only inside a user namespace,
/// where nothing of an unmapped user's may be written (the grader's tests grade one target
/// folder in both modes).
pub fn take_back(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt as _;
    let me = nix::unistd::geteuid().as_raw();
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.uid() == me) {
        return Ok(());
    }
    own_all(dir)
}

/// Gives everything at or beneath `path` that is not this process's user's to it (without
/// following links): builds kept aside by a container-mode build, moved back into a folder that
/// is already this user's (`crate::build::cargo_state::aside`).
pub fn own_all(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt as _;
    let me = (
        nix::unistd::geteuid().as_raw(),
        nix::unistd::getegid().as_raw(),
    );
    for entry in walkdir::WalkDir::new(path).into_iter().flatten() {
        if entry.metadata().is_ok_and(|m| (m.uid(), m.gid()) != me) {
            std::os::unix::fs::lchown(entry.path(), Some(me.0), Some(me.1))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_way_to_a_place_in_a_closed_folder_opens_nothing_else() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
        for sub in [
            "course/solutions",
            "course/target/debug",
            "course/target/submissions",
        ] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::write(root.join("course/course-secret"), "x").unwrap();
        let course = root.join("course");
        let target = root.join("course/target");
        let place = root.join("course/target/submissions");
        let tool = root.join("tools/bin/cargo");
        let (close, pass) = ways(&[&course, &target], std::slice::from_ref(&place), &[tool]);
        assert_eq!(pass, [course.clone(), target.clone()]);
        let rel: Vec<_> = close
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap())
            .collect();
        assert_eq!(
            rel,
            [
                Path::new("course/course-secret"),
                Path::new("course/solutions"),
                Path::new("course/target/debug"),
            ]
        );
        // A place yet to be made, beneath a folder of the toolchain others may not pass.
        let home = root.join("home");
        std::fs::create_dir_all(home.join("rust/bin")).unwrap();
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).unwrap();
        let (close, pass) = ways(
            &[&course],
            &[course.join("new/place")],
            &[home.join("rust/bin/x")],
        );
        assert!(pass.contains(&course) && pass.contains(&home), "{pass:?}");
        assert!(close.contains(&course.join("target")) && !close.contains(&course.join("new")));
    }

    #[test]
    fn a_folder_closed_to_others_on_the_way_to_the_build_is_named() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
        let clone = root.join("clone");
        let place = clone.join("target/submissions");
        std::fs::create_dir_all(&place).unwrap();
        assert_eq!(blocked_way(&place, &[]), None);
        // A folder made by `mktemp -d` (0700) above the course: the builder cannot pass it...
        std::fs::set_permissions(&clone, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(blocked_way(&place, &[]), Some(clone.clone()));
        // ... unless the grader opens it on the way ([`ways`]).
        assert_eq!(blocked_way(&place, std::slice::from_ref(&clone)), None);
        // Grading stops before any folder's mode is changed, naming the folder and what to do.
        let scratch = root.join("scratch");
        let err = close_for_grading(&scratch, &[], &place, &[]).unwrap_err();
        let message = err.to_string();
        assert!(message.contains(&clone.display().to_string()), "{message}");
        assert!(message.contains("chmod o+x"), "{message}");
        assert!(!scratch.exists(), "nothing was closed");
    }
}
