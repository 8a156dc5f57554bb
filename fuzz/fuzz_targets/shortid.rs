//! Fuzz target `shortid`: runs checks/shortid.rs (as core/tests/fuzz_corpus.rs does).
#![no_main]

mod checks {
    pub mod shortid;
}

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::shortid::check(data));
