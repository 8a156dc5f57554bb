//! Fuzz target `counter_url`: runs checks/counter_url.rs (as core/tests/fuzz_corpus.rs does).
#![no_main]

mod checks {
    pub mod counter_url;
}

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::counter_url::check(data));
