//! Fuzz target `obfuscate`: runs checks/obfuscate.rs (as core/tests/fuzz_corpus.rs does).
#![no_main]

mod checks {
    pub mod obfuscate;
}

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::obfuscate::check(data));
