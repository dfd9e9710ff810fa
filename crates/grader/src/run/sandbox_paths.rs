//! Which of the system's folders a sandboxed process may read ([`SYSTEM`]). Landlock cannot take
//! back part of a grant (a rule on `/opt` would open a course kept there to a student's build),
//! so a system folder holding what must stay closed ([`private_paths`]) is opened entry by entry
//! instead ([`open_system`]); a grader running as root also hides what only root may read
//! ([`owner_only`]).

use std::path::{Path, PathBuf};

/// Paths every process needs to read and execute: the dynamic loader, libc, the system's
/// programs (a build runs `cc`), configuration, `/proc` (its other processes are off limits to a
/// Landlock domain anyway: no ptrace or `/proc/<pid>/mem` outside it) and, of `/dev`, the devices
/// that hold no one's data. Not the rest of `/dev`: a process of a grader running as root opened
/// `kvm`, `hwrng`, `loop0`, `tty0` and `console` from the sandbox while all of `/dev` was open
/// (and a disk would open the same way where the machine lets root read it), nor `/dev/shm`.
pub const SYSTEM: &[&str] = &[
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/bin",
    "/sbin",
    "/etc",
    "/proc",
    "/sys",
    "/opt",
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// What the system's folders must not open, wherever it lies: the course this grader runs in
/// (its solutions and hidden checks) and its target folder (every submission's build), the
/// grader's scratch folders (pristine copies, other checks' private folders) and `more` (a
/// policy's own: the folder of the executable a check runs).
///
/// A grader running as root adds what only root may read in the configuration folders
/// ([`owner_only`] of `/etc` and `/opt`): its sandboxed processes keep root's user id for file
/// permissions (a new user namespace changes no one's ownership), so without this a check read
/// `/etc/shadow` (and would have read the machine's SSH host keys) and could print it in the
/// feedback a student gets.
pub fn private_paths(more: &[PathBuf]) -> Vec<PathBuf> {
    // The same for every sandbox a grading run starts (hundreds): found once per process.
    static GRADERS: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    let graders = GRADERS.get_or_init(|| {
        let mut out = vec![crate::fsutil::scratch_root()];
        if let Ok(root) = crate::course::layout::root() {
            out.push(crate::course::layout::target_dir(&root, None));
            out.push(root);
        }
        #[cfg(target_os = "linux")]
        if nix::unistd::geteuid().is_root() {
            out.extend(owner_only(&["/etc", "/opt"]));
        }
        out
    });
    graders.iter().chain(more).cloned().collect()
}

/// The entries beneath `roots` that a user other than their owner and group could not read: files
/// without read permission for others, folders without search permission for others (not walked
/// further). Symbolic links are not followed: what they point to is judged where it lies.
pub fn owner_only(roots: &[&str]) -> Vec<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    for root in roots {
        let mut walk = walkdir::WalkDir::new(root).into_iter();
        while let Some(entry) = walk.next() {
            let Ok(entry) = entry else { continue };
            let Ok(meta) = entry.metadata() else { continue };
            let mode = meta.permissions().mode();
            if meta.is_dir() && mode & 0o001 == 0 {
                walk.skip_current_dir();
                out.push(entry.into_path());
            } else if meta.is_file() && mode & 0o004 == 0 {
                out.push(entry.into_path());
            }
        }
    }
    out
}

