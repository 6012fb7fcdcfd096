//! Randomness from `crypto.getRandomValues`: the tab's ids (tab.rs) and the session's entropy (request and call
//! ids, drawn by the session in pools).

/// 128 bits.
const ID_BYTES: usize = 16;

fn fill(bytes: &mut [u8]) -> Result<(), crate::BridgeError> {
    let crypto = web_sys::window()
        .and_then(|w| w.crypto().ok())
        .ok_or(crate::BridgeError::Unsupported("crypto.getRandomValues"))?;
    crypto
        .get_random_values_with_u8_array(bytes)
        .map_err(|_| crate::BridgeError::Unsupported("crypto.getRandomValues"))?;
    Ok(())
}

/// `prefix` followed by 128 random bits in URL-safe base64 (22 characters), written as the session writes its ids.
pub fn random_id(prefix: &str) -> Result<String, crate::BridgeError> {
    let mut bytes = [0u8; ID_BYTES];
    fill(&mut bytes)?;
    Ok(interpane_policy::session::id_text(prefix, &bytes))
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

impl interpane_policy::session::Entropy for CryptoEntropy {
    fn fill(&mut self, bytes: &mut [u8]) {
        // getRandomValues takes at most 65,536 bytes at a time.
        for chunk in bytes.chunks_mut(65_536) {
            let _ = self.crypto.get_random_values_with_u8_array(chunk);
        }
    }
}
