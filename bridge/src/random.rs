//! Unguessable ids from `crypto.getRandomValues`, drawn from a pool so that a burst of calls costs one crossing.

use std::cell::RefCell;

const POOL_BYTES: usize = 4096;
const ID_BYTES: usize = 16; // 128 bits: call ids, request ids, tab ids
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

struct Pool {
    bytes: Vec<u8>,
    used: usize,
}

thread_local! {
    static POOL: RefCell<Pool> = const { RefCell::new(Pool { bytes: Vec::new(), used: 0 }) };
}

fn fill(bytes: &mut [u8]) -> Result<(), crate::BridgeError> {
    let crypto = web_sys::window()
        .and_then(|w| w.crypto().ok())
        .ok_or(crate::BridgeError::Unsupported("crypto.getRandomValues"))?;
    crypto
        .get_random_values_with_u8_array(bytes)
        .map_err(|_| crate::BridgeError::Unsupported("crypto.getRandomValues"))?;
    Ok(())
}

/// `prefix` followed by 128 random bits in URL-safe base64 (22 characters), e.g. `c_6YV2n0cM1yqg1nq4cH3Wyw`.
/// The characters fit the protocol's `requestId` rule.
pub fn random_id(prefix: &str) -> Result<String, crate::BridgeError> {
    POOL.with(|pool| {
        let mut pool = pool.borrow_mut();
        if pool.bytes.len() < POOL_BYTES || pool.used + ID_BYTES > pool.bytes.len() {
            let mut fresh = vec![0u8; POOL_BYTES];
            fill(&mut fresh)?;
            pool.bytes = fresh;
            pool.used = 0;
        }
        let start = pool.used;
        pool.used += ID_BYTES;
        let mut id = String::with_capacity(prefix.len() + 22);
        id.push_str(prefix);
        let mut bits: u32 = 0;
        let mut count = 0;
        for &byte in &pool.bytes[start..start + ID_BYTES] {
            bits = (bits << 8) | u32::from(byte);
            count += 8;
            while count >= 6 {
                count -= 6;
                id.push(ALPHABET[((bits >> count) & 63) as usize] as char);
            }
        }
        if count > 0 {
            id.push(ALPHABET[((bits << (6 - count)) & 63) as usize] as char);
        }
        Ok(id)
    })
}

/// The session's entropy: `crypto.getRandomValues`, checked once when the bridge installs.
pub(crate) struct CryptoEntropy {
    crypto: web_sys::Crypto,
}

impl CryptoEntropy {
    pub fn new() -> Result<Self, crate::BridgeError> {
        let crypto = web_sys::window()
            .and_then(|w| w.crypto().ok())
            .ok_or(crate::BridgeError::Unsupported("crypto.getRandomValues"))?;
        let mut probe = [0u8; 16];
        crypto
            .get_random_values_with_u8_array(&mut probe)
            .map_err(|_| crate::BridgeError::Unsupported("crypto.getRandomValues"))?;
        Ok(Self { crypto })
    }
}

impl webmcp_policy::session::Entropy for CryptoEntropy {
    fn fill(&mut self, bytes: &mut [u8]) {
        // getRandomValues takes at most 65,536 bytes at a time.
        for chunk in bytes.chunks_mut(65_536) {
            let _ = self.crypto.get_random_values_with_u8_array(chunk);
        }
    }
}
