//! A fixed, fast hash for the exact-origin table.
//!
//! The std default (`RandomState`) draws random keys, which this crate avoids (it is deterministic), and SipHash
//! is slower than needed here. Flooding the table is not a concern: its keys come from the page's own
//! configuration, and a caller's origin is only ever looked up, never inserted.

use std::hash::{BuildHasherDefault, Hasher};

/// The build-hasher of the exact-origin table.
pub(crate) type FixedState = BuildHasherDefault<OriginHasher>;

/// Folds eight bytes at a time with a multiply-rotate step, and mixes the result with a 64-bit finalizer so that
/// every input bit reaches the high and low bits (the table uses both).
#[derive(Default)]
pub(crate) struct OriginHasher {
    state: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl OriginHasher {
    fn add(&mut self, word: u64) {
        self.state = (self.state.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for OriginHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let tail = chunks.remainder();
        if !tail.is_empty() {
            let mut word = [0u8; 8];
            word[..tail.len()].copy_from_slice(tail);
            self.add(u64::from_le_bytes(word) ^ ((tail.len() as u64) << 59));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn finish(&self) -> u64 {
        // The finalizer of MurmurHash3 (fmix64).
        let mut x = self.state;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }
}

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    use super::*;

    #[test]
    fn different_origins_hash_differently() {
        let state = FixedState::default();
        let texts = ["https://a.example", "https://b.example", "https://a.example:8443", "http://a.example", ""];
        let hashes: Vec<u64> = texts.iter().map(|t| state.hash_one(t)).collect();
        for (i, a) in hashes.iter().enumerate() {
            for b in &hashes[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(state.hash_one("https://a.example"), hashes[0], "the hash is fixed");
    }
}
