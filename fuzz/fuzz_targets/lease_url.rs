//! Worker-lease store URLs: as the segment store URLs, with the lease defaults.
#![no_main]

mod common;

use idmint_core::fuzzing::lease_url;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(url) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(plan) = lease_url(url) {
        common::check_plan(url, &plan);
    }
});
