//! Fuzz target `parse_id`: runs checks/parse_id.rs (as core/tests/fuzz_corpus.rs does).
#![no_main]

mod checks {
    pub mod parse_id;
}

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::parse_id::check(data));
