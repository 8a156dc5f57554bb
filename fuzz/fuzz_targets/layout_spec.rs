//! Fuzz target `layout_spec`: runs checks/layout_spec.rs (as core/tests/fuzz_corpus.rs does).
#![no_main]

mod checks {
    pub mod layout_spec;
}

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::layout_spec::check(data));
