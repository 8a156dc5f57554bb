//! Fuzz target `template`: runs checks/template.rs (as core/tests/fuzz_corpus.rs does).
#![no_main]

mod checks {
    pub mod template;
}

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::template::check(data));
