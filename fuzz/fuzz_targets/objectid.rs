//! Fuzz target `objectid`: runs checks/objectid.rs (as core/tests/fuzz_corpus.rs does).
#![no_main]

mod checks {
    pub mod objectid;
}

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::objectid::check(data));
