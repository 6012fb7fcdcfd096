//! Unguessable ids for requests, calls and handshakes, drawn from the page's entropy source in pools so that a burst
//! of calls costs one crossing into the browser.

use crate::ids::RequestId;

/// Where the session's random bytes come from: `crypto.getRandomValues` in the browser, a fixed sequence in tests.
pub trait Entropy {
    /// Fills `bytes` with random bytes.
    fn fill(&mut self, bytes: &mut [u8]);
}

const POOL_BYTES: usize = 4096;
/// 128 bits per id.
const ID_BYTES: usize = 16;
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Random ids from a pool of bytes.
pub(crate) struct IdSource {
    entropy: Box<dyn Entropy>,
    pool: Vec<u8>,
    used: usize,
}

impl IdSource {
    pub fn new(entropy: Box<dyn Entropy>) -> Self {
        Self { entropy, pool: Vec::new(), used: 0 }
    }

    /// `prefix` followed by 128 random bits in URL-safe base64 (22 characters), e.g. `c_6YV2n0cM1yqg1nq4cH3Wyw`; the
    /// characters fit the protocol's `requestId` rule.
    pub fn request_id(&mut self, prefix: &str) -> RequestId {
        // Prefixes are ours and short, and the alphabet is within the id alphabet.
        RequestId::made(self.text(prefix))
    }

    fn text(&mut self, prefix: &str) -> String {
        if self.pool.len() < POOL_BYTES || self.used + ID_BYTES > self.pool.len() {
            self.pool.resize(POOL_BYTES, 0);
            self.entropy.fill(&mut self.pool);
            self.used = 0;
        }
        let text = id_text(prefix, &self.pool[self.used..self.used + ID_BYTES]);
        self.used += ID_BYTES;
        text
    }
}

/// `prefix` followed by `bytes` in URL-safe base64 without padding (16 bytes make 22 characters).
pub fn id_text(prefix: &str, bytes: &[u8]) -> String {
    let mut text = String::with_capacity(prefix.len() + bytes.len().div_ceil(3) * 4);
    text.push_str(prefix);
    let mut bits: u32 = 0;
    let mut count = 0;
    for &byte in bytes {
        bits = (bits << 8) | u32::from(byte);
        count += 8;
        while count >= 6 {
            count -= 6;
            text.push(ALPHABET[((bits >> count) & 63) as usize] as char);
        }
    }
    if count > 0 {
        text.push(ALPHABET[((bits << (6 - count)) & 63) as usize] as char);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{Entropy, IdSource};

    struct Counter(u8);
    impl Entropy for Counter {
        fn fill(&mut self, bytes: &mut [u8]) {
            for b in bytes {
                self.0 = self.0.wrapping_add(37);
                *b = self.0;
            }
        }
    }

    #[test]
    fn ids_have_the_prefix_and_22_characters_and_differ() {
        let mut ids = IdSource::new(Box::new(Counter(0)));
        let a = ids.request_id("c_");
        let b = ids.request_id("c_");
        assert!(a.as_str().starts_with("c_"));
        assert_eq!(a.as_str().len(), 24);
        assert_ne!(a, b);
    }
}
