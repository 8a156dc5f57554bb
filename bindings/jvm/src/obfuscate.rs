//! Keyed, reversible obfuscation of IDs: keys and `Keyring`.

use std::sync::Arc;

use idmint_core as core;

use crate::convert::*;
use crate::errors::*;

/// A new key's text (`idmint-key-v<version>:<32 hex digits>`) from the OS random source.
#[uniffi::export]
pub fn key_generate(version: i32) -> Result<String> {
    let (v, given) = key_version(version);
    Ok(core::Key::generate(v)
        .map_err(|e| ffi_error(key_given(e, given)))?
        .to_text())
}

/// Obfuscation keys ([`idmint_core::Keyring`]): the highest version obfuscates, every version
/// reveals.
#[derive(Debug, uniffi::Object)]
pub struct Keyring(core::Keyring);

#[uniffi::export]
impl Keyring {
    /// Read a key file's text: one key a line, `#` comments and blank lines skipped.
    #[uniffi::constructor]
    pub fn parse(text: String) -> Result<Arc<Self>> {
        Ok(Arc::new(Keyring(core::Keyring::parse(&text).ffi()?)))
    }

    /// The versions held, ascending.
    pub fn versions(&self) -> Vec<i32> {
        self.0.versions().into_iter().map(i32::from).collect()
    }

    /// The version of the key that obfuscates.
    pub fn active_version(&self) -> i32 {
        i32::from(self.0.active().version())
    }

    /// Obfuscate with the active key; negative is `invalid_id`.
    pub fn obfuscate(&self, id: i64) -> Result<i64> {
        to_long(self.0.obfuscate(java_id(id)?).ffi()?)
    }

    /// Reveal a plain output made with key `version`.
    pub fn reveal(&self, version: i32, shown: i64) -> Result<i64> {
        let (v, given) = key_version(version);
        let shown = java_id(shown)?;
        to_long(
            self.0
                .reveal(v, shown)
                .map_err(|e| ffi_error(key_given(e, given)))?,
        )
    }

    /// Obfuscate with the active key into the 12-character tagged form.
    pub fn obfuscate_tagged(&self, id: i64) -> Result<String> {
        self.0.obfuscate_tagged(java_id(id)?).ffi()
    }

    /// Reveal the tagged form with the key it names.
    pub fn reveal_tagged(&self, text: String) -> Result<i64> {
        to_long(self.0.reveal_tagged(&text).ffi()?)
    }
}
