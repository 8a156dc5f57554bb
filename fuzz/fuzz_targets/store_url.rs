//! Fuzz target `store_url`: runs checks/store_url.rs (as core/tests/fuzz_corpus.rs does).
#![no_main]

mod checks {
    mod common;
    pub mod store_url;
}

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::store_url::check(data));
