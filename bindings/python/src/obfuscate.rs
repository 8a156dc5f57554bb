//! `idmint.Key`, `idmint.Keyring` and `idmint.split_tagged`: keyed, reversible obfuscation of
//! 63-bit IDs.

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use idmint_core as core;

use crate::convert::{fit, id63};
use crate::errors::{wrong_type, IntoPy};

/// Call the core with a key version given in Python. A version that does not fit the core's
/// `u8` is passed as 255, which `Key::new` refuses and no key ring holds, and is shown as given
/// in the core's error.
fn with_version<T>(
    version: &Bound<'_, PyAny>,
    call: impl FnOnce(u8) -> core::Result<T>,
) -> PyResult<T> {
    let (v, given) = fit("version", version, u8::MAX)?;
    call(v)
        .map_err(|e| match (e, given) {
            (core::Error::InvalidKey { reason, .. }, Some(g)) => core::Error::InvalidKey {
                key: format!("v{g}"),
                reason,
            },
            (e, _) => e,
        })
        .py()
}

/// A 128-bit obfuscation key and the version (0..=61) that names it. Its `repr` never shows
/// the secret; `to_text()` does.
#[pyclass(frozen, module = "idmint", name = "Key")]
pub struct Key {
    inner: core::Key,
}

#[pymethods]
impl Key {
    /// Read the key text `idmint-key-v<version>:<32 hex digits>`.
    #[new]
    fn new(text: &str) -> PyResult<Self> {
        Self::from_text(text)
    }

    /// Read the key text `idmint-key-v<version>:<32 hex digits>`.
    #[staticmethod]
    fn from_text(text: &str) -> PyResult<Self> {
        Ok(Key {
            inner: core::Key::parse(text).py()?,
        })
    }

    /// A new key from the OS random source.
    #[staticmethod]
    #[pyo3(signature = (version = None))]
    fn generate(version: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(Key {
            inner: generate(version)?,
        })
    }

    #[getter]
    fn version(&self) -> u8 {
        self.inner.version()
    }

    /// The 16 secret bytes.
    #[getter]
    fn secret<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.bytes())
    }

    /// The key text, secret included: what a key file holds, one key a line.
    fn to_text(&self) -> String {
        self.inner.to_text()
    }

    fn __repr__(&self) -> String {
        format!("Key(version={}, ...)", self.inner.version())
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let same = other
            .cast::<Key>()
            .ok()
            .map(|o| self.inner == o.get().inner);
        crate::convert::eq_only(other.py(), same, op)
    }
}

fn generate(version: Option<&Bound<'_, PyAny>>) -> PyResult<core::Key> {
    match version {
        // The CLI's default (`idmint keygen`).
        None => core::Key::generate(1).py(),
        Some(v) => with_version(v, core::Key::generate),
    }
}

/// Keys for rotation: the highest version obfuscates, every version reveals.
#[pyclass(frozen, module = "idmint", name = "Keyring")]
pub struct Keyring {
    inner: core::Keyring,
}

#[pymethods]
impl Keyring {
    /// A key ring of `keys` (`Key`s or key texts): at least one, versions distinct.
    #[new]
    fn new(keys: &Bound<'_, PyAny>) -> PyResult<Self> {
        if keys.is_instance_of::<PyString>() {
            return Err(wrong_type(
                "keys",
                "an iterable of Key or key texts (use Keyring.from_text for a key file's text)",
                keys,
            ));
        }
        let mut all = Vec::new();
        for k in keys.try_iter()? {
            let k = k?;
            if let Ok(key) = k.cast::<Key>() {
                all.push(key.get().inner.clone());
            } else if let Ok(text) = k.cast::<PyString>() {
                all.push(core::Key::parse(text.to_str()?).py()?);
            } else {
                return Err(wrong_type("keys", "Key objects or key texts (str)", &k));
            }
        }
        Ok(Keyring {
            inner: core::Keyring::new(all).py()?,
        })
    }

    /// Read a key file's text: one key a line, blank lines and `#` comments skipped.
    #[staticmethod]
    fn from_text(text: &str) -> PyResult<Self> {
        Ok(Keyring {
            inner: core::Keyring::parse(text).py()?,
        })
    }

    /// A key ring of one new key from the OS random source. The ring does not hand its keys
    /// back: to keep a key, make it with `Key.generate` and save `key.to_text()`.
    #[staticmethod]
    #[pyo3(signature = (version = None))]
    fn generate(version: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(Keyring {
            inner: core::Keyring::new([generate(version)?]).py()?,
        })
    }

    /// The key versions held, ascending.
    #[getter]
    fn versions(&self) -> Vec<u32> {
        // As ints: a Vec<u8> would reach Python as bytes.
        self.inner.versions().into_iter().map(u32::from).collect()
    }

    /// The version that obfuscates: the highest.
    #[getter]
    fn active_version(&self) -> u8 {
        self.inner.active().version()
    }

    /// The number shown in place of `id` (an int in `0..=2^63-1`), made with the active key.
    fn obfuscate(&self, id: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.inner.obfuscate(id63("id", id)?).py()
    }

    /// The ID behind `shown`, made with key `version` (default: the active key).
    #[pyo3(signature = (shown, version = None))]
    fn reveal(
        &self,
        shown: &Bound<'_, PyAny>,
        version: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let shown = id63("shown", shown)?;
        match version {
            None => self.inner.active().reveal(shown).py(),
            Some(v) => with_version(v, |v| self.inner.reveal(v, shown)),
        }
    }

    /// The 12-character tagged form of `id`: the active key's version, then 11 base62 digits.
    fn obfuscate_tagged(&self, id: &Bound<'_, PyAny>) -> PyResult<String> {
        self.inner.obfuscate_tagged(id63("id", id)?).py()
    }

    /// The ID behind a tagged form, with the key it names.
    fn reveal_tagged(&self, text: &str) -> PyResult<u64> {
        self.inner.reveal_tagged(text).py()
    }

    fn __repr__(&self) -> String {
        format!("Keyring(versions={:?})", self.inner.versions())
    }
}

/// Split the tagged form into its key version and the plain obfuscated number.
#[pyfunction]
pub fn split_tagged(text: &str) -> PyResult<(u8, u64)> {
    core::split_tagged(text).py()
}
