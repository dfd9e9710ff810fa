//! `xtask __container-like -- PROGRAM ARGS…`: runs a program the way a grading platform's
//! container would, for the grader's tests of its container mode (`crate::run::container`): a seccomp
//! filter, like a default container runtime's, answers Landlock's system calls with `ENOSYS` (a
//! kernel without Landlock) and `unshare` and `mount` with `EPERM` (no namespaces). The filter
//! holds for the program and everything it starts.

use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch};
use std::collections::BTreeMap;

/// Landlock's system calls, numbered alike on every architecture.
const LANDLOCK: [i64; 3] = [444, 445, 446];

/// Installs the filters and runs `command` in this process's place; returns an exit code only
/// when that fails.
pub fn main(command: &[String]) -> i32 {
    let refused = [
        (LANDLOCK.to_vec(), nix::libc::ENOSYS),
        (
            vec![nix::libc::SYS_unshare, nix::libc::SYS_mount],
            nix::libc::EPERM,
        ),
    ];
    for (calls, errno) in refused {
        if let Err(e) = install(&calls, errno) {
            eprintln!("container-like: cannot install the seccomp filter: {e}");
            return 2;
        }
    }
    let Some((program, args)) = command.split_first() else {
        eprintln!("container-like: no program to run");
        return 2;
    };
    let e =
        std::os::unix::process::CommandExt::exec(std::process::Command::new(program).args(args));
    eprintln!("container-like: cannot run {program}: {e}");
    2
}

/// A filter answering each of `calls` with `errno`, every other call allowed.
fn install(calls: &[i64], errno: i32) -> Result<(), String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let rules: BTreeMap<i64, Vec<seccompiler::SeccompRule>> =
        calls.iter().map(|&call| (call, Vec::new())).collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let program: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    seccompiler::apply_filter(&program).map_err(|e| e.to_string())
}
