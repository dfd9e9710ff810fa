//! A Linux `/proc/PID/stat` (or `/proc/PID/task/TID/stat`) line, read past the command's name,
//! which may hold spaces and parentheses (`proc(5)`).

/// Index of the state letter (`R`, `S`, `Z` for a zombie, …) in [`fields`].
pub const STATE: usize = 0;
/// Index of the parent's process id in [`fields`].
pub const PPID: usize = 1;
/// Index of the process group in [`fields`].
pub const PGRP: usize = 2;
/// Index of the foreground process group of the process's terminal in [`fields`].
pub const TPGID: usize = 5;

/// The fields of the stat line `stat` after the command's name (the state first); none when the
/// line holds no name.
pub fn fields(stat: &str) -> Vec<&str> {
    (stat.rfind(')'))
        .map(|end| stat[end + 1..].split_whitespace().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_start_after_a_name_holding_spaces_and_parentheses() {
        let line = "4242 (a) b (c) S 1 4242 4242 34816 4300 4194560\n";
        let f = fields(line);
        assert_eq!(
            [f[STATE], f[PPID], f[PGRP], f[TPGID]],
            ["S", "1", "4242", "4300"]
        );
        assert!(fields("garbage").is_empty());
    }
}
