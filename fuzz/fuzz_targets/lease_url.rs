//! Fuzz target `lease_url`: runs checks/lease_url.rs (as core/tests/fuzz_corpus.rs does).
#![no_main]

mod checks {
    mod common;
    pub mod lease_url;
}

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::lease_url::check(data));