/// The folders and files to open for reading in place of `system`: each system folder as it is
/// (its canonical path: `/lib` may be `/usr/lib`) when none of `hidden` lies beneath it, else its
/// entries, the same way, one level at a time, except the entry on the way to a hidden path, which
/// is left out when it is hidden itself and opened entry by entry otherwise. Symbolic links among
/// the entries are left out: a rule follows them (a link to `/` would open everything), and what
/// they point to is reached through its own folder's rule, as with a rule on the whole folder.
/// Paths that do not exist are left out too.
pub fn open_system(system: &[&str], hidden: &[PathBuf]) -> Vec<PathBuf> {
    let hidden: Vec<PathBuf> = hidden
        .iter()
        .filter_map(|h| h.canonicalize().ok())
        .collect();
    let mut out = Vec::new();
    let mut todo: Vec<PathBuf> = system
        .iter()
        .filter_map(|s| Path::new(s).canonicalize().ok())
        .collect();
    while let Some(path) = todo.pop() {
        if hidden.iter().any(|h| path.starts_with(h)) {
            continue;
        }
        if !hidden.iter().any(|h| h.starts_with(&path)) {
            out.push(path);
            continue;
        }
        // A strict ancestor of a hidden path (so a folder): its entries instead, each deeper than
        // it, so this ends after as many levels as the deepest hidden path has.
        let Ok(entries) = std::fs::read_dir(&path) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| !t.is_symlink()) {
                todo.push(entry.path());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::open_system;
    use std::path::{Path, PathBuf};

    fn tree(root: &Path, files: &[&str]) {
        for f in files {
            let path = root.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
    }

    fn names(paths: &[PathBuf], root: &Path) -> Vec<String> {
        paths
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn what_others_may_not_read_is_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                "passwd",
                "shadow",
                "ssh/ssh_config",
                "ssh/host_key",
                "locked/inside",
            ],
        );
        let mode = |rel: &str, m: u32| {
            std::fs::set_permissions(root.join(rel), std::fs::Permissions::from_mode(m)).unwrap()
        };
        mode("passwd", 0o644);
        mode("shadow", 0o640);
        mode("ssh/ssh_config", 0o644);
        mode("ssh/host_key", 0o600);
        mode("locked", 0o750);
        std::os::unix::fs::symlink(root.join("shadow"), root.join("link")).unwrap();
        let mut closed = super::owner_only(&[root.to_str().unwrap()]);
        closed.sort();
        assert_eq!(names(&closed, root), ["locked", "shadow", "ssh/host_key"]);
    }

    #[test]
    fn a_system_folder_holding_a_private_one_is_opened_around_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        tree(
            &root,
            &[
                "dev/null",
                "dev/shm/other/file",
                "dev/shm/course/solutions/lesson01/src/exercises.rs",
                "dev/shm/course/exercises/lesson01/src/lib.rs",
                "dev/shm/note",
                "usr/lib/libc.so",
                "usr/lib/secret/key",
                "home/course/course.toml",
            ],
        );
        // A link to the private course, and one to the root of it all: neither is opened.
        std::os::unix::fs::symlink(root.join("dev/shm/course"), root.join("dev/course")).unwrap();
        std::os::unix::fs::symlink(&root, root.join("dev/shm/everything")).unwrap();
        let dev = root.join("dev");
        let usr = root.join("usr");
        let missing = root.join("missing");
        let system = [
            dev.to_str().unwrap(),
            usr.to_str().unwrap(),
            missing.to_str().unwrap(),
        ];
        let hidden = [root.join("dev/shm/course"), root.join("nowhere")];
        assert_eq!(
            names(&open_system(&system, &hidden), &root),
            ["dev/null", "dev/shm/note", "dev/shm/other", "usr"]
        );
        // Nothing private beneath them: the folders as they are.
        assert_eq!(
            names(&open_system(&system, &[root.join("home/course")]), &root),
            ["dev", "usr"]
        );
        // A system folder that is a link is opened where it leads, around what is private there.
        std::os::unix::fs::symlink(root.join("usr/lib"), root.join("lib")).unwrap();
        let lib = root.join("lib");
        assert_eq!(
            names(
                &open_system(&[lib.to_str().unwrap()], &[root.join("usr/lib/secret")]),
                &root
            ),
            ["usr/lib/libc.so"]
        );
        // A private folder that holds a system folder closes it.
        assert_eq!(
            names(&open_system(&system, &[root.join("dev")]), &root),
            ["usr"]
        );
    }
}
