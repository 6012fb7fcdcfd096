//! Unguessable ids for requests, calls and handshakes, drawn from the page's entropy source in pools so that a burst
//! of calls costs one crossing into the browser. When the source fails, no id is made: an id of zeros, of the
//! bytes of an earlier draw or of the clock could be guessed, and a guessed call id answers or stops another
//! page's call.

use thiserror::Error;

use crate::ids::RequestId;

/// Where the session's random bytes come from: `crypto.getRandomValues` in the browser, a fixed sequence in tests.
pub trait Entropy {
    /// Fills `bytes` with random bytes, or says why it cannot (then none of `bytes` is used).
    fn fill(&mut self, bytes: &mut [u8]) -> Result<(), EntropyError>;
}

/// The page's source of random bytes gave none: what it said, in its words (in the browser,
/// `crypto.getRandomValues` threw).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("random numbers failed ({0})")]
pub struct EntropyError(pub String);

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
    /// characters fit the protocol's `requestId` rule. An error when the entropy source fails: then no id is made.
    pub fn request_id(&mut self, prefix: &str) -> Result<RequestId, EntropyError> {
        // Prefixes are ours and short, and the alphabet is within the id alphabet.
        self.text(prefix).map(RequestId::made)
    }

    fn text(&mut self, prefix: &str) -> Result<String, EntropyError> {
        if self.used + ID_BYTES > self.pool.len() {
            self.pool.resize(POOL_BYTES, 0);
            self.used = 0;
            if let Err(error) = self.entropy.fill(&mut self.pool) {
                // Whatever the failed draw left in the pool (zeros, the last draw's bytes) is no secret: the pool
                // is emptied, and the next id draws again.
                self.pool.clear();
                return Err(error);
            }
        }
        let text = id_text(prefix, &self.pool[self.used..self.used + ID_BYTES]);
        self.used += ID_BYTES;
        Ok(text)
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
    use std::cell::Cell;
    use std::rc::Rc;

    use super::{Entropy, EntropyError, IdSource, POOL_BYTES};

    struct Counter(u8);
    impl Entropy for Counter {
        fn fill(&mut self, bytes: &mut [u8]) -> Result<(), EntropyError> {
            for b in bytes {
                self.0 = self.0.wrapping_add(37);
                *b = self.0;
            }
            Ok(())
        }
    }

    #[test]
    fn ids_have_the_prefix_and_22_characters_and_differ() {
        let mut ids = IdSource::new(Box::new(Counter(0)));
        let a = ids.request_id("c_").unwrap();
        let b = ids.request_id("c_").unwrap();
        assert!(a.as_str().starts_with("c_"));
        assert_eq!(a.as_str().len(), 24);
        assert_ne!(a, b);
    }

    /// A xorshift while `working` is set; otherwise writes zeros and fails.
    struct Flaky {
        working: Rc<Cell<bool>>,
        next: u64,
    }
    impl Entropy for Flaky {
        fn fill(&mut self, bytes: &mut [u8]) -> Result<(), EntropyError> {
            if !self.working.get() {
                bytes.fill(0);
                return Err(EntropyError("the test's source failed".to_owned()));
            }
            for b in bytes {
                self.next ^= self.next << 13;
                self.next ^= self.next >> 7;
                self.next ^= self.next << 17;
                *b = (self.next >> 24) as u8;
            }
            Ok(())
        }
    }

    #[test]
    fn a_failed_draw_makes_no_id_neither_of_zeros_nor_of_an_earlier_draw() {
        let working = Rc::new(Cell::new(false));
        let mut ids = IdSource::new(Box::new(Flaky { working: working.clone(), next: 0x9E37_79B9_7F4A_7C15 }));
        assert_eq!(ids.request_id("c_"), Err(EntropyError("the test's source failed".to_owned())));
        working.set(true);
        let mut seen: Vec<_> = (0..POOL_BYTES / 16).map(|_| ids.request_id("c_").unwrap()).collect();
        // The pool is spent: the next id needs a draw, which fails, and the spent pool's ids are not made again.
        working.set(false);
        assert!(ids.request_id("c_").is_err());
        assert!(ids.request_id("c_").is_err());
        working.set(true);
        let fresh = ids.request_id("c_").unwrap();
        assert!(!seen.contains(&fresh), "{fresh} was made before");
        seen.push(fresh);
        assert!(seen.iter().all(|id| !id.as_str().contains("AAAAAAAA")), "an id of zeros: {seen:?}");
    }
}
