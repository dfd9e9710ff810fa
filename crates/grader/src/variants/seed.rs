//! The seed of one student's variant of one exercise.

/// HMAC-SHA256 keyed by the course secret over `lesson ‖ exercise ‖ student` (each followed by a
/// zero byte, so no two triples give the same message), its first 8 bytes as a little-endian u64.
pub fn seed(secret: &[u8; 32], lesson: &str, exercise: &str, student: &str) -> u64 {
    let mut message = Vec::new();
    for part in [lesson, exercise, student] {
        message.extend_from_slice(part.as_bytes());
        message.push(0);
    }
    let mac = hmac_sha256::HMAC::mac(&message, secret);
    u64::from_le_bytes(mac[..8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_depend_on_every_part_and_the_secret() {
        let key = [7u8; 32];
        let s = seed(&key, "lesson02", "split_heads", "alice");
        assert_eq!(s, seed(&key, "lesson02", "split_heads", "alice"));
        assert_ne!(s, seed(&key, "lesson02", "split_heads", "bob"));
        assert_ne!(s, seed(&key, "lesson02", "merge_heads", "alice"));
        assert_ne!(s, seed(&[8u8; 32], "lesson02", "split_heads", "alice"));
        // The parts are delimited: moving a character from one to the next changes the seed.
        assert_ne!(seed(&key, "a", "bc", "d"), seed(&key, "ab", "c", "d"));
    }
}
