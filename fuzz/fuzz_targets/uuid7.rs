//! Fuzz target `uuid7`: runs checks/uuid7.rs (as core/tests/fuzz_corpus.rs does).
#![no_main]

mod checks {
    pub mod uuid7;
}

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::uuid7::check(data));
